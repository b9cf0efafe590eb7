"""scan_zoo.torch: torch's own scan operators on scan_zoo's kernels, with no change to the program.

    import scan_zoo.torch
    scan_zoo.torch.enable()             # from here on torch.cumsum, Tensor.cumsum, ... run on scan_zoo
    with scan_zoo.torch.enabled():      # or for a block (the state before is restored after it)
        ...
    scan_zoo.torch.disable()            # torch's own kernels again
    SCAN_ZOO_TORCH=1 python train.py    # enable() at `import scan_zoo`
    python -m scan_zoo.torch train.py   # enable(), then run the program as `python train.py` would

What it does: it registers kernels for the CUDA dispatch key of the aten operators that torch's
scans reach (torch.library), in place of torch's CUDA kernels: cumsum, cumsum.out, cumsum_,
cumprod, cumprod.out, cumprod_, _logcumsumexp and _logcumsumexp.out (logcumsumexp's), and
_cummax_helper and _cummin_helper (what cummax and cummin, with or without out=, call). So every
call that reaches those kernels runs on scan_zoo: torch.cumsum and the Tensor methods, the out=
forms, and the backward formulas that call them (cumsum's backward is a cumsum, cummax's a
scatter of its indices); autograd, autocast and the Python dispatcher are torch's own, above the
kernel. disable() takes the registrations back and torch's kernels return.

In front of the Python kernels, where the package was built against this torch (pip install
--no-build-isolation . where torch is installed: python/CMakeLists.txt), C++ kernels
(scan_zoo._torch_kernels, python/src/torch_kernels.cpp) take cumsum, cumprod and _logcumsumexp
of a contiguous CUDA tensor whose dtypes need no cast: a small call's host time is most of its
time, and a Python kernel's is more than torch's own (bench/NOTES.md, "torch's scan ops: the
host's share"). Every other call goes on to the Python kernels, and from them to torch's.

What it covers, and what falls through: a call is served when scan_zoo has a plan for its dtypes
(scan_zoo/_dtypes.py: cumsum and cumprod of bool, every integer, the four float types and complex64
and complex128, with any integer, float or complex dtype= from an integer or bool input and any
float or complex one from a float input; logcumsumexp of the floats and complex; cummax and cummin
of bool, the signed integers, uint8 and the floats, lines of fewer than 2^31 elements) and its out=
tensors are contiguous, of the result's shape and dtype. Anything else (a strided or resized out=,
an in-place scan of a strided tensor, a dim out of range) goes to torch's own CUDA kernel, as if
the switch were off: torch's results, and torch's errors.

Determinism: under torch.use_deterministic_algorithms(True) a floating-point or complex cumsum,
cumprod or logcumsumexp takes the library's fixed-order look-back (include/scan_zoo/axis.cuh,
Determinism): the same bits in every run on the same GPU, at a cost only where a line spans many
tiles (docs/library.md, "Determinism"); integer scans, cummax and cummin are deterministic as they
are. scan_zoo's own functions (scan_zoo.cumsum and the others) follow the same flag.

Rules: torch's. The output dtype (integers and bool to int64 unless dtype= says; dtype= converts
the input first, then scans in that dtype), the tie and NaN rules of cummax and cummin (the later
index; a NaN wins, a later NaN over an earlier), logcumsumexp's infinities and NaNs. 16-bit floats
accumulate in float32 and round once: the accuracy of torch's CPU kernel, which torch's own CUDA
kernel for those types does not reach (bench/NOTES.md, "torch's scan ops"). A complex
logcumsumexp's imaginary part is defined only modulo 2 pi, and torch's kernels pick a branch by
the order of their combines; scan_zoo's is the one nearest the imaginary part of the term with the
largest real part (include/scan_zoo/operators.cuh, LogSumExp<Complex<T>>), whatever the order:
a line's first result is its first element (to rounding), as in torch.

torch.compile: Inductor lowers cumsum, cumprod, logcumsumexp, cummax and cummin to its own Triton
scans; while the switch is on, those lowerings are Inductor's fallbacks, which call the aten
operators and so scan_zoo. A function compiled before enable() (or a graph in Inductor's on-disk
cache from such a compilation) keeps what it was compiled with; torch.compiler.reset() recompiles.
aot_eager and eager backends reach the kernels as they are.
"""
import contextlib
import os
import runpy
import sys
import threading
import warnings

import torch

from . import _core, _dtypes
from . import _torch as _adapter

