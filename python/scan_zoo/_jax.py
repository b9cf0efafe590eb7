"""JAX arrays: the scans as JAX primitives of their own that lower to XLA custom calls (jax.ffi), so
that they run eagerly, inside jax.jit and under jax.vmap and jax.grad, on the stream XLA gives them.

The primitives, each one custom call of a handler of the extension (python/src/jax_handlers.cpp,
registered for the CUDA platform when this module is first imported):
  scan_zoo_sum, scan_zoo_scan      a sum (linear), and a product, logsumexp, maximum or minimum,
                                   along one axis of an array of any shape (handler scan_zoo_scan)
  scan_zoo_linear_recurrence       h[t] = a[t] h[t -+ 1] + b[t] along one axis
  scan_zoo_segmented_scan          the sums within each segment of a 1-D array
Compiled for another platform, a primitive's lowering raises an error saying that scan_zoo runs
on CUDA devices. XLA allocates the output and a scratch output of the bytes the workspace needs
(the extension says how many); the handler makes the workspace over it, which zeroes it on the
stream before the scan (one memset of a few KB a call: XLA's buffers are not kept between
calls). Nothing synchronizes. JAX arrays are immutable, so there is no out=, and cummax and
cummin give the values alone (as jax.lax.cummax does).

Dtypes: every plan of _dtypes.py. The scan handler takes the kernel's dtypes as attributes, so a
view costs nothing: a uint64 array is scanned as int64's bytes, a complex one as the float pairs
it is (a line of complex numbers, two float lines side by side: the inner extent doubled), with
no conversion in the graph. Without jax_enable_x64, where JAX has no 64-bit type, the plans'
int64 has 32-bit stand-ins (_jax_rules.py): a cast to int64 is one to int32, and a kernel's int64
output is the int32 kernel's where there is one, else held as int32 pairs whose low words are
kept.

vmap: each primitive has a batching rule, so a vmapped scan is one launch and copies nothing. The
batch axis, wherever it is, is one more axis of the array: before the scanned axis it joins the
lines' outer extent, after it their inner one (axis.cuh scans [outer, length, inner]). For
linear_recurrence, a and b are put on one batch axis first (one of them moved, or broadcast where
it is not batched: a copy, where their batch axes differ). segmented_cumsum of a batch of rows is
one segmented scan of the rows end to end, each row's offsets moved by its start (an integer op
on the batch's offsets; the rows copied where their batch axis is not the first); int32 offsets
become int64 where the batch reaches 2^31 elements (ValueError without jax_enable_x64).

Gradients: a sum is linear, its transpose the sum in the other direction of the same kind
(inclusive stays inclusive, exclusive exclusive; _torch.py's backward), so jvp, grad, vmap of grad
and grad of vmap all follow. The product, logsumexp, maximum and minimum have jax.lax's own
derivatives (the jvp of jax.lax.cumprod, ... computed by JAX, not by the extension's kernels: the
same tangents as jax's, ties of cummax split as lax.max splits them). linear_recurrence has a
jax.custom_vjp (the adjoint recurrence of _torch.py, below). segmented_cumsum has none.

The handlers exist where the package was built by a Python that had jax (its jaxlib ships the
XLA FFI headers): `pip install --no-build-isolation .` beside jax, scikit-build-core and nanobind.
Elsewhere importing this module raises ImportError saying so.
"""
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import ad, batching, mlir, xla

from . import _dtypes, _jax_rules
from ._extension_loader import extension

if not hasattr(extension, "jax_handlers"):
    raise ImportError("this scan_zoo was built without JAX's handlers (the build's Python had no jax): reinstall it "
                      "with `pip install --no-build-isolation .` in an environment with jax, scikit-build-core and "
                      "nanobind")
for _name, _capsule in extension.jax_handlers().items():
    jax.ffi.register_ffi_target(_name, _capsule, platform="CUDA")

_NO_CODE = 2**64 - 1  # the extension's workspace size for a combination of dtypes it has no code for

dtype_name = _dtypes.numpy_dtype_name  # JAX's dtypes are NumPy's (bfloat16 by ml_dtypes)


def x64():
    """Whether JAX has 64-bit types now (jax_enable_x64, also as jax.enable_x64() sets it)."""
    return jax.dtypes.canonicalize_dtype(np.int64) == np.int64


def check_cuda(x, function, what="x"):
    if not isinstance(x, jax.Array):
        raise TypeError(f"scan_zoo.{function}: {what} must be a jax.Array, not {type(x).__name__}")
    if isinstance(x, jax.core.Tracer):
        return  # inside jax.jit or jax.vmap: XLA places it (a CPU computation's lowering says so)
    platforms = sorted({device.platform for device in x.devices()})
    if platforms != ["gpu"]:
        raise ValueError(f"scan_zoo.{function}: {what} is on {', '.join(platforms)}; scan_zoo runs on CUDA devices "
                         f"(move it with jax.device_put(x, jax.devices('gpu')[0]), or use jax.numpy's own function)")


