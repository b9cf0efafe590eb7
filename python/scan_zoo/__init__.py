"""scan_zoo: prefix scans at copy speed on NVIDIA GPUs, for PyTorch tensors, CuPy arrays and JAX arrays.

    import torch, scan_zoo
    x = torch.randn(8, 131072, device="cuda")
    y = scan_zoo.cumsum(x, 1)                       # torch.cumsum(x, 1), one launch
    h = scan_zoo.linear_recurrence(a, b, -1)        # h[t] = a[t] * h[t - 1] + b[t]

Functions (x a torch.Tensor, cupy.ndarray or jax.Array on a CUDA device, any shape, any dim):
  cumsum(x, dim, *, dtype=None, exclusive=False, reverse=False, out=None)
      The sums along dim. dtype as torch.cumsum's (None: bool and integers -> int64, floats
      kept; any other dtype converts x first, then sums in it); bfloat16 and float16 accumulate
      in float32 (dtype=float32 keeps that result); exclusive starts every line with 0 (y[t] =
      x[0] + ... + x[t - 1]); reverse runs from each line's end (y[t] = x[t] + ... + x[last]),
      for int32, int64 and the float types.
  cumprod(x, dim, *, dtype=None, out=None)
      The products along dim, as torch.cumprod (bool, uint8 and integers -> int64, floats kept;
      integer products wrap as torch's do).
  logcumsumexp(x, dim, *, out=None)
      log(exp(x[0]) + ... + exp(x[t])) along dim without overflow, as torch.logcumsumexp, for
      the four float types and complex64 and complex128: -inf is the empty sum, +inf and NaN
      propagate as torch's; a complex result's imaginary part, defined modulo 2 pi, is the one
      nearest the imaginary part of the term with the largest real part.
  cummax(x, dim, *, out=None), cummin(...)
      The running maximum (minimum) along dim and where it is: (values, indices) as
      torch.cummax, the indices int64 (torch: a torch.return_types.cummax; CuPy: a tuple; JAX:
      the values alone, as jax.lax.cummax). torch's rules: a tie goes to the later index, a NaN
      wins and stays (each later NaN's index). out=(values, indices). Lines of fewer than 2^31.
  segmented_cumsum(x, offsets, *, dtype=None, exclusive=False, out=None)
      The sums within each segment of a 1-D x, segment s being x[offsets[s]:offsets[s + 1]]:
      CSR offsets (int32 or int64, segments + 1 of them, on x's device), ascending, offsets[0] = 0
      and offsets[-1] = len(x). Not checked (that would read them back, a synchronization): an
      element outside every segment is not written, and offsets out of order give wrong sums,
      never a fault. dtype and exclusive as cumsum's (each segment starts again: exclusive puts 0
      at every segment's start); no reverse. A ragged batch is its rows flattened.
  linear_recurrence(a, b, dim=-1, *, reverse=False)
      h[t] = a[t] * h[t - 1] + b[t] along dim, h[-1] = 0 (reverse: h[t] = a[t] * h[t + 1] + b[t]).
      a and b of one shape and dtype: float32, bfloat16 or float16 give a float32 h, float64 a
      float64 h.
Types: cumsum and cumprod take bool, every integer (uint16-64 included), the float types and
  complex64 and complex128 (a plan over the kernels there are, _dtypes.py: uint64 as int64's
  bits, a complex sum as its float parts, others converted first; a narrow integer dtype= is
  the int64 scan truncated, the wrapping result bit for bit); logcumsumexp the float and
  complex types;
  cummax and cummin bool, uint8, the signed integers and the floats. Others raise TypeError
  saying which are taken.
NumPy's and JAX's own signatures and rules: scan_zoo.cupy (numpy.cumsum's, for CuPy arrays) and
  scan_zoo.jax (jax.numpy's and jax.lax's).
torch's own operators: scan_zoo.torch.enable() makes torch.cumsum, cumprod, cummax, cummin and
  logcumsumexp (the Tensor methods, out=, the backward formulas, torch.compile) run on scan_zoo,
  unchanged programs included (SCAN_ZOO_TORCH=1, python -m scan_zoo.torch PROGRAM): torch.py.
Streams and memory: every call is enqueued on the current stream of the input's device (torch's
  or CuPy's; for JAX, the stream XLA runs the call on) and returns at once; outputs and scratch
  come from the framework's allocator; nothing synchronizes. A non-contiguous input is copied once
  to a contiguous one (one extra read and write); `out` must be contiguous (JAX: no out=).
PyTorch: the functions are custom operators (torch.ops.scan_zoo.*), so torch.compile traces them
  and CUDA graphs capture them; all have gradients.
JAX: each function is a JAX primitive lowered to an XLA custom call (jax.ffi), eager, inside
  jax.jit and under jax.vmap (any batch axis, nested: one launch, no copy); every function but
  segmented_cumsum has gradients (cumsum's and linear_recurrence's are scans in the other
  direction; cumprod's, logcumsumexp's, cummax's and cummin's are jax.lax's own) (_jax.py). The
  dtype rules are torch's, as above; scan_zoo.jax has jax.numpy's and jax.lax's (jax.py). It
  needs a build whose Python had jax (pip install --no-build-isolation . beside jax,
  scikit-build-core and nanobind): elsewhere a JAX array raises ImportError saying so.
Errors: TypeError (an array of another kind, a dtype without code), ValueError (a CPU array,
  mismatched shapes or devices), IndexError (dim out of range), RuntimeError (a CUDA error, e.g.
  "no kernel image is available" on a GPU the package was not built for: reinstall with
  ARCH=<its compute capability>).
The scans are the header library's (include/scan_zoo/scan.cuh, axis.cuh, segmented.cuh,
linear_recurrence.cuh): docs/python.md gives their speed against torch.cumsum.
"""
import os

