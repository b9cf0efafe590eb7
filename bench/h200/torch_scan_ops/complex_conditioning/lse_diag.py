"""Reruns test_complex_logcumsumexp_as_torch over many seeds; for each failure, what failed and the
conditioning of the worst element: kappa = sum |exp z| / |sum exp z| over its prefix."""
import sys, torch
sys.path[:0] = ["tests", "."]
import test_python as t
import scan_zoo

def diagnose(seed, shape, dim, dtype_name):
    dtype = getattr(torch, dtype_name)
    g = torch.Generator(device="cuda").manual_seed(seed)
    real = 3 * torch.randn(shape, generator=g, device="cuda", dtype=torch.float64)
    imag = 18 * torch.rand(shape, generator=g, device="cuda", dtype=torch.float64) - 9
    r = torch.rand(shape, generator=g, device="cuda")
    real = torch.where(r < 0.05, float("-inf"), torch.where((r > 0.9996) & (r <= 0.9998), float("nan"), real))
    imag = torch.where(r > 0.9998, float("nan"), imag)
    x = torch.complex(real, imag).to(dtype)
    y = scan_zoo.logcumsumexp(x, dim).cpu().to(torch.complex128)
    wide = x.cpu().to(torch.complex128)
    e = wide.logcumsumexp(dim)
    modulus_lse = wide.real.nan_to_num(float("-inf")).logcumsumexp(dim)  # log sum |exp z|
    kappa = (modulus_lse - e.real).exp()
    nan = e.real.isnan() | e.imag.isnan()
    finite = ~nan & (e.real != float("-inf"))
    turns = torch.round((e.imag - y.imag) / (2 * torch.pi))
    moved = torch.complex(y.real, y.imag + 2 * torch.pi * turns)
    eps = torch.finfo(torch.float32 if dtype == torch.complex64 else torch.float64).eps
    length = shape[dim]
    tol = 8 * eps * length ** 0.5 * (1 + e.abs())
    err = (moved - e).abs()
    ratio = torch.where(finite, err / tol, torch.zeros_like(err))
    k = int(ratio.flatten().argmax())
    idx = [int(v) for v in torch.unravel_index(torch.tensor(k), shape)]
    print(f"  worst at {idx}: err/tol {ratio.flatten()[k].item():.3g}, err {err.flatten()[k].item():.3g}, "
          f"kappa {kappa.flatten()[k].item():.3g}, expected {e.flatten()[k].item()}, got {y.flatten()[k].item()}, "
          f"err/(eps*kappa) {(err.flatten()[k] / (eps * kappa.flatten()[k])).item():.3g}; "
          f"elements over tol {int((ratio > 1).sum())}, max err/(eps*kappa) over finite "
          f"{(err / (eps * kappa))[finite].max().item():.3g}")

fails = 0
cases = [((1000, 64), 0, dt, s) for dt in ("complex128", "complex64") for s in range(1, 201)]
cases += [(shape, dim, "complex128", s) for shape, dim in t.SHAPES for s in range(1000, 1020)]
for shape, dim, dt, s in cases:
    try:
        t.test_complex_logcumsumexp_as_torch(torch, s, shape, dim, dt)
    except AssertionError as err:
        fails += 1
        print(f"FAIL seed {s} {dt} {shape} dim {dim}: {str(err).splitlines()[0][:160]}")
        diagnose(s, shape, dim, dt)
print("fails", fails, "of", len(cases))