def is_contiguous(x):
    return True  # XLA hands a custom call its buffers dense, in row-major order


def device_index(x):
    """None: JAX places each computation and checks its arguments' devices itself (arrays committed
    to different devices are its ValueError), and under jax.jit or jax.vmap an argument may be a
    tracer beside a concrete array (a b shared by a vmap), which has no device to compare."""
    return None


def _no_out(out, function):
    if out is not None:
        raise TypeError(f"scan_zoo.{function}: JAX arrays are immutable, so there is no out=: use the result")


# ---- the primitives ----

def _lines(shape, axis, lanes=1):
    """(outer, length, inner) of a row-major array of `shape` scanned along `axis`, an element
    being `lanes` kernel elements side by side."""
    return math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:]) * lanes


def _scratch(bytes_needed, function):
    if bytes_needed == _NO_CODE:  # the plans (_dtypes.py) choose only pairs with code: a bug if seen
        raise TypeError(f"scan_zoo.{function}: the extension has no code for this combination of dtypes")
    return jax.ShapeDtypeStruct((max(bytes_needed, 1),), jnp.uint8)


def _primitive(name, abstract_eval, cuda_lowering, batching_rule):
    """A primitive run eagerly as a one-operation jit, placed by XLA, lowered to a custom call on
    CUDA devices and refused elsewhere, vmapped by its rule."""
    primitive = Primitive(name)
    primitive.def_impl(functools.partial(xla.apply_primitive, primitive))
    primitive.def_abstract_eval(abstract_eval)
    mlir.register_lowering(primitive, _not_on_cuda)
    mlir.register_lowering(primitive, mlir.lower_fun(cuda_lowering, multiple_results=False), platform="cuda")
    batching.primitive_batchers[primitive] = functools.partial(batching_rule, primitive)
    return primitive


def _not_on_cuda(ctx, *args, **params):
    raise NotImplementedError(f"scan_zoo: {ctx.primitive.name} runs on CUDA devices, and this computation is "
                              f"compiled for {', '.join(ctx.module_context.platforms)} (put its arrays on a GPU, "
                              f"or use jax.numpy's own function there)")


def _held_shape(shape, words):
    """A scan's output shape: x's, and `words` result elements an element where there are more
    than one (an int64 held as int32 pairs)."""
    return shape + ((words,) if words > 1 else ())


def _scan_shape(x, *, op, in_kernel, out_kernel, lanes, axis, exclusive, reverse, result, words):
    return jax.core.ShapedArray(_held_shape(x.shape, words), jnp.dtype(result))


def _scan_lowering(x, *, op, in_kernel, out_kernel, lanes, axis, exclusive, reverse, result, words):
    codes = _dtypes.OPERATOR_CODES[op], _dtypes.DTYPE_CODES[in_kernel], _dtypes.DTYPE_CODES[out_kernel]
    lines = _lines(x.shape, axis, lanes)
    output = jax.ShapeDtypeStruct(_held_shape(x.shape, words), jnp.dtype(result))
    scratch_bytes = extension.scan_workspace_bytes(*codes, *lines, False)  # JAX's scans: the nearest look-back
    call = jax.ffi.ffi_call("scan_zoo_scan", (output, _scratch(scratch_bytes, _dtypes.FUNCTIONS[op])))
    outer, length, inner = lines
    y, _ = call(x, op=np.int64(codes[0]), in_dtype=np.int64(codes[1]), out_dtype=np.int64(codes[2]),
                outer=np.int64(outer), length=np.int64(length), inner=np.int64(inner), exclusive=np.bool_(exclusive),
                reverse=np.bool_(reverse))
    return y


def _scan_batched(primitive, args, dims, *, axis, **params):
    # The batch axis is one more axis of x, wherever it is: the scanned axis is one further on where
    # the batch axis comes before it, and the lines follow from the shape (_lines): no copy.
    (x,), (dim,) = args, dims
    return primitive.bind(x, axis=axis + (dim <= axis), **params), dim


_sum_p = _primitive("scan_zoo_sum", _scan_shape, _scan_lowering, _scan_batched)
_scan_p = _primitive("scan_zoo_scan", _scan_shape, _scan_lowering, _scan_batched)


def _sum_transpose(cotangent, x, **params):
    """The transpose of a (float or complex) sum: the cotangent summed in the other direction, of
    the same kind, converted to x's dtype (a bfloat16 input's float32 sum: a bfloat16 gradient)."""
    back = dict(params, in_kernel=params["out_kernel"], reverse=not params["reverse"])
    return [_sum_p.bind(cotangent, **back).astype(x.aval.dtype)]