_LOCK = threading.Lock()
_STATE = {"library": None, "originals": {}, "lowerings": {}, "fast": None}
# Per aten operator, the calls scan_zoo served and those that fell through to torch's kernel,
# since the process started (counts(); a dict update a call, next to a kernel launch's cost).
_COUNTS = {}


def is_enabled():
    """Whether torch's scan operators run on scan_zoo now."""
    return _STATE["library"] is not None


def counts():
    """{aten operator: (calls served by scan_zoo, calls that fell through to torch's kernel)} so
    far in this process: what a program's scans reached."""
    merged = dict(_COUNTS)
    fast = _STATE["fast"]
    for name, served in (fast.served().items() if fast else ()):
        if served:
            done, fell = merged.get(name, (0, 0))
            merged[name] = (done + served, fell)
    return merged


def _count(name, served):
    done, fell = _COUNTS.get(name, (0, 0))
    _COUNTS[name] = (done + 1, fell) if served else (done, fell + 1)


# ---- what a call needs to be served here ----

# Results torch's CUDA cumsum and cumprod have no kernel for (they dispatch on the result's dtype:
# "cumsum_cuda" not implemented for 'UInt32', measured with torch 2.11 on the H200): an in-place
# scan of a bool or uint16-64 tensor, or such a dtype= (cummax and cummin of bool have one).
# scan_zoo's own functions compute them; the switch leaves them to torch, which refuses them.
_NO_TORCH_KERNEL = frozenset(("bool", "uint16", "uint32", "uint64"))


# A call's plan hangs on its dtypes alone (its lines on its shape): kept per (op, x's dtype, dtype=),
# so that a call pays a dict lookup for it (the host time of a small call is most of its time:
# bench/NOTES.md, "torch's scan ops: the host's share"). None: no plan, the call falls through.
_DTYPE_PLANS = {}


def _dtype_plan(op, x_dtype, dtype):
    key = (op, x_dtype, dtype)
    try:
        return _DTYPE_PLANS[key]
    except KeyError:
        pass
    try:
        asked = None if dtype is None else _adapter.dtype_name(dtype)
        plan = _dtypes.scan_plan(op, _adapter.dtype_name(x_dtype), asked)
    except (TypeError, ValueError):
        plan = None
    if plan is not None and plan[2] in _NO_TORCH_KERNEL and op in ("sum", "prod"):
        plan = None  # torch's NotImplementedError, word for word
    _DTYPE_PLANS[key] = plan
    return plan


def _plan(x, dim, op, dtype):
    """(the lines, the dtype x is cast to first, the kernel's output dtype, the result's dtype), or
    None where the call falls through to torch's kernel (no code for it, a bad argument)."""
    try:
        lines, _ = _core.lines_of(tuple(x.shape), dim, _dtypes.FUNCTIONS[op])
    except (TypeError, IndexError):
        return None
    plan = _dtype_plan(op, x.dtype, dtype)
    if plan is None:
        return None
    return (lines,) + plan


def _empty_result(x, dtype_name):
    """A contiguous tensor of x's shape for the result: empty_like where x is contiguous (its
    layout is the result's, and the call parses no shape), torch.empty of the shape elsewhere."""
    dtype = _adapter._TORCH_DTYPES[dtype_name]
    if x.is_contiguous():
        return torch.empty_like(x, dtype=dtype)
    return torch.empty(x.shape, dtype=dtype, device=x.device)


def _fits(out, x, dtype_name):
    """Whether an out= tensor can take the result as it is (else torch's kernel resizes or refuses it)."""
    return (out.is_contiguous() and tuple(out.shape) == tuple(x.shape) and out.device == x.device and
            _adapter.dtype_name(out.dtype) == dtype_name)


def _scan_into(name, x, op, plan, out):
    """The scan of x as `plan` (_plan's) into out, contiguous and of the result's dtype."""
    lines, scanned_as, kernel_out, out_dtype = plan
    _count(name, True)
    x = x.contiguous()
    if _adapter.dtype_name(x.dtype) != scanned_as:
        x = _adapter.cast(x, scanned_as)
    if kernel_out == out_dtype:
        _adapter._enqueue_scan(x, op, lines, out, False, False)
        return out
    wide = _empty_result(x, kernel_out)
    _adapter._enqueue_scan(x, op, lines, wide, False, False)
    return out.copy_(wide)  # a narrow integer: the int64 scan truncated (_dtypes.py)


# ---- the kernels, one per aten operator (their schemas: torch/_C/_VariableFunctions, native_functions.yaml) ----

