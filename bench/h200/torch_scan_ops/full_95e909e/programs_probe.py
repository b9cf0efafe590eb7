"""Why two program rows came out below 1x at 95e909e: the step's latency (events around one step,
as torch-scan-ops times it), its GPU time alone (the step captured in a CUDA graph, 20 replays
between events, back to back), and the kernels one step launches (torch.profiler), switch off
and on, interleaved over 5 rounds."""
import statistics, sys
import torch
import scan_zoo.torch as switch
from transformers.generation.logits_process import TopPLogitsWarper

def latency(step, reps=60):
    for _ in range(10): step()
    torch.cuda.synchronize(); t = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); step(); b.record(); b.synchronize(); t.append(a.elapsed_time(b) * 1e3)
    return statistics.median(t), min(t)

def graph_time(step, replays=20, rounds=15):
    s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3): step()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g): step()
    for _ in range(3): g.replay()
    t = []
    for _ in range(rounds):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(replays): g.replay()
        b.record(); b.synchronize(); t.append(a.elapsed_time(b) * 1e3 / replays)
    return statistics.median(t)

def kernels(step):
    from torch.profiler import profile, ProfilerActivity
    for _ in range(3): step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        step(); torch.cuda.synchronize()
    return [(e.name[:60], round(e.device_time, 1)) for e in p.events() if e.device_time > 0]

torch.manual_seed(0)
warper = TopPLogitsWarper(top_p=0.9)
logits1 = torch.randn(1, 128256, device="cuda"); ids1 = torch.zeros(1, 1, dtype=torch.int64, device="cuda")
mask = torch.rand(8, 8192, device="cuda") < 0.9
m64, mb = mask.to(torch.int64), mask
x1 = torch.randn(1, 128256, device="cuda")
steps = {
    "top-p batch 1": lambda: warper(ids1, logits1),
    "cumsum f32 [1,128256]": lambda: x1.cumsum(-1),
    "position ids int64 [8,8192]": lambda: (m64.cumsum(-1) - 1).clamp(min=0),
    "cumsum int64 [8,8192]": lambda: m64.cumsum(-1),
    "position ids bool [8,8192]": lambda: (mb.cumsum(-1) - 1).clamp(min=0),
}
for name, step in steps.items():
    res = {}
    for r in range(5):
        for mode in (("off", "on") if r % 2 == 0 else ("on", "off")):
            switch.enable() if mode == "on" else switch.disable()
            res.setdefault(mode, []).append(latency(step))
            switch.disable()
    g = {}
    for mode in ("off", "on", "off", "on"):
        switch.enable() if mode == "on" else switch.disable()
        try: g.setdefault(mode, []).append(graph_time(step))
        except Exception as e: g.setdefault(mode, []).append(float("nan")); print("graph", mode, e)
        switch.disable()
    print(f"{name}: latency medians off {[round(x[0],1) for x in res['off']]} on {[round(x[0],1) for x in res['on']]}")
    print(f"   latency mins off {min(x[1] for x in res['off']):.1f} on {min(x[1] for x in res['on']):.1f}; graph GPU us/step off {[round(x,1) for x in g['off']]} on {[round(x,1) for x in g['on']]}")
    for mode in ("off", "on"):
        switch.enable() if mode == "on" else switch.disable()
        print(f"   kernels {mode}: {kernels(step)}")
        switch.disable()
    sys.stdout.flush()
