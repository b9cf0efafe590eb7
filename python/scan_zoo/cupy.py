"""scan_zoo.cupy: numpy.cumsum, cumprod, cumulative_sum and cumulative_prod for cupy.ndarray, with
NumPy's signatures and NumPy 2's rules, on scan_zoo's kernels.

    import cupy, scan_zoo.cupy
    x = cupy.random.standard_normal((8, 131072), dtype=cupy.float32)
    y = scan_zoo.cupy.cumsum(x, axis=1)                     # numpy.cumsum(x, axis=1), one launch
    z = scan_zoo.cupy.cumsum(x)                             # axis=None: x flattened in C order, 1-D
    w = scan_zoo.cupy.cumulative_sum(x, axis=1, include_initial=True)   # a column of 0 first

Functions (a and x a cupy.ndarray on a CUDA device, any shape):
  cumsum(a, axis=None, dtype=None, out=None), cumprod(a, axis=None, dtype=None, out=None)
      As numpy.cumsum and numpy.cumprod: the running sums (products) along axis.
  cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False), cumulative_prod(...)
      As NumPy 2.1's numpy.cumulative_sum and numpy.cumulative_prod (the array API's).
Rules, NumPy's (each checked against numpy itself by tests/test_cupy_rules.py):
  axis  None flattens a in C order to 1-D (cumsum, cumprod: a copy where a is not C-contiguous;
        a strided input along an axis costs one copy too); cumulative_sum and cumulative_prod
        take None only for an x of at most one dimension (ValueError otherwise). A 0-d input is
        one element in one dimension: the result has shape (1,). A negative axis counts from the
        end; one out of range raises numpy.exceptions.AxisError (both a ValueError and an
        IndexError), one that is not an integer TypeError.
  dtype The elements accumulate in dtype= where given; else, with out=, in NumPy's promotion of
        the input's dtype and out's (numpy.promote_types: an int32 input into a float32 out
        accumulates in float64, a uint64 one into an int64 out in float64); else in the input's
        dtype, but bool and the signed integers narrower than int64 in int64, the unsigned ones
        narrower than uint64 in uint64 (_numpy_rules.py). Each element is converted to it first:
        dtype=int8 is wrapping int8 arithmetic, dtype=bool the running or (and) of the elements'
        truth, dtype=int64 of a float truncates each element; a complex input converted to a real
        dtype warns ComplexWarning and drops the imaginary part. The result has that dtype.
  out   A cupy.ndarray of the result's shape on the input's device, of any dtype and any strides:
        the result is cast into it (casting="unsafe", as NumPy's; complex into real warns
        ComplexWarning) and out is returned. A C-contiguous out of the accumulation's dtype that
        shares no memory with the input (or is the input itself) is written by the scan; any other
        costs a temporary and one more pass, the cast.
  include_initial (cumulative_sum, cumulative_prod)  The identity (0, 1) first along axis, so
        the result is one longer there (out too). The scan writes straight into the rest where
        that is contiguous (a 1-D x, axis 0); elsewhere it costs a temporary and a copy.
What differs from NumPy: a float16 accumulation is done in float32 and rounded once per element
  (NumPy rounds every partial sum to float16: less accurate, so the last bits differ, more on
  long lines); float32 and float64 add in a parallel order, so they differ from NumPy's sequential
  order by rounding (integers are exact, wrapping as NumPy's); a float converted to an integer
  outside its range (or a NaN) is undefined in C, and the GPU's conversion need not give NumPy's.
Refused: an input or out that is not a cupy.ndarray: TypeError (numpy's own functions take host
  arrays; cupy.asarray moves one to the GPU). A dtype beyond bool, the integers, float16/32/64
  and complex64/128: TypeError. An out of another shape or device: ValueError.
Streams: every kernel is enqueued on CuPy's current stream of the input's device and the call
  returns at once; nothing synchronizes (scan_zoo's manual, python/scan_zoo/__init__.py). Needs
  NumPy 1.25 or later (numpy.exceptions).
"""
import operator
import warnings

import cupy
from numpy.exceptions import AxisError, ComplexWarning

from . import _cupy, _dtypes, _numpy_rules
from . import cumprod as _package_cumprod, cumsum as _package_cumsum

__all__ = ["cumsum", "cumprod", "cumulative_sum", "cumulative_prod"]

_SCANS = {"sum": _package_cumsum, "prod": _package_cumprod}
_COMPLEX_TO_REAL = "Casting complex values to real discards the imaginary part"  # NumPy's own warning


def _axis_index(function, axis, ndim):
    """axis made non-negative for an array of ndim dimensions, as NumPy checks it."""
    try:
        index = operator.index(axis)
    except TypeError:
        index = None
    if index is None or isinstance(axis, bool):
        raise TypeError(f"scan_zoo.cupy.{function}: axis must be an integer or None, not {type(axis).__name__}")
    if not -ndim <= index < ndim:
        raise AxisError(index, ndim, f"scan_zoo.cupy.{function}")
    return index % ndim