def _original(name, keyset, *args, **kwargs):
    _count(name, False)
    return _STATE["originals"][name].call_boxed(keyset, *args, **kwargs)


def _new_scan(name, op):
    def kernel(keyset, x, dim, *, dtype=None):
        plan = _plan(x, dim, op, dtype)
        if plan is None:
            return _original(name, keyset, x, dim, dtype=dtype)
        return _scan_into(name, x, op, plan, _empty_result(x, plan[3]))
    return kernel


def _scan_out(name, op):
    def kernel(keyset, x, dim, *, dtype=None, out):
        # torch's rule for out=: the result's dtype is dtype=, else out's own.
        plan = _plan(x, dim, op, dtype if dtype is not None else out.dtype)
        if plan is None or not _fits(out, x, plan[3]) or _overlaps_badly(out, x):
            return _original(name, keyset, x, dim, dtype=dtype, out=out)
        return _scan_into(name, x, op, plan, out)
    return kernel


def _scan_in_place(name, op):
    def kernel(keyset, x, dim, *, dtype=None):
        plan = _plan(x, dim, op, dtype if dtype is not None else x.dtype)
        if plan is None or not x.is_contiguous() or plan[3] != _adapter.dtype_name(x.dtype):
            return _original(name, keyset, x, dim, dtype=dtype)
        if plan[1] != plan[3] or plan[2] != plan[3]:  # through a cast or int64, then back into x
            return _scan_into(name, x, op, plan, x)
        _count(name, True)
        _adapter._enqueue_scan(x, op, plan[0], x, False, False)  # in place: the library scans out == in
        return x
    return kernel


def _overlaps(a, b):
    """Whether two tensors' bytes share memory."""
    a_begin, b_begin = a.data_ptr(), b.data_ptr()
    a_end = a_begin + a.numel() * a.element_size()
    b_end = b_begin + b.numel() * b.element_size()
    return a_begin < b_end and b_begin < a_end


def _overlaps_badly(out, x):
    """An out= that shares x's memory other than as x itself of x's dtype (a scan in place, which
    the library serves)."""
    return _overlaps(out, x) and not (out.data_ptr() == x.data_ptr() and out.dtype == x.dtype)


def _logcumsumexp(keyset, x, dim):
    plan = _plan(x, dim, "logsumexp", None)
    if plan is None:
        return _original("_logcumsumexp", keyset, x, dim)
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    return _scan_into("_logcumsumexp", x, "logsumexp", plan, out)


def _logcumsumexp_out(keyset, x, dim, *, out):
    plan = _plan(x, dim, "logsumexp", None)
    if plan is None or not _fits(out, x, plan[3]) or _overlaps_badly(out, x):
        return _original("_logcumsumexp.out", keyset, x, dim, out=out)
    return _scan_into("_logcumsumexp.out", x, "logsumexp", plan, out)


def _extreme_helper(name, op):
    def kernel(keyset, x, values, indices, dim):
        # cummax's composite has sized values and indices (and handled 0-d and empty inputs) first.
        plan = _plan(x, dim, op, None)
        if (plan is None or plan[0][1] > _dtypes.EXTREME_MAX_LENGTH or not _fits(values, x, plan[3]) or
                not _fits(indices, x, "int64") or _overlaps(values, x) or _overlaps(indices, x)):
            return _original(name, keyset, x, values, indices, dim)
        _count(name, True)
        _adapter._enqueue_extreme(x.contiguous(), op, plan[0], values, indices)
        return None
    return kernel


_KERNELS = {
    "cumsum": _new_scan("cumsum", "sum"),
    "cumsum.out": _scan_out("cumsum.out", "sum"),
    "cumsum_": _scan_in_place("cumsum_", "sum"),
    "cumprod": _new_scan("cumprod", "prod"),
    "cumprod.out": _scan_out("cumprod.out", "prod"),
    "cumprod_": _scan_in_place("cumprod_", "prod"),
    "_logcumsumexp": _logcumsumexp,
    "_logcumsumexp.out": _logcumsumexp_out,
    "_cummax_helper": _extreme_helper("_cummax_helper", "max"),
    "_cummin_helper": _extreme_helper("_cummin_helper", "min"),
}


# ---- Inductor: its own scans give way to fallbacks that call the operators ----