ad.deflinear2(_sum_p, _sum_transpose)

_LAX_SCANS = {"prod": jax.lax.cumprod, "logsumexp": jax.lax.cumlogsumexp, "max": jax.lax.cummax,
              "min": jax.lax.cummin}


def _scan_jvp(primals, tangents, *, op, axis, **params):
    # The value from the kernel, the tangent as jax.lax's rule gives it. Only floats have tangents,
    # which no view applies to, and these operators run forward only (scan_plan refuses their
    # reverse; scan_zoo.jax flips), so x is the kernel's input as lax would scan it. A tangent is
    # never a symbolic zero here: JAX binds the primitive without its rule when all tangents are.
    (x,), (tangent,) = primals, tangents
    _, tangent_out = jax.jvp(functools.partial(_LAX_SCANS[op], axis=axis), (x,), (tangent,))
    return _scan_p.bind(x, op=op, axis=axis, **params), tangent_out


ad.primitive_jvps[_scan_p] = _scan_jvp


def _recurrence_shape(a, b, *, axis, state, reverse):
    return jax.core.ShapedArray(a.shape, jnp.dtype(state))


def _recurrence_lowering(a, b, *, axis, state, reverse):
    lines = _lines(a.shape, axis)
    bytes_needed = extension.recurrence_workspace_bytes(_dtypes.DTYPE_CODES[dtype_name(a.dtype)],
                                                        _dtypes.DTYPE_CODES[state], *lines)
    call = jax.ffi.ffi_call("scan_zoo_linear_recurrence",
                            (jax.ShapeDtypeStruct(a.shape, jnp.dtype(state)), _scratch(bytes_needed,
                                                                                       "linear_recurrence")))
    outer, length, inner = lines
    h, _ = call(a, b, outer=np.int64(outer), length=np.int64(length), inner=np.int64(inner),
                reverse=np.bool_(reverse))
    return h


def _on_batch_axis(x, dim, to, size):
    """x with its batch axis (dim; None: not batched) at `to`, of `size`: moved, or broadcast."""
    if dim is None:
        x = jnp.expand_dims(x, to)
        return jnp.broadcast_to(x, x.shape[:to] + (size,) + x.shape[to + 1:])
    return jnp.moveaxis(x, dim, to)


def _recurrence_batched(primitive, args, dims, *, axis, state, reverse):
    (a, b), (a_dim, b_dim) = args, dims
    dim, size = (a_dim, a.shape[a_dim]) if a_dim is not None else (b_dim, b.shape[b_dim])
    a, b = _on_batch_axis(a, a_dim, dim, size), _on_batch_axis(b, b_dim, dim, size)
    return primitive.bind(a, b, axis=axis + (dim <= axis), state=state, reverse=reverse), dim


_recurrence_p = _primitive("scan_zoo_linear_recurrence", _recurrence_shape, _recurrence_lowering,
                           _recurrence_batched)


def _segmented_shape(x, offsets, *, exclusive, result):
    return jax.core.ShapedArray(x.shape, jnp.dtype(result))


def _segmented_lowering(x, offsets, *, exclusive, result):
    bytes_needed = extension.segmented_workspace_bytes(_dtypes.DTYPE_CODES[dtype_name(x.dtype)],
                                                       _dtypes.DTYPE_CODES[result], x.size)
    call = jax.ffi.ffi_call("scan_zoo_segmented_scan",
                            (jax.ShapeDtypeStruct(x.shape, jnp.dtype(result)), _scratch(bytes_needed,
                                                                                        "segmented_cumsum")))
    y, _ = call(x, offsets, exclusive=np.bool_(exclusive))
    return y


def _segmented_batched(primitive, args, dims, *, exclusive, result):
    # A batch of rows is one array of them end to end: row r's segments are its offsets moved by
    # r * n, and the last offset of all is rows * n (each row's offsets start at 0 and end at n).
    (x, offsets), (x_dim, offsets_dim) = args, dims
    rows = (x.shape[x_dim] if x_dim is not None else offsets.shape[offsets_dim])
    x, offsets = _on_batch_axis(x, x_dim, 0, rows), _on_batch_axis(offsets, offsets_dim, 0, rows)
    n = x.shape[1]
    if rows * n > np.iinfo(offsets.dtype).max:
        if not x64():
            raise ValueError(f"scan_zoo.segmented_cumsum: a vmap of {rows} rows of {n} elements reaches past int32 "
                             f"offsets, and JAX has no int64 without jax_enable_x64 (batch fewer rows at a time)")
        offsets = offsets.astype(jnp.int64)
    starts = jnp.arange(rows, dtype=offsets.dtype)[:, None] * n
    ends = jnp.full((1,), rows * n, offsets.dtype)
    flat = jnp.concatenate([(offsets[:, :-1] + starts).reshape(-1), ends])
    return primitive.bind(x.reshape(-1), flat, exclusive=exclusive, result=result).reshape(rows, n), 0


