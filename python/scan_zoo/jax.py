"""scan_zoo.jax: jax.numpy's and jax.lax's scans, with their signatures and rules, on scan_zoo's kernels.

    import scan_zoo.jax as sz
    y = sz.cumsum(x, axis=1)                      # jnp.cumsum(x, axis=1): its dtype, shape and values
    c = sz.cumulative_sum(x, axis=0, include_initial=True)
    m = sz.lax.cummax(x, axis=0, reverse=True)    # jax.lax.cummax (sz.cummax is the same function)
    jax.vmap(sz.cumsum, in_axes=1)(x); jax.grad(lambda v: sz.cumsum(v).sum())(x)

Functions, each compiled by jax.jit as jax.numpy's are (arrays on a CUDA device, any shape):
  cumsum(a, axis=None, dtype=None, out=None), cumprod(...)              jax.numpy.cumsum, cumprod
  cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False), cumulative_prod(...)
                                                                          jax.numpy.cumulative_sum, ...
  lax.cumsum(operand, axis=0, reverse=False), lax.cumprod, lax.cummax, lax.cummin, lax.cumlogsumexp
                                                                          jax.lax's; cummax, cummin and
                                                                          cumlogsumexp here too
Each returns what its JAX namesake returns for the same arguments: the dtype (JAX's rules, which
are not torch's nor scan_zoo.cumsum's: int8 stays int8, int32 stays int32 under jax_enable_x64,
bool becomes the default integer; _jax_rules.py has them), the shape, the values (integers bit
for bit, wrapping as JAX's do; floats to rounding: the kernels accumulate float16 and bfloat16
in float32 and round once, where JAX's own may round at every step, so a 16-bit sum that
overflows on the way is inf from there on in JAX's, in scan_zoo's only where the float32 sum is
past the type's range; -0.0 and 0.0 tie in cummax and cummin, either may be kept), and the
errors of a bad axis, dtype or argument, in JAX's words. Without jax_enable_x64 every 64-bit
step has a 32-bit stand-in with the same bits (_jax_rules.py); an explicit 64-bit dtype= is
narrowed as JAX narrows it, without its warning.

What runs on scan_zoo: every integer, float and complex sum (dtype= included: converted first,
then summed, as JAX does, in one pass where a kernel takes both dtypes); the products of bool, the
integers, the floats and complex; cummax and cummin of the signed integers, uint8 and the floats;
and cumlogsumexp of the floats. The rest is JAX's own function, called as it is (its result, or
its error: lax refuses bool, cumlogsumexp refuses integers): cummax and cummin of uint16, uint32,
uint64 and complex, cumlogsumexp of complex, and the dtypes scan_zoo does not know
(int4, the float8s). Reverse: the sums run reversed in the kernel; lax.cumprod, cummax, cummin and
cumlogsumexp with reverse=True are the flip of the scan of the flip (two copies more: their
kernels run forward only).

Transformations: jax.jit, jax.vmap over any batch axis, nested (one launch, no copy: _jax.py),
and derivatives: the sums' is scan_zoo's sum in the other direction; cumprod's, cummax's,
cummin's and cumlogsumexp's are jax.lax's own, computed by JAX (so the forward pass runs on the
kernels, the backward as JAX's). Compiled for another platform than CUDA (an array on the CPU),
the call raises NotImplementedError: use jax.numpy there.
"""
import functools
import operator
import types

import jax
import jax.numpy as jnp

from . import _jax, _jax_rules


def _checked(function, a):
    # Inside the jit every array and scalar argument is a tracer, a jax.Array; a list is a list.
    if not isinstance(a, jax.Array):
        raise TypeError(f"{function} requires ndarray or scalar arguments, got {type(a)} at position 0.")
    return a


def _axis(axis, ndim):
    """jnp's axis: an index in [-ndim, ndim), made non-negative."""
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def _on_kernels(op, x, axis, result, reverse=False):
    """x scanned along axis in the dtype `result` by JAX's rule (x converted to result, then
    scanned in it) on scan_zoo's kernels; None where they have no code for it."""
    x64 = _jax.x64()
    flipped = reverse and op != "sum"  # the kernels of the other operators run forward only
    try:
        scanned_as, kernel_out, _ = _jax_rules.plan(op, _jax.dtype_name(x.dtype), result, reverse and not flipped,
                                                    x64)
    except TypeError:  # no pair from x's dtype: converted first as JAX does (of a complex x, its real part)
        try:
            scanned_as, kernel_out, _ = _jax_rules.plan(op, result, result, reverse and not flipped, x64)
        except TypeError:
            return None
        x = jax.lax.convert_element_type(x, result)
    if _jax.dtype_name(x.dtype) != scanned_as:
        x = jax.lax.convert_element_type(x, scanned_as)
    if flipped:
        x = jax.lax.rev(x, (axis,))
    y = _jax.scan_along(x, op, axis, kernel_out, reverse=reverse and not flipped)
    if flipped:
        y = jax.lax.rev(y, (axis,))
    return y if _jax.dtype_name(y.dtype) == result else jax.lax.convert_element_type(y, result)