def _check_out(function, out, shape, a):
    if out.shape != shape:
        raise ValueError(f"scan_zoo.cupy.{function}: out has shape {out.shape}, the result {shape}")
    if out.data.device_id != a.data.device_id:
        raise ValueError(f"scan_zoo.cupy.{function}: out is on device {out.data.device_id}, the input on "
                         f"{a.data.device_id}")


def _writable_by_the_scan(target, a, dtype):
    """Whether scan_zoo's scan of a can write target itself: contiguous, of the accumulation's dtype,
    and sharing no memory with a unless it is a (a scan in place, which the library serves)."""
    if target.dtype != dtype or not target.flags.c_contiguous:
        return False
    in_place = target.data.ptr == a.data.ptr and target.dtype == a.dtype and a.flags.c_contiguous
    return in_place or not cupy.may_share_memory(target, a)  # bounds only: no synchronization


def _accumulate(function, op, a, axis, dtype, out, include_initial, what):
    if not isinstance(a, cupy.ndarray):
        raise TypeError(f"scan_zoo.cupy.{function}: {what} is a {type(a).__module__}.{type(a).__name__}; it takes a "
                        f"cupy.ndarray (numpy.{function} takes host arrays; cupy.asarray moves one to the GPU)")
    if out is not None and not isinstance(out, cupy.ndarray):
        raise TypeError(f"scan_zoo.cupy.{function}: out must be a cupy.ndarray, not {type(out).__name__}")
    with a.device:  # the copies, casts and fills below on the input's device, on its current stream
        return _accumulate_on_device(function, op, a, axis, dtype, out, include_initial)


def _accumulate_on_device(function, op, a, axis, dtype, out, include_initial):
    if axis is None:
        if function in ("cumsum", "cumprod"):
            a = a.ravel()  # C order: a copy where a is not contiguous
        elif a.ndim > 1:
            raise ValueError(f"scan_zoo.cupy.{function}: x has {a.ndim} dimensions; axis=None takes an x of at most "
                             f"one, as numpy.{function} does (give axis, or flatten x first)")
        axis = 0
    else:
        axis = _axis_index(function, axis, max(a.ndim, 1))
    if a.ndim == 0:
        a = a.reshape(1)
    in_dtype = _cupy.dtype_name(a.dtype)
    accumulated = _numpy_rules.accumulation_dtype(in_dtype, None if dtype is None else _cupy.dtype_name(dtype),
                                                  None if out is None else _cupy.dtype_name(out.dtype))
    shape = a.shape[:axis] + (a.shape[axis] + (1 if include_initial else 0),) + a.shape[axis + 1:]
    if out is not None:
        _check_out(function, out, shape, a)
    if in_dtype in _dtypes.COMPLEXES and accumulated not in _dtypes.COMPLEXES:
        warnings.warn(_COMPLEX_TO_REAL, ComplexWarning, stacklevel=4)
        a = a.real
        in_dtype = _cupy.dtype_name(a.dtype)
    first = _numpy_rules.converted_first(function, op, in_dtype, accumulated)
    if first != in_dtype:
        a = a.astype(first)
    result = cupy.empty(shape, accumulated) if out is None else out
    scanned = result
    if include_initial:
        scanned = result[(slice(None),) * axis + (slice(1, None),)]
        result[(slice(None),) * axis + (0,)] = _numpy_rules.IDENTITIES[op]
    if _writable_by_the_scan(scanned, a, accumulated):
        _SCANS[op](a, axis, dtype=accumulated, out=scanned)
        return result
    scan = _SCANS[op](a, axis, dtype=accumulated)
    if accumulated in _dtypes.COMPLEXES and _cupy.dtype_name(scanned.dtype) not in _dtypes.COMPLEXES:
        warnings.warn(_COMPLEX_TO_REAL, ComplexWarning, stacklevel=4)
        scan = scan.real
    cupy.copyto(scanned, scan, casting="unsafe")
    return result


def cumsum(a, axis=None, dtype=None, out=None):
    """numpy.cumsum of a cupy.ndarray: the sums along axis, of a flattened where axis is None (the
    module's manual)."""
    return _accumulate("cumsum", "sum", a, axis, dtype, out, False, "a")


def cumprod(a, axis=None, dtype=None, out=None):
    """numpy.cumprod of a cupy.ndarray: the products along axis, of a flattened where axis is None
    (the module's manual)."""
    return _accumulate("cumprod", "prod", a, axis, dtype, out, False, "a")


def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """numpy.cumulative_sum of a cupy.ndarray: the sums along axis (required past one dimension),
    a 0 first with include_initial=True (the module's manual)."""
    return _accumulate("cumulative_sum", "sum", x, axis, dtype, out, include_initial, "x")


def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """numpy.cumulative_prod of a cupy.ndarray: the products along axis (required past one
    dimension), a 1 first with include_initial=True (the module's manual)."""
    return _accumulate("cumulative_prod", "prod", x, axis, dtype, out, include_initial, "x")