def _inductor_lowerings(route):
    """route=True: Inductor's lowerings of the scans become its fallbacks (which call aten, and so
    scan_zoo); False: its own lowerings back."""
    try:
        from torch._inductor import lowering
    except Exception:  # an Inductor that does not import here cannot compile anything either
        return
    aten = torch.ops.aten
    saved = _STATE["lowerings"]
    if route:
        for op in (aten.cumsum.default, aten.cumprod.default, aten.logcumsumexp.default, aten.cummax.default,
                   aten.cummin.default):
            if op in lowering.lowerings:
                saved[op] = lowering.lowerings[op]
                lowering.lowerings[op] = lowering.fallback_handler(op, add_to_fallback_set=False)
    else:
        lowering.lowerings.update(saved)
        saved.clear()


# ---- the C++ kernels in front (python/src/torch_kernels.cpp) ----

def _fast_kernels():
    """scan_zoo._torch_kernels where it was built against this very torch (its C++ ABI is one
    version's), else None: the Python kernels serve alone."""
    try:
        from . import _torch_build
    except ImportError:  # built without torch in the build's Python
        return None
    if _torch_build.TORCH_VERSION != torch.__version__:
        return None
    try:
        from . import _torch_kernels
    except ImportError as error:  # a broken install: say so, and serve with the Python kernels
        warnings.warn(f"scan_zoo.torch: its C++ kernels do not load ({error}); the Python kernels serve alone",
                      RuntimeWarning, stacklevel=3)
        return None
    return _torch_kernels


# The C++ kernels' operators: aten's name and scan_zoo's operator; dtype= for the first two.
_FAST_OPERATORS = (("cumsum", "sum", True), ("cumprod", "prod", True), ("_logcumsumexp", "logsumexp", False))


def _one_pass_plans():
    """The C++ kernels' table: every (operator, input dtype, dtype=) whose plan (_dtype_plan's) is
    the kernel alone, no cast before it or after it, with the extension's codes."""
    rows = []
    for aten, op, takes_dtype in _FAST_OPERATORS:
        for x_name in _dtypes.DTYPES:
            for asked in (None,) + (_dtypes.DTYPES if takes_dtype else ()):
                plan = _dtype_plan(op, _adapter._TORCH_DTYPES[x_name],
                                   None if asked is None else _adapter._TORCH_DTYPES[asked])
                if plan is not None and plan[0] == x_name and plan[1] == plan[2]:
                    rows.append((aten, x_name, asked or "", plan[2]) + _core._kernel_codes(op, x_name, plan[2]))
    return rows


# ---- the switch ----

def enable():
    """Runs torch's scan operators on scan_zoo from now on (the module's manual); a no-op if on."""
    with _LOCK:
        if _STATE["library"] is not None:
            return
        originals = {name: torch.library.get_kernel(f"aten::{name}", "CUDA") for name in _KERNELS}
        library = torch.library.Library("aten", "IMPL")
        with warnings.catch_warnings():  # "overriding a previously registered kernel": that is the point
            warnings.simplefilter("ignore")
            for name, kernel in _KERNELS.items():
                library.impl(name, kernel, "CUDA", with_keyset=True)
        _STATE["originals"], _STATE["library"] = originals, library
        fast = _fast_kernels()
        if fast is not None:  # registered after the Python kernels, which they hand the rest to
            fast.enable(_adapter.extension.entry_points(), _one_pass_plans())
        _STATE["fast"] = fast
        _inductor_lowerings(True)


def disable():
    """torch's own kernels again; a no-op if off."""
    with _LOCK:
        library = _STATE["library"]
        if library is None:
            return
        _inductor_lowerings(False)
        if _STATE["fast"] is not None:
            _STATE["fast"].disable()
        library._destroy()  # the registrations go, and the kernels registered before them are current again
        _STATE["library"], _STATE["originals"] = None, {}


@contextlib.contextmanager
def enabled(on=True):
    """The switch on (or off, with on=False) for a block; the state before comes back after it."""
    was = is_enabled()
    (enable if on else disable)()
    try:
        yield
    finally:
        (enable if was else disable)()


def _run(argv):
    """python -m scan_zoo.torch PROGRAM [ARGS...]: the program as `python PROGRAM ARGS...` runs it,
    with the switch on."""
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m scan_zoo.torch PROGRAM.py [ARGS...]   (runs the program with torch's scans on "
              "scan_zoo)", file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    if not os.path.isfile(argv[0]):
        print(f"scan_zoo.torch: no such program: {argv[0]}", file=sys.stderr)
        return 2
    import scan_zoo.torch as switch  # the package's module, not this __main__ copy of it
    switch.enable()
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
    runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(_run(sys.argv[1:]))
