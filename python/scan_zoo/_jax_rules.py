"""JAX's dtype rules for its scans, and the kernels that follow them, framework-free (dtype names).

jax.numpy's cumulative functions (jax/_src/numpy/reductions.py, _cumulative_reduction, JAX 0.10;
tests/test_jax_rules.py checks this table against jnp itself, with and without jax_enable_x64):
- cumsum and cumprod keep the input's dtype, bool becoming the default integer (int32, or int64
  under x64). Unlike numpy's and torch's rule, int8 stays int8 and int32 stays int32 under x64;
- cumulative_sum also widens every integer narrower than the default one to it (a signed one to
  int32 or int64, an unsigned one to uint32 or uint64); cumulative_prod widens bool alone;
- dtype= converts the input first, then scans in it (torch's rule too, and scan_plan's), the
  dtype made canonical: without x64 int64 is int32, uint64 uint32, float64 float32, complex128
  complex64 (jnp warns, then truncates). dtype=bool scans x != 0 in the default integer, then
  takes != 0: cumsum's is "any so far", cumprod's "all so far".
jax.lax's (cumsum, cumprod, cummax, cummin, cumlogsumexp) keep the dtype and refuse bool. A
complex cumlogsumexp is JAX's own (plan refuses it): JAX gives the principal value of
log(sum(exp(z))), imaginary part in (-pi, pi] (measured with JAX 0.10), where the kernels give
the value nearest the imaginary part of the largest term, torch's choice (operators.cuh).

Without x64 JAX has no 64-bit type, so no array of one can be cast to or held, while the
kernels' integer sums and products of the narrow types write int64 (_dtypes.py). Every result
then is 32 bits or narrower, and integer sums and products modulo 2^32 depend only on their
inputs modulo 2^32, so (plan, kernel_call): a cast to int64 becomes one to int32 (the same
values modulo 2^32: a uint32 is reinterpreted, a narrower integer extended), a kernel pair
(input, int64) is (input, int32) where that pair has code (the sums of int32), and otherwise
its int64 output is held as two int32 words an element, of which the low one is kept (the int64
result truncated, as the narrow outputs of _dtypes.py are). Each result has jnp's bits.
"""
from . import _dtypes

# Without x64: each 64-bit dtype -> the one JAX gives in its place (jax.dtypes.canonicalize_dtype).
_NARROWER = {"int64": "int32", "uint64": "uint32", "float64": "float32", "complex128": "complex64"}
_SIGNED = ("int8", "int16", "int32", "int64")
_UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
# jnp's cumulative functions: (the operator, whether integers narrower than the default widen).
CUMULATIVE = {"cumsum": ("sum", False), "cumprod": ("prod", False), "cumulative_sum": ("sum", True),
              "cumulative_prod": ("prod", False)}


def canonical(dtype, x64):
    """The dtype JAX holds for `dtype` (a name): itself under x64, else 64-bit types narrowed."""
    return dtype if x64 else _NARROWER.get(dtype, dtype)


def _width(dtype):
    """The bits of an integer dtype's name: 16 for "uint16"."""
    return int(dtype.removeprefix("u").removeprefix("int"))


def cumulative_result(function, in_dtype, dtype, x64):
    """The result's dtype of jnp.<function> (a key of CUMULATIVE) of an `in_dtype` array, dtype=
    `dtype` (a name, or None); None for a dtype this table does not know (jnp says what it does)."""
    if dtype is not None:
        return canonical(dtype, x64) if dtype in _dtypes.DTYPES else None
    if in_dtype not in _dtypes.DTYPES:
        return None
    widens = CUMULATIVE[function][1]
    default_int, default_uint = canonical("int64", x64), canonical("uint64", x64)
    if in_dtype == "bool":
        return default_int
    if widens and in_dtype in _SIGNED and _width(in_dtype) < _width(default_int):
        return default_int
    if widens and in_dtype in _UNSIGNED and _width(in_dtype) < _width(default_uint):
        return default_uint
    return in_dtype


def plan(op, in_dtype, dtype, reverse, x64):
    """_dtypes.scan_plan's (the dtype the input is cast to, the kernel's output, the result's) as
    JAX holds them: the cast and the result canonical (the module's manual). TypeError where the
    extension has no code, or where its result would not be JAX's (a complex cumlogsumexp)."""
    if op == "logsumexp" and (in_dtype in _dtypes.COMPLEXES or dtype in _dtypes.COMPLEXES):
        raise TypeError("jax.lax.cumlogsumexp of complex gives the principal value: JAX's own")
    scanned_as, kernel_out, result = _dtypes.scan_plan(op, in_dtype, dtype, reverse)
    return canonical(scanned_as, x64), kernel_out, canonical(result, x64)


def kernel_call(op, in_dtype, out_dtype, reverse, x64):
    """How the kernel scans an array of `in_dtype` (as JAX holds it) into `out_dtype` (a pair of a
    plan): (the kernel's input dtype, its output dtype, lanes per element (a complex element is
    two floats), the output's dtype as JAX holds it, words of it per element: 2 where the kernel's
    int64 is held as int32 pairs, the low word first)."""
    in_kernel, lanes = _dtypes.kernel_view(op, in_dtype)
    out_kernel = _dtypes.kernel_view(op, out_dtype)[0]
    if x64 or out_kernel != "int64":
        return in_kernel, out_kernel, lanes, out_dtype, 1
    reversible = not reverse or (in_kernel, "int32") in _dtypes.REVERSIBLE_KERNEL_SUMS
    if "int32" in _dtypes.outputs_of(op).get(in_kernel, ()) and reversible:
        return in_kernel, "int32", lanes, "int32", 1
    return in_kernel, "int64", lanes, "int32", 2