def _cumulative(function, x, axis, dtype):
    """jnp.<function> of x along axis (non-negative) on the kernels; None where it is JAX's own."""
    asked = None if dtype is None else _jax.dtype_name(dtype)
    result = _jax_rules.cumulative_result(function, _jax.dtype_name(x.dtype), asked, _jax.x64())
    if result is None:
        return None
    if result == "bool" and x.dtype != jnp.bool_:  # JAX's rule: the scan of x != 0, then != 0
        x = x != 0
    return _on_kernels(_jax_rules.CUMULATIVE[function][0], x, axis, result)


def _numpy_scan(function, a, axis, dtype, out):
    _checked(function, a)
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{function} is not supported.")
    if axis is None or (a.ndim == 0 and jax.typeof(a).weak_type):  # jnp's rule: flattened (a Python scalar too)
        y = _cumulative(function, a.reshape(-1), 0, dtype)
    else:
        y = _cumulative(function, a, _axis(axis, a.ndim), dtype)
    return y if y is not None else getattr(jnp, function)(a, axis=axis, dtype=dtype)


@functools.partial(jax.jit, static_argnames=("axis", "dtype"))
def cumsum(a, axis=None, dtype=None, out=None):
    """jax.numpy.cumsum: the sums along axis (None: of the array flattened), by JAX's rules."""
    return _numpy_scan("cumsum", a, axis, dtype, out)


@functools.partial(jax.jit, static_argnames=("axis", "dtype"))
def cumprod(a, axis=None, dtype=None, out=None):
    """jax.numpy.cumprod: the products along axis (None: of the array flattened), by JAX's rules."""
    return _numpy_scan("cumprod", a, axis, dtype, out)


def _cumulative_with_initial(function, x, axis, dtype, include_initial, initial, noun):
    _checked(function, x)
    if x.ndim == 0:
        raise ValueError(f"The input must be non-scalar to take a cumulative {noun}, however a scalar value or "
                         f"scalar array was given.")
    if axis is None and x.ndim > 1:
        raise ValueError(f"The input array has rank {x.ndim}, however axis was not set to an explicit value. The "
                         f"axis argument is only optional for one-dimensional arrays.")
    along = 0 if axis is None else _axis(axis, x.ndim)
    y = _cumulative(function, x, along, dtype)
    if y is None:
        return getattr(jnp, function)(x, axis=axis, dtype=dtype, include_initial=include_initial)
    if include_initial:  # as jnp's: the identity before each line's scan
        shape = list(x.shape)
        shape[along] = 1
        y = jax.lax.concatenate([jax.lax.full(shape, initial, y.dtype), y], along)
    return y


@functools.partial(jax.jit, static_argnames=("axis", "dtype", "include_initial"))
def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """jax.numpy.cumulative_sum: cumsum of the array API (integers narrower than the default
    widened to it; axis optional for 1-D x alone), include_initial putting 0 first."""
    return _cumulative_with_initial("cumulative_sum", x, axis, dtype, include_initial, 0, "sum")


@functools.partial(jax.jit, static_argnames=("axis", "dtype", "include_initial"))
def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """jax.numpy.cumulative_prod: cumprod of the array API, include_initial putting 1 first."""
    return _cumulative_with_initial("cumulative_prod", x, axis, dtype, include_initial, 1, "product")


def _lax_scan(function, op):
    """jax.lax.<function>(operand, axis=0, reverse=False): the dtype kept, a non-negative axis."""
    def scan(operand, axis=0, reverse=False):
        _checked(function, operand)
        axis = int(axis)
        if axis < 0:
            raise ValueError("XLA operations do not allow negative axes")
        if axis >= operand.ndim:
            raise ValueError(f"axis {axis} is out of bounds for array of shape {operand.shape}")
        dtype = _jax.dtype_name(operand.dtype)
        y = None if dtype == "bool" else _on_kernels(op, operand, axis, dtype, bool(reverse))
        return y if y is not None else getattr(jax.lax, function)(operand, axis, reverse)
    scan.__name__ = scan.__qualname__ = function
    scan.__doc__ = f"jax.lax.{function}: the scan along axis (reverse: from each line's end), the dtype kept."
    return jax.jit(scan, static_argnames=("axis", "reverse"))


# jax.lax's scans, by the names jax.lax gives them (its cumsum and cumprod are not jax.numpy's).
lax = types.SimpleNamespace(**{function: _lax_scan(function, op) for function, op in (
    ("cumsum", "sum"), ("cumprod", "prod"), ("cummax", "max"), ("cummin", "min"), ("cumlogsumexp", "logsumexp"))})
cummax, cummin, cumlogsumexp = lax.cummax, lax.cummin, lax.cumlogsumexp

__all__ = ["cumsum", "cumprod", "cumulative_sum", "cumulative_prod", "cummax", "cummin", "cumlogsumexp", "lax"]