from . import _core, _dtypes

__version__ = "1.0.0"
__all__ = ["cumsum", "cumprod", "logcumsumexp", "cummax", "cummin", "segmented_cumsum", "linear_recurrence"]


_FRAMEWORKS = {}  # "torch" or "cupy" -> its adapter, imported on first use


def _framework(x, function, what="x"):
    """The adapter module for x's framework."""
    module = type(x).__module__.partition(".")[0]
    framework = _FRAMEWORKS.get(module)
    if framework is not None:
        return framework
    if module == "torch":
        from . import _torch as framework
    elif module == "cupy":
        from . import _cupy as framework
    elif module in ("jax", "jaxlib"):  # a traced array's class lives in jax, a concrete one's in jaxlib
        from . import _jax as framework  # ImportError where the build had no jax: it says how to get it
    else:
        hint = " (a CPU array: use numpy's own function, or move it to the GPU with cupy.asarray)" \
            if module == "numpy" else ""
        raise TypeError(f"scan_zoo.{function}: {what} is a {type(x).__module__}.{type(x).__name__}; scan_zoo "
                        f"takes torch.Tensor, cupy.ndarray and jax.Array on a CUDA device{hint}")
    _FRAMEWORKS[module] = framework
    return framework


def _check_out(framework, x, out, out_dtype, function):
    framework.check_cuda(out, function, "out")
    if out.shape != x.shape:
        raise ValueError(f"scan_zoo.{function}: out has shape {tuple(out.shape)}, x {tuple(x.shape)}")
    if framework.dtype_name(out.dtype) != out_dtype:
        raise TypeError(f"scan_zoo.{function}: out is {framework.dtype_name(out.dtype)}, the result {out_dtype}")
    if framework.device_index(out) != framework.device_index(x):
        raise ValueError(f"scan_zoo.{function}: out is on {out.device}, x on {x.device}")
    if not framework.is_contiguous(out):
        raise ValueError(f"scan_zoo.{function}: out must be contiguous")


def _scan(function, op, x, dim, dtype, exclusive, reverse, out):
    framework = _framework(x, function)
    framework.check_cuda(x, function)
    lines, _ = _core.lines_of(x.shape, dim, function)
    asked = None if dtype is None else framework.dtype_name(dtype)
    if asked is None and out is not None and op in ("sum", "prod"):
        asked = framework.dtype_name(out.dtype)
    scanned_as, kernel_out, out_dtype = _dtypes.scan_plan(op, framework.dtype_name(x.dtype), asked, bool(reverse))
    if out is not None:
        _check_out(framework, x, out, out_dtype, function)
    if scanned_as != framework.dtype_name(x.dtype):
        x = framework.cast(x, scanned_as)  # dtype= as torch and numpy take it: converted first, then scanned
    if kernel_out != out_dtype:  # a narrow integer: the int64 scan, truncated (_dtypes.py)
        return framework.cast(framework.scan(x, op, dim, lines, kernel_out, bool(exclusive), bool(reverse)), out_dtype,
                              out)
    return framework.scan(x, op, dim, lines, out_dtype, bool(exclusive), bool(reverse), out)


def cumsum(x, dim, *, dtype=None, exclusive=False, reverse=False, out=None):
    """The sums along dim (the module's manual, above)."""
    return _scan("cumsum", "sum", x, dim, dtype, exclusive, reverse, out)


def cumprod(x, dim, *, dtype=None, out=None):
    """The products along dim, as torch.cumprod (the module's manual, above)."""
    return _scan("cumprod", "prod", x, dim, dtype, False, False, out)