_segmented_p = _primitive("scan_zoo_segmented_scan", _segmented_shape, _segmented_lowering, _segmented_batched)


# ---- what scan_zoo's functions call (scan_zoo/__init__.py), and scan_zoo.jax's ----

def cast(x, name, out=None):
    """x converted to dtype `name` as JAX holds it (without x64: int64 as int32, the same values
    modulo 2^32, which is all a 32-bit result keeps)."""
    _no_out(out, "cast")
    return x.astype(_jax_rules.canonical(name, x64()))


def scan_along(x, op, axis, out_dtype, exclusive=False, reverse=False):
    """One kernel's scan of x (of a dtype with a kernel pair to out_dtype: a plan's, after its cast)
    along `axis` (non-negative), as JAX holds out_dtype: one custom call, and where the kernel's
    int64 is held as int32 pairs, their low words taken."""
    if x.ndim == 0:  # one element: a line of one
        return scan_along(x.reshape(1), op, 0, out_dtype, exclusive, reverse).reshape(())
    in_kernel, out_kernel, lanes, result, words = _jax_rules.kernel_call(op, dtype_name(x.dtype), out_dtype, reverse,
                                                                         x64())
    primitive = _sum_p if op == "sum" else _scan_p
    y = primitive.bind(x, op=op, in_kernel=in_kernel, out_kernel=out_kernel, lanes=lanes, axis=axis,
                       exclusive=exclusive, reverse=reverse, result=result, words=words)
    return y if words == 1 else y[..., 0]


def scan(x, op, dim, lines, out_dtype, exclusive, reverse, out=None):
    _no_out(out, _dtypes.FUNCTIONS[op])
    return scan_along(x, op, dim % max(x.ndim, 1), out_dtype, exclusive, reverse)


def extreme(x, op, dim, lines, out=None):
    """cummax and cummin: the values alone, as jax.lax.cummax gives them."""
    _no_out(out, _dtypes.FUNCTIONS[op])
    return scan_along(x, op, dim % max(x.ndim, 1), dtype_name(x.dtype))


def _shifted(x, axis, toward_end):
    """x moved one step along axis, a zero coming in (as _torch.py's _shifted)."""
    length = x.shape[axis]
    zero = jnp.zeros_like(jax.lax.slice_in_dim(x, 0, 1, axis=axis))
    if toward_end:
        return jnp.concatenate([zero, jax.lax.slice_in_dim(x, 0, length - 1, axis=axis)], axis)
    return jnp.concatenate([jax.lax.slice_in_dim(x, 1, length, axis=axis), zero], axis)


@functools.partial(jax.custom_vjp, nondiff_argnums=(2, 3, 4))
def _recurrence(a, b, axis, state, reverse):
    return _recurrence_p.bind(a, b, axis=axis, state=state, reverse=reverse)


def _recurrence_forward(a, b, axis, state, reverse):
    h = _recurrence_p.bind(a, b, axis=axis, state=state, reverse=reverse)
    return h, (a, b, h)


def _recurrence_backward(axis, state, reverse, residuals, grad):
    # The adjoint recurrence, as _torch.py's _recurrence_backward derives it: lam[t] = grad[t] +
    # a[t + 1] lam[t + 1] (reversed for the reverse recurrence), then da = lam h[t - 1], db = lam.
    a, b, h = residuals
    multipliers = _shifted(a.astype(h.dtype), axis, toward_end=reverse)
    lam = _recurrence_p.bind(multipliers, grad.astype(h.dtype), axis=axis, state=state, reverse=not reverse)
    before = _shifted(h, axis, toward_end=not reverse)
    return (lam * before).astype(a.dtype), lam.astype(b.dtype)


_recurrence.defvjp(_recurrence_forward, _recurrence_backward)


def linear_recurrence(a, b, dim, lines, state, reverse):
    if a.ndim == 0:  # one step: h = b
        return _recurrence(a.reshape(1), b.reshape(1), 0, state, reverse).reshape(())
    return _recurrence(a, b, dim % a.ndim, state, reverse)


def segmented_scan(x, offsets, out_dtype, exclusive, out=None):
    _no_out(out, "segmented_cumsum")
    return _segmented_p.bind(x, offsets, exclusive=exclusive, result=_jax_rules.canonical(out_dtype, x64()))
