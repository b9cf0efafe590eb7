"""JAX arrays: the scans as XLA custom calls (jax.ffi), so that they run eagerly and inside
jax.jit alike, on the stream XLA gives them.

Each function is one jax.ffi.ffi_call of a handler of the extension (python/src/jax_handlers.cpp),
registered for the CUDA platform when this module is first imported. XLA allocates the output and
a second, scratch output of the bytes the workspace needs (the extension says how many); the
handler makes the workspace over it, which zeroes it on the stream before the scan (one memset
of a few KB a call: XLA's buffers are not kept between calls). Nothing synchronizes. JAX arrays
are immutable, so there is no out=, and cummax and cummin give the values alone (as
jax.lax.cummax does). cumsum of floats and linear_recurrence have gradients
(jax.custom_vjp, the backward passes of _torch.py: scans in the other direction); there is no
vmap (scan a batch along a dim instead).

The handlers exist where the package was built by a Python that had jax (its jaxlib ships the
XLA FFI headers): `pip install --no-build-isolation .` beside jax, scikit-build-core and nanobind.
Elsewhere importing this module raises ImportError saying so.
"""
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

from . import _dtypes
from ._extension_loader import extension

if not hasattr(extension, "jax_handlers"):
    raise ImportError("this scan_zoo was built without JAX's handlers (the build's Python had no jax): reinstall it "
                      "with `pip install --no-build-isolation .` in an environment with jax, scikit-build-core and "
                      "nanobind")
for _name, _capsule in extension.jax_handlers().items():
    jax.ffi.register_ffi_target(_name, _capsule, platform="CUDA")


dtype_name = _dtypes.numpy_dtype_name  # JAX's dtypes are NumPy's (bfloat16 by ml_dtypes)


def check_cuda(x, function, what="x"):
    if not isinstance(x, jax.Array):
        raise TypeError(f"scan_zoo.{function}: {what} must be a jax.Array, not {type(x).__name__}")
    if isinstance(x, jax.core.Tracer):
        return  # inside jax.jit: XLA places it (a CPU computation finds no handler and says so)
    platforms = sorted({device.platform for device in x.devices()})
    if platforms != ["gpu"]:
        raise ValueError(f"scan_zoo.{function}: {what} is on {', '.join(platforms)}; scan_zoo runs on CUDA devices "
                         f"(move it with jax.device_put(x, jax.devices('gpu')[0]), or use jax.numpy's own function)")


def is_contiguous(x):
    return True  # XLA hands a custom call its buffers dense, in row-major order


def device_index(x):
    """The devices an array lives on; None inside jax.jit, where XLA places the computation."""
    return None if isinstance(x, jax.core.Tracer) else tuple(sorted(device.id for device in x.devices()))


def _result(shape, dtype):
    """The output's shape and dtype as JAX has it: without jax_enable_x64 JAX has no 64-bit
    integers, so cumsum's int64 becomes int32, as jnp.cumsum's result does."""
    return jax.ShapeDtypeStruct(shape, jax.dtypes.canonicalize_dtype(jnp.dtype(dtype)))


def _scratch(bytes_needed):
    return jax.ShapeDtypeStruct((max(bytes_needed, 1),), jnp.uint8)


def _no_out(out, function):
    if out is not None:
        raise TypeError(f"scan_zoo.{function}: JAX arrays are immutable, so there is no out=: use the result")


def _scan_call(x, op, lines, out_dtype, exclusive, reverse):
    """One custom call of the scan: x's lines into a new array of out_dtype (a name)."""
    result = _result(x.shape, out_dtype)
    codes = (_dtypes.OPERATOR_CODES[op], _dtypes.DTYPE_CODES[dtype_name(x.dtype)],
             _dtypes.DTYPE_CODES[dtype_name(result.dtype)])
    call = jax.ffi.ffi_call("scan_zoo_scan", (result, _scratch(extension.scan_workspace_bytes(*codes, *lines))))
    outer, length, inner = lines
    y, _ = call(x, op=np.int64(codes[0]), outer=np.int64(outer), length=np.int64(length), inner=np.int64(inner),
                exclusive=np.bool_(exclusive), reverse=np.bool_(reverse))
    return y


@functools.partial(jax.custom_vjp, nondiff_argnums=(1, 2, 3, 4, 5))
def _sum(x, lines, out_dtype, exclusive, reverse, x_dtype):
    return _scan_call(x, "sum", lines, out_dtype, exclusive, reverse)


def _sum_forward(x, lines, out_dtype, exclusive, reverse, x_dtype):
    return _scan_call(x, "sum", lines, out_dtype, exclusive, reverse), None


def _sum_backward(lines, out_dtype, exclusive, reverse, x_dtype, _residual, grad):
    # As torch's (_torch.py): dx is dy summed in the other direction, of the same kind.
    return (_scan_call(grad, "sum", lines, dtype_name(grad.dtype), exclusive, not reverse).astype(x_dtype),)