def logcumsumexp(x, dim, *, out=None):
    """log(cumsum(exp(x))) along dim, computed without overflow, as torch.logcumsumexp."""
    return _scan("logcumsumexp", "logsumexp", x, dim, None, False, False, out)


def _extreme(function, op, x, dim, out):
    framework = _framework(x, function)
    framework.check_cuda(x, function)
    lines, _ = _core.lines_of(x.shape, dim, function)
    _dtypes.scan_plan(op, framework.dtype_name(x.dtype), None)  # a TypeError for a dtype without code
    if lines[1] > _dtypes.EXTREME_MAX_LENGTH:
        raise ValueError(f"scan_zoo.{function}: a line of {lines[1]} elements; it takes lines of at most "
                         f"{_dtypes.EXTREME_MAX_LENGTH} (2^31 - 1)")
    if out is not None:
        values, indices = out
        _check_out(framework, x, values, framework.dtype_name(x.dtype), function)
        _check_out(framework, x, indices, "int64", function)
    return framework.extreme(x, op, dim, lines, out)


def cummax(x, dim, *, out=None):
    """The running maximum along dim and where it is: (values, indices) as torch.cummax."""
    return _extreme("cummax", "max", x, dim, out)


def cummin(x, dim, *, out=None):
    """The running minimum along dim and where it is: (values, indices) as torch.cummin."""
    return _extreme("cummin", "min", x, dim, out)


def segmented_cumsum(x, offsets, *, dtype=None, exclusive=False, out=None):
    """The sums within each segment x[offsets[s]:offsets[s + 1]] of a 1-D x (the module's manual)."""
    function = "segmented_cumsum"
    framework = _framework(x, function)
    framework.check_cuda(x, function)
    framework.check_cuda(offsets, function, "offsets")
    if len(x.shape) != 1:
        raise ValueError(f"scan_zoo.{function}: x has shape {tuple(x.shape)}; it takes a 1-D array (flatten a "
                         f"ragged batch's rows into one, the offsets counting elements)")
    if len(offsets.shape) != 1 or offsets.shape[0] < 1:
        raise ValueError(f"scan_zoo.{function}: offsets has shape {tuple(offsets.shape)}; they are 1-D, the "
                         f"segments + 1 CSR offsets")
    _dtypes.check_offsets_dtype(framework.dtype_name(offsets.dtype))
    if framework.device_index(offsets) != framework.device_index(x):
        raise ValueError(f"scan_zoo.{function}: offsets are on {offsets.device}, x on {x.device}")
    asked = None if dtype is None else framework.dtype_name(dtype)
    if asked is None and out is not None:
        asked = framework.dtype_name(out.dtype)
    out_dtype = _dtypes.check_segmented_dtypes(framework.dtype_name(x.dtype), asked)
    if out is not None:
        _check_out(framework, x, out, out_dtype, function)
    return framework.segmented_scan(x, offsets, out_dtype, bool(exclusive), out)


def linear_recurrence(a, b, dim=-1, *, reverse=False):
    """h[t] = a[t] * h[t - 1] + b[t] along dim, h[-1] = 0 (the module's manual, above)."""
    framework = _framework(a, "linear_recurrence", "a")
    framework.check_cuda(a, "linear_recurrence", "a")
    framework.check_cuda(b, "linear_recurrence", "b")
    if a.shape != b.shape:
        raise ValueError(f"scan_zoo.linear_recurrence: a has shape {tuple(a.shape)}, b {tuple(b.shape)}")
    if framework.device_index(a) != framework.device_index(b):
        raise ValueError(f"scan_zoo.linear_recurrence: a is on {a.device}, b on {b.device}")
    lines, _ = _core.lines_of(a.shape, dim, "linear_recurrence")
    state = _dtypes.recurrence_state_dtype(framework.dtype_name(a.dtype), framework.dtype_name(b.dtype))
    return framework.linear_recurrence(a, b, dim, lines, state, bool(reverse))


def __getattr__(name):
    """scan_zoo.torch (the switch that puts torch's own scan operators on scan_zoo), scan_zoo.cupy
    (NumPy's functions for CuPy arrays) and scan_zoo.jax (jax.numpy's and jax.lax's) are imported
    when first named, so that `import scan_zoo` imports no framework."""
    if name in ("torch", "cupy", "jax"):
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module 'scan_zoo' has no attribute {name!r}")


if os.environ.get("SCAN_ZOO_TORCH", "0") not in ("", "0"):  # SCAN_ZOO_TORCH=1: the switch on at import
    from . import torch as _switch
    _switch.enable()