_sum.defvjp(_sum_forward, _sum_backward)


def cast(x, name, out=None):
    _no_out(out, "cast")
    return x.astype(name)


def scan(x, op, dim, lines, out_dtype, exclusive, reverse, out=None):
    _no_out(out, _dtypes.FUNCTIONS[op])
    result = _result(x.shape, out_dtype)
    if math.prod(lines) == 0:
        return jnp.zeros(result.shape, result.dtype)
    if dtype_name(result.dtype) != out_dtype:  # int64 without jax_enable_x64: the int32 sums of the input as int32
        x = x.astype(result.dtype)
    if op == "sum" and jnp.issubdtype(result.dtype, jnp.floating):  # a sum of floats has a gradient
        return _sum(x, lines, dtype_name(result.dtype), exclusive, reverse, dtype_name(x.dtype))
    return _scan_call(x, op, lines, dtype_name(result.dtype), exclusive, reverse)


def extreme(x, op, dim, lines, out=None):
    """cummax and cummin: the values alone, as jax.lax.cummax gives them."""
    _no_out(out, _dtypes.FUNCTIONS[op])
    if math.prod(lines) == 0:
        return jnp.zeros(x.shape, x.dtype)
    return _scan_call(x, op, lines, dtype_name(x.dtype), False, False)


def _recurrence_call(a, b, lines, state, reverse):
    result = _result(a.shape, state)
    bytes_needed = extension.recurrence_workspace_bytes(_dtypes.DTYPE_CODES[dtype_name(a.dtype)],
                                                        _dtypes.DTYPE_CODES[state], *lines)
    call = jax.ffi.ffi_call("scan_zoo_linear_recurrence", (result, _scratch(bytes_needed)))
    outer, length, inner = lines
    h, _ = call(a, b, outer=np.int64(outer), length=np.int64(length), inner=np.int64(inner),
                reverse=np.bool_(reverse))
    return h


def _shifted(x, axis, toward_end):
    """x moved one step along axis, a zero coming in (as _torch.py's _shifted)."""
    length = x.shape[axis]
    zero = jnp.zeros_like(jax.lax.slice_in_dim(x, 0, 1, axis=axis))
    if toward_end:
        return jnp.concatenate([zero, jax.lax.slice_in_dim(x, 0, length - 1, axis=axis)], axis)
    return jnp.concatenate([jax.lax.slice_in_dim(x, 1, length, axis=axis), zero], axis)


@functools.partial(jax.custom_vjp, nondiff_argnums=(2, 3, 4, 5))
def _recurrence(a, b, axis, lines, state, reverse):
    return _recurrence_call(a, b, lines, state, reverse)


def _recurrence_forward(a, b, axis, lines, state, reverse):
    h = _recurrence_call(a, b, lines, state, reverse)
    return h, (a, b, h)


def _recurrence_backward(axis, lines, state, reverse, residuals, grad):
    # The adjoint recurrence, as _torch.py's _recurrence_backward derives it: lam[t] = grad[t] +
    # a[t + 1] lam[t + 1] (reversed for the reverse recurrence), then da = lam h[t - 1], db = lam.
    a, b, h = residuals
    multipliers = _shifted(a.astype(h.dtype), axis, toward_end=reverse)
    lam = _recurrence_call(multipliers, grad.astype(h.dtype), lines, state, not reverse)
    before = _shifted(h, axis, toward_end=not reverse)
    return (lam * before).astype(a.dtype), lam.astype(b.dtype)


_recurrence.defvjp(_recurrence_forward, _recurrence_backward)


def linear_recurrence(a, b, dim, lines, state, reverse):
    result = _result(a.shape, state)
    if math.prod(lines) == 0:
        return jnp.zeros(result.shape, result.dtype)
    if a.ndim == 0:  # one step: h = b
        return _recurrence(a.reshape(1), b.reshape(1), 0, lines, state, reverse).reshape(())
    return _recurrence(a, b, dim % a.ndim, lines, state, reverse)


def segmented_scan(x, offsets, out_dtype, exclusive, out=None):
    _no_out(out, "segmented_cumsum")
    result = _result(x.shape, out_dtype)
    if x.size == 0 or offsets.size < 2:
        return jnp.zeros(result.shape, result.dtype)
    bytes_needed = extension.segmented_workspace_bytes(_dtypes.DTYPE_CODES[dtype_name(x.dtype)],
                                                       _dtypes.DTYPE_CODES[dtype_name(result.dtype)], x.size)
    call = jax.ffi.ffi_call("scan_zoo_segmented_scan", (result, _scratch(bytes_needed)))
    y, _ = call(x, offsets, exclusive=np.bool_(exclusive))
    return y
