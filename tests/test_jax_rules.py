"""JAX's rules for its scans (python/scan_zoo/jax.py, _jax_rules.py) and the package's JAX path
under jax.jit, jax.vmap and jax.grad (python/scan_zoo/_jax.py).

Without jax or a GPU (CI): the rule table's plans are pairs the extension has code for, with no
64-bit dtype where JAX has none, and the 32-bit stand-ins give the 64-bit plans' bits (numpy).
Where jax is installed, GPU or not: the table against jnp's and jax.lax's own result dtypes, with
and without jax_enable_x64. With a GPU, jax and a build with JAX's handlers: every function of
scan_zoo.jax and of scan_zoo on JAX arrays, every dtype, against jnp and jax.lax on the same
random data (integers bit for bit, floats within a bound of a float64 reference), eager and under
jax.jit, jax.vmap over a leading and a middle batch axis and nested, and the gradients (vmap of
grad, grad of vmap) against JAX's own, each with and without x64.
"""
import functools
import importlib.util
import os
import warnings

import numpy as np
import pytest

scan_zoo = pytest.importorskip("scan_zoo", reason="the package is not installed in this interpreter "
                                                   "(make test installs it: make python-package)")
from scan_zoo import _dtypes, _jax_rules  # noqa: E402

WIDE = ("int64", "uint64", "float64", "complex128")
OPERATORS = ("sum", "prod", "max", "min", "logsumexp")
# Kernel pairs, without the views (_dtypes.py): what the extension instantiates.
KERNELS = {"sum": _dtypes.KERNEL_SUMS, "prod": _dtypes.KERNEL_PRODUCTS}
ITEM_BYTES = {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2, "int32": 4,
              "uint32": 4, "float32": 4, "int64": 8, "uint64": 8, "float64": 8, "complex64": 8, "complex128": 16}


def _kernel_outputs(op, dtype):
    return KERNELS[op].get(dtype, ()) if op in KERNELS else _dtypes.outputs_of(op).get(dtype, ())


def _planned():
    """(op, input, dtype=, reverse, x64, the plan, the kernel call) of every plan JAX can ask for:
    without x64, of inputs and dtypes JAX can hold."""
    for x64 in (False, True):
        dtypes = [d for d in _dtypes.DTYPES if x64 or d not in WIDE]
        for op in OPERATORS:
            for in_dtype in dtypes:
                for asked in [None] + dtypes:
                    for reverse in (False, True):
                        try:
                            plan = _jax_rules.plan(op, in_dtype, asked, reverse, x64)
                        except TypeError:
                            continue
                        yield op, in_dtype, asked, reverse, x64, plan, _jax_rules.kernel_call(op, plan[0], plan[1],
                                                                                               reverse, x64)


# ---- no jax needed ----

def test_every_kernel_call_has_code_and_holds_no_64_bit_type_without_x64():
    seen = 0
    for op, in_dtype, asked, reverse, x64, (scanned_as, kernel_out, result), call in _planned():
        in_kernel, out_kernel, lanes, held, words = call
        what = (op, in_dtype, asked, reverse, x64)
        assert out_kernel in _kernel_outputs(op, in_kernel), what
        assert not reverse or (in_kernel, out_kernel) in _dtypes.REVERSIBLE_KERNEL_SUMS, what
        assert ITEM_BYTES[scanned_as] == ITEM_BYTES[in_kernel] * lanes, what
        assert ITEM_BYTES[held] * words == ITEM_BYTES[out_kernel] * lanes, what
        if not x64:
            assert WIDE.count(scanned_as) + WIDE.count(result) + WIDE.count(held) == 0, what
        seen += 1
    assert seen > 500


def _wrapped(values, dtype):
    """Integers as `dtype` holds them, modulo its width (numpy's astype wraps)."""
    return np.asarray(values).astype(np.int64).astype(dtype)


@pytest.mark.parametrize("x64", [False, True])
def test_the_32_bit_stand_ins_give_the_bits_of_the_int64_plans(x64, seed):
    """Every integer plan, run as _jax.py runs it (the cast, the kernel's arithmetic in its output
    dtype, int32 pairs' low words, the cast after), in numpy: the bits of the sums and products
    in the result's dtype, wrapping, as jnp's."""
    rng = np.random.default_rng(seed)
    checked = 0
    for op, in_dtype, asked, reverse, plan_x64, (scanned_as, kernel_out, result), call in _planned():
        if plan_x64 != x64 or op not in ("sum", "prod") or in_dtype not in _dtypes.INTEGERS or \
                result not in _dtypes.INTEGERS or result == "bool":
            continue
        in_kernel, out_kernel, _, held, words = call
        info = np.iinfo(in_dtype) if in_dtype != "bool" else None
        x = rng.random(300) < 0.5 if info is None else rng.integers(info.min, info.max, 300, in_dtype, endpoint=True)
        accumulate = np.cumsum if op == "sum" else np.cumprod
        wanted = accumulate(x.astype(result), dtype=result)  # JAX's rule: converted, then scanned in result
        if reverse:
            wanted = accumulate(x.astype(result)[::-1], dtype=result)[::-1]
        kernel_in = x.astype(scanned_as).view(in_kernel) if scanned_as != "bool" else x
        with np.errstate(over="ignore"):
            line = kernel_in.astype(out_kernel)[::-1] if reverse else kernel_in.astype(out_kernel)
            y = accumulate(line, dtype=out_kernel)
        y = y[::-1] if reverse else y
        if words == 2:
            y = np.ascontiguousarray(y).view(held).reshape(-1, 2)[:, 0]  # the low words (little-endian)
        assert np.array_equal(_wrapped(y.astype(held), result), wanted), (op, in_dtype, asked, reverse)
        checked += 1
    assert checked > 50


@pytest.mark.parametrize("function, in_dtype, asked, x64, result", [
    ("cumsum", "int8", None, True, "int8"), ("cumsum", "int32", None, True, "int32"),
    ("cumsum", "bool", None, False, "int32"), ("cumsum", "bool", None, True, "int64"),
    ("cumsum", "uint64", None, True, "uint64"), ("cumprod", "uint16", None, False, "uint16"),
    ("cumsum", "int32", "int64", False, "int32"), ("cumsum", "float32", "float64", False, "float32"),
    ("cumsum", "float32", "complex128", False, "complex64"), ("cumsum", "int8", "bool", True, "bool"),
    ("cumulative_sum", "int8", None, False, "int32"), ("cumulative_sum", "uint8", None, False, "uint32"),
    ("cumulative_sum", "uint16", None, True, "uint64"), ("cumulative_sum", "int32", None, False, "int32"),
    ("cumulative_sum", "float16", None, True, "float16"), ("cumulative_prod", "int8", None, True, "int8"),
    ("cumulative_prod", "bool", None, False, "int32"), ("cumsum", "int4", None, True, None),
    ("cumsum", "int8", "float8_e4m3fn", True, None),
])
def test_jnps_result_dtypes_as_the_table_has_them(function, in_dtype, asked, x64, result):
    """Read in JAX 0.10's source (reductions.py) and seen on its CPU: int8 stays int8 and int32
    int32 under x64; bool becomes the default integer; cumulative_sum widens what is narrower than
    the default integer; an explicit 64-bit dtype is narrowed without x64; None: jnp's own."""
    assert _jax_rules.cumulative_result(function, in_dtype, asked, x64) == result


# ---- jax installed, GPU or not ----

@pytest.fixture(scope="module")
def jax():
    if importlib.util.find_spec("jax") is None:
        pytest.skip("JAX is not installed here")
    # XLA takes 75% of the GPU's memory when it starts, which would starve the other test workers
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    import jax
    return jax


@pytest.mark.parametrize("x64", [False, True])
def test_the_table_is_jnps(jax, x64):
    """cumulative_result against the dtypes jnp's own functions give (jax.eval_shape: no compile),
    every input dtype and every dtype= JAX holds, and lax's: its input's, bool refused."""
    jnp = jax.numpy
    with jax.enable_x64(x64), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # jnp warns of an explicit 64-bit dtype without x64
        dtypes = [d for d in _dtypes.DTYPES if x64 or d not in WIDE]
        for function in _jax_rules.CUMULATIVE:
            for in_dtype in dtypes:
                operand = jax.ShapeDtypeStruct((3,), jnp.dtype(in_dtype))
                for asked in [None] + list(_dtypes.DTYPES):
                    jnps = jax.eval_shape(functools.partial(getattr(jnp, function), axis=0, dtype=asked), operand)
                    assert _jax_rules.cumulative_result(function, in_dtype, asked, x64) == jnps.dtype.name, \
                        (function, in_dtype, asked)
        for function in ("cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"):
            for in_dtype in dtypes:
                operand = jax.ShapeDtypeStruct((3,), jnp.dtype(in_dtype))
                if in_dtype == "bool":
                    with pytest.raises(TypeError, match="does not accept dtype bool"):
                        jax.eval_shape(getattr(jax.lax, function), operand)
                elif function != "cumlogsumexp" or in_dtype in _dtypes.FLOATS + _dtypes.COMPLEXES:
                    assert jax.eval_shape(getattr(jax.lax, function), operand).dtype == operand.dtype


# ---- a build with JAX's handlers: on any device, then on a GPU ----

@pytest.fixture(scope="module")
def sz(jax):
    """scan_zoo.jax, where the build has JAX's handlers."""
    from scan_zoo._extension_loader import extension
    if not hasattr(extension, "jax_handlers"):
        pytest.skip("this scan_zoo was built without JAX's handlers (its build's Python had no jax)")
    import scan_zoo.jax as module
    return module


def test_a_computation_for_the_cpu_says_scan_zoo_runs_on_cuda(jax, sz):
    on_cpu = jax.device_put(jax.numpy.arange(5.0), jax.devices("cpu")[0])
    with pytest.raises(NotImplementedError, match="runs on CUDA devices, and this computation is compiled for cpu"):
        sz.cumsum(on_cpu)


@pytest.fixture(scope="module")
def gpu(jax, sz):
    try:
        jax.devices("gpu")
    except RuntimeError as error:
        pytest.skip(f"no GPU visible to JAX: {error}")
    return jax.devices("gpu")[0]


def _random(rng, dtype, shape, small=False, factors=False):
    """Random values of `dtype`, never all alike: integers over their whole range (small: within 64
    of 0), floats and complex parts k/32 for k in [-64, 64] (factors: 1 + k/32 for k in [-8, 8],
    products that neither overflow nor underflow; a complex factor's imaginary part k/32, so that
    its modulus stays near 1: with 1 + k/32 there too a long product overflowed complex64)."""
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in _dtypes.INTEGERS:
        info = np.iinfo(dtype)
        low, high = (max(info.min, -64), 64) if small else (info.min, info.max)
        return rng.integers(low, high, size=shape, dtype=dtype, endpoint=True)
    k = rng.integers(-8, 9, size=(2,) + shape) if factors else rng.integers(-64, 65, size=(2,) + shape)
    parts = 1 + k / 32 if factors else k / 32
    if dtype in _dtypes.COMPLEXES:
        return (parts[0] + 1j * (k[1] / 32 if factors else parts[1])).astype(dtype)
    import jax.numpy as jnp  # bfloat16's numpy dtype is ml_dtypes', which jax brings
    return parts[0].astype(jnp.dtype(dtype))


def _jaxs_own(op, dtype):
    """Whether scan_zoo.jax hands this operator and dtype to JAX's own function (jax.py's manual)."""
    if op in ("sum", "prod"):
        return dtype not in _dtypes.DTYPES
    if op == "logsumexp" and dtype in _dtypes.COMPLEXES:
        return True  # JAX's principal value, not the kernels' branch (_jax_rules.py)
    return dtype not in _dtypes.outputs_of(op)


def _float_reference(op, x, axis, reverse=False, exclusive=False):
    """The scan of x (already of the result's dtype) in float64 or complex128, and the scale of
    the error of a result that rounds once from a float32 or wider accumulation."""
    wide = x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)
    if reverse:
        wide = np.flip(wide, axis)
    position = np.cumsum(np.ones(wide.shape), axis)
    if op == "sum":
        reference, scale = np.cumsum(wide, axis) - (wide if exclusive else 0), np.cumsum(np.abs(wide), axis)
    elif op == "prod":
        reference = np.cumprod(wide, axis)
        scale = position * np.abs(reference)
    else:
        reference = np.logaddexp.accumulate(wide, axis)
        scale = np.abs(reference) + np.log(position) + 1
    if reverse:
        reference, scale = np.flip(reference, axis), np.flip(scale, axis)
    return reference, scale


def _check(got, want, what, op, converted, axis, reverse=False, exclusive=False):
    """got against JAX's want: the dtype and the shape; then integers, cummax's and cummin's floats
    and whatever JAX computed itself bit for bit, other floats within 4 epsilons of their dtype
    (times the scale of the error) of a float64 scan of `converted` (the input as JAX converts it)."""
    import jax.numpy as jnp
    assert (got.dtype, got.shape) == (want.dtype, want.shape), what
    got = np.asarray(got)
    if got.dtype.kind in "biu" or op in ("max", "min") or _jaxs_own(op, got.dtype.name):
        assert np.array_equal(got, np.asarray(want), equal_nan=True), what
        return
    reference, scale = _float_reference(op, np.asarray(converted), axis, reverse, exclusive)
    error = np.abs(got.astype(reference.dtype) - reference)
    bound = 4 * float(jnp.finfo(got.real.dtype).eps) * scale + np.finfo(np.float32).tiny
    assert np.all(error <= bound), (what, float(np.max(error / bound)))


def _scan_zoo_jax_calls(jax, sz):
    """(what, scan_zoo.jax's function, JAX's, operator, axis (None: flattened), reverse,
    include_initial) of jnp's four along each axis and lax's five each way."""
    jnp = jax.numpy
    calls = []
    for name, op in (("cumsum", "sum"), ("cumprod", "prod")):
        for axis in (None, 0, 1, -1):
            calls.append((f"{name}(axis={axis})", functools.partial(getattr(sz, name), axis=axis),
                          functools.partial(getattr(jnp, name), axis=axis), op, axis, False, False))
    for name, op in (("cumulative_sum", "sum"), ("cumulative_prod", "prod")):
        for axis, initial in ((0, False), (1, True), (2, False)):
            calls.append((f"{name}(axis={axis}, include_initial={initial})",
                          functools.partial(getattr(sz, name), axis=axis, include_initial=initial),
                          functools.partial(getattr(jnp, name), axis=axis, include_initial=initial), op, axis, False,
                          initial))
    for name, op in (("cumsum", "sum"), ("cumprod", "prod"), ("cummax", "max"), ("cummin", "min"),
                     ("cumlogsumexp", "logsumexp")):
        for axis in (0, 1, 2):
            for reverse in (False, True):
                calls.append((f"lax.{name}(axis={axis}, reverse={reverse})",
                              functools.partial(getattr(sz.lax, name), axis=axis, reverse=reverse),
                              functools.partial(getattr(jax.lax, name), axis=axis, reverse=reverse), op, axis, reverse,
                              False))
    return calls


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("dtype", _dtypes.DTYPES)
def test_every_function_of_scan_zoo_jax_against_jax(jax, sz, gpu, seed, dtype, x64):
    """jnp's four along each axis (and flattened), with include_initial, and jax.lax's five each
    way, eager and all in one jax.jit: JAX's dtype, shape and values, or JAX's error."""
    if dtype in WIDE and not x64:
        pytest.skip(f"JAX has no {dtype} without jax_enable_x64")
    rng = np.random.default_rng(seed)
    jnp = jax.numpy
    with jax.enable_x64(x64):
        inputs = {"sum": jnp.asarray(_random(rng, dtype, (3, 37, 5))),
                  "prod": jnp.asarray(_random(rng, dtype, (3, 37, 5), factors=True))}
        inputs["max"] = inputs["min"] = inputs["logsumexp"] = inputs["sum"]
        taken = []
        for what, ours, theirs, op, axis, reverse, initial in _scan_zoo_jax_calls(jax, sz):
            try:
                want = theirs(inputs[op])
            except Exception as error:  # JAX refuses it (lax and bool, cumlogsumexp of integers): so must we
                with pytest.raises(type(error)):
                    ours(inputs[op])
                continue
            taken.append((what, ours, want, op, axis, reverse, initial))
        jitted = jax.jit(lambda data: [ours(data[op]) for _, ours, _, op, _, _, _ in taken])(inputs)
        for (what, ours, want, op, axis, reverse, initial), in_jit in zip(taken, jitted):
            converted = np.asarray(jax.lax.convert_element_type(inputs[op], want.dtype))
            if axis is None:
                converted, axis = converted.reshape(-1), 0
            if initial:  # the identity first
                shape = list(converted.shape)
                shape[axis] = 1
                converted = np.concatenate([np.full(shape, 1 if op == "prod" else 0, converted.dtype), converted], axis)
            for how, got in (("eager", ours(inputs[op])), ("jit", in_jit)):
                _check(got, want, f"{dtype} {what} {how} x64={x64}", op, converted, axis % 3, reverse)


@pytest.mark.parametrize("x64", [False, True])
def test_dtype_asked_of_scan_zoo_jax_as_jnp(jax, sz, gpu, seed, x64):
    """cumsum and cumprod of every input dtype into every dtype= JAX holds (converted first, then
    scanned in it, dtype=bool the scan of x != 0), of values within 64 of 0, so that conversions
    are exact, all in one jax.jit per input; products into floats over 2 steps (64^3 is past
    float16)."""
    rng = np.random.default_rng(seed)
    jnp = jax.numpy
    with jax.enable_x64(x64), warnings.catch_warnings():
        dtypes = [d for d in _dtypes.DTYPES if x64 or d not in WIDE]
        asks = [(function, op, asked) for function, op in (("cumsum", "sum"), ("cumprod", "prod")) for asked in dtypes]
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)  # dtype= real of a complex x: JAX's too
        for in_dtype in dtypes:
            x = jnp.asarray(_random(rng, in_dtype, (7, 33), small=True))
            got = jax.jit(lambda v: [getattr(sz, function)(v, axis=1, dtype=asked) for function, _, asked in asks])(x)
            for (function, op, asked), ours in zip(asks, got):
                data = x[:, :2] if op == "prod" and asked in _dtypes.FLOATS + _dtypes.COMPLEXES else x
                want = getattr(jnp, function)(data, axis=1, dtype=asked)
                converted = np.asarray(data != 0 if asked == "bool" else jax.lax.convert_element_type(data, asked))
                _check(ours[:, :data.shape[1]], want, f"{function}({in_dtype}, dtype={asked}) x64={x64}", op,
                       converted.astype(want.dtype), 1)


def _package_calls(jax):
    """(name, scan_zoo's function of a JAX array and a dim, JAX's equivalent, operator, reverse,
    exclusive): torch's dtype rules (_torch_dtype), JAX's values."""
    jnp = jax.numpy
    return [("cumsum", lambda v, d: scan_zoo.cumsum(v, d), lambda v, d: jnp.cumsum(v, d, dtype=_torch_dtype(jax, v)),
             "sum", False, False),
            ("cumsum(reverse, exclusive)", lambda v, d: scan_zoo.cumsum(v, d, reverse=True, exclusive=True),
             lambda v, d: (jnp.flip(jnp.cumsum(jnp.flip(v, d), d, dtype=_torch_dtype(jax, v)), d) -
                           v.astype(_torch_dtype(jax, v))), "sum", True, True),
            ("cumprod", lambda v, d: scan_zoo.cumprod(v, d), lambda v, d: jnp.cumprod(v, d, dtype=_torch_dtype(jax, v)),
             "prod", False, False),
            ("cummax", scan_zoo.cummax, functools.partial(_lax_extreme, jax.lax.cummax), "max", False, False),
            ("cummin", scan_zoo.cummin, functools.partial(_lax_extreme, jax.lax.cummin), "min", False, False)]


def _lax_extreme(scan, v, dim):
    """jax.lax.cummax or cummin along dim; of bool (which lax refuses) as of uint8."""
    if v.dtype == bool:
        return scan(v.astype("uint8"), dim % v.ndim).astype(bool)
    return scan(v, dim % v.ndim)


def _torch_dtype(jax, v):
    """torch.cumsum's and torch.cumprod's output dtype for v's (_dtypes.default_output), as JAX holds it."""
    return jax.dtypes.canonicalize_dtype(_dtypes.default_output(np.dtype(v.dtype).name))


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64",
                                   "float32", "bfloat16", "complex64"])
def test_the_packages_functions_on_every_dtype_and_under_vmap(jax, gpu, seed, dtype, x64):
    """scan_zoo.cumsum, cumprod, cummax and cummin of JAX arrays (torch's dtype rules), every dtype
    with code, eager, in jax.jit, and vmapped over a leading axis, a middle one and both (nested),
    against jnp's or lax's scan along the same axis of the whole array."""
    if dtype in WIDE and not x64:
        pytest.skip(f"JAX has no {dtype} without jax_enable_x64")
    rng = np.random.default_rng(seed)
    jnp = jax.numpy
    with jax.enable_x64(x64):
        x = jnp.asarray(_random(rng, dtype, (4, 29, 6), factors=True))
        for name, ours, theirs, op, reverse, exclusive in _package_calls(jax):
            if (op == "prod" and dtype in _dtypes.COMPLEXES or
                    op in ("max", "min") and dtype not in _dtypes.EXTREME_TYPES):
                continue  # no code: a TypeError (tests/test_python.py)
            what = f"scan_zoo.{name} of {dtype} x64={x64}"
            for axis, got in (
                    (1, ours(x, 1)), (1, jax.jit(ours, static_argnums=1)(x, 1)),
                    (0, jax.vmap(lambda v: ours(v, 0), in_axes=1, out_axes=1)(x)),  # the batch axis in the middle
                    (2, jax.vmap(lambda v: ours(v, -1))(x)),  # leading
                    (1, jax.jit(jax.vmap(jax.vmap(lambda v: ours(v, 0), in_axes=1, out_axes=1)))(x))):  # both
                want = theirs(x, axis)
                converted = np.asarray(x.astype(want.dtype))
                _check(got, want, f"{what} along {axis}", op, converted, axis, reverse, exclusive)


@pytest.mark.parametrize("x64", [False, True])
def test_vmap_of_scan_zoo_jax_over_any_axis(jax, sz, gpu, seed, x64):
    """scan_zoo.jax's functions vmapped over a leading and a middle axis, and nested, against jnp's
    and lax's under the same vmaps (int8 wrapping, uint32 through int32 without x64, complex as
    float pairs, a reverse through the kernel and one through flips)."""
    rng = np.random.default_rng(seed)
    jnp = jax.numpy
    with jax.enable_x64(x64):
        for dtype in ("int8", "uint32", "int32", "float32", "float16", "complex64"):
            x = jnp.asarray(_random(rng, dtype, (5, 31, 4), factors=True))
            calls = [("cumsum", lambda v: sz.cumsum(v, 0), lambda v: jnp.cumsum(v, 0), "sum", False),
                     ("cumprod", lambda v: sz.cumprod(v, 0), lambda v: jnp.cumprod(v, 0), "prod", False),
                     ("lax.cumsum reverse", lambda v: sz.lax.cumsum(v, 0, True), lambda v: jax.lax.cumsum(v, 0, True),
                      "sum", True),
                     ("lax.cummax reverse", lambda v: sz.lax.cummax(v, 0, True), lambda v: jax.lax.cummax(v, 0, True),
                      "max", True)]
            for name, ours, theirs, op, reverse in calls:
                if _jaxs_own(op, dtype):
                    continue  # JAX's own function under JAX's own vmap
                for in_axes in (0, 1):  # a leading batch axis, and a middle one
                    want = jax.vmap(theirs, in_axes=in_axes)(x)
                    converted = np.asarray(jnp.moveaxis(x, in_axes, 0).astype(want.dtype))
                    _check(jax.vmap(ours, in_axes=in_axes)(x), want, f"{name} of {dtype}, vmap({in_axes}) x64={x64}",
                           op, converted, 1, reverse)
                nested = jax.jit(jax.vmap(jax.vmap(ours, in_axes=1), in_axes=2))(x)
                want = jax.vmap(jax.vmap(theirs, in_axes=1), in_axes=2)(x)
                converted = np.asarray(jnp.moveaxis(x, (2, 1), (0, 1)).astype(want.dtype))
                _check(nested, want, f"{name} of {dtype}, nested vmap x64={x64}", op, converted, 2, reverse)


def _segment_sums(values, cuts):
    return np.concatenate([np.cumsum(values[begin:end], dtype=np.int64) for begin, end in zip(cuts[:-1], cuts[1:])])


@pytest.mark.parametrize("x64", [False, True])
def test_linear_recurrence_and_segments_under_vmap(jax, gpu, seed, x64):
    """linear_recurrence vmapped with a and b batched alike and with b shared (broadcast), and
    segmented_cumsum of a batch of rows: offsets batched or shared, rows on the leading axis or
    the trailing one; against the unbatched calls, and numpy's sums."""
    rng = np.random.default_rng(seed)
    jnp = jax.numpy
    with jax.enable_x64(x64):
        a = jnp.asarray((0.5 + 0.5 * rng.random((3, 40, 4))).astype(np.float32))
        b = jnp.asarray((rng.integers(-64, 65, size=(3, 40, 4)) / 32).astype(np.float32))
        step = functools.partial(scan_zoo.linear_recurrence, dim=1)
        each = np.stack([np.asarray(step(a[:, :, j], b[:, :, j])) for j in range(4)], 2)
        # the same recurrences, lines of another shape: float32 rounding apart, absolute where h
        # passes near 0 (h is O(1); rtol alone failed there on the H200 with b shared)
        batched = jax.jit(jax.vmap(step, in_axes=(2, 2), out_axes=2))(a, b)
        assert np.allclose(np.asarray(batched), each, rtol=1e-5, atol=1e-5)
        each = np.stack([np.asarray(step(a[:, :, j], b[:, :, 0])) for j in range(4)], 2)
        shared = jax.vmap(step, in_axes=(2, None), out_axes=2)(a, b[:, :, 0])
        assert np.allclose(np.asarray(shared), each, rtol=1e-5, atol=1e-5)

        values = rng.integers(-1000, 1001, size=(6, 500)).astype(np.int32)
        cuts = np.stack([np.concatenate([[0], np.sort(rng.integers(0, 501, size=9)), [500]]) for _ in range(6)])
        offsets = jnp.asarray(cuts.astype(np.int32))
        inclusive = jax.jit(jax.vmap(scan_zoo.segmented_cumsum))(jnp.asarray(values), offsets)
        wanted = np.stack([_segment_sums(v, c) for v, c in zip(values, cuts)]).astype(inclusive.dtype)
        assert np.array_equal(np.asarray(inclusive), wanted)
        exclusive = jax.vmap(lambda v, o: scan_zoo.segmented_cumsum(v, o, exclusive=True))(jnp.asarray(values), offsets)
        assert np.array_equal(np.asarray(exclusive), wanted - values)
        shared = jax.vmap(scan_zoo.segmented_cumsum, in_axes=(1, None))(jnp.asarray(values.T), offsets[0])
        assert np.array_equal(np.asarray(shared), np.stack([_segment_sums(v, cuts[0]) for v in values]).astype(
            shared.dtype))


def _ramp_loss(y):
    """A loss of y whose gradient is no constant: y times a ramp, summed."""
    import jax.numpy as jnp
    return jnp.sum(y.astype(jnp.float32) * jnp.linspace(-1.0, 2.0, y.size).reshape(y.shape))


def _weighted(f):
    return lambda v: _ramp_loss(f(v))


@pytest.mark.parametrize("x64", [False, True])
def test_gradients_under_vmap_and_jit_against_jaxs(jax, sz, gpu, seed, x64):
    """vmap of grad (over a leading and a trailing axis) and grad of vmap, jitted, of scan_zoo's
    cumsum (inclusive, exclusive and reverse, and bfloat16 summed in float32), cumprod and
    logcumsumexp and of scan_zoo.jax's cumsum, cumprod, cummax and cumlogsumexp, against the same
    transformations of jnp's and lax's functions; linear_recurrence's against a jax.lax.scan loop."""
    rng = np.random.default_rng(seed)
    jnp = jax.numpy
    with jax.enable_x64(x64):
        x = jnp.asarray(_random(rng, "float32", (4, 23, 3), factors=True))
        pairs = [("scan_zoo.cumsum", lambda v: scan_zoo.cumsum(v, 0), lambda v: jnp.cumsum(v, 0)),
                 ("scan_zoo.cumsum(exclusive, reverse)", lambda v: scan_zoo.cumsum(v, 0, exclusive=True, reverse=True),
                  lambda v: jnp.flip(jnp.cumsum(jnp.flip(v, 0), 0), 0) - v),
                 ("scan_zoo.cumsum of bfloat16",
                  lambda v: scan_zoo.cumsum(v.astype(jnp.bfloat16), 0, dtype=jnp.float32),
                  lambda v: jnp.cumsum(v.astype(jnp.bfloat16).astype(jnp.float32), 0)),
                 ("scan_zoo.cumprod", lambda v: scan_zoo.cumprod(v, 0), lambda v: jnp.cumprod(v, 0)),
                 ("scan_zoo.logcumsumexp", lambda v: scan_zoo.logcumsumexp(v, 0),
                  lambda v: jax.lax.cumlogsumexp(v, 0)),
                 ("sz.cumsum", lambda v: sz.cumsum(v, 0), lambda v: jnp.cumsum(v, 0)),
                 ("sz.cumprod", lambda v: sz.cumprod(v, 0), lambda v: jnp.cumprod(v, 0)),
                 ("sz.lax.cummax(reverse)", lambda v: sz.lax.cummax(v, 0, True), lambda v: jax.lax.cummax(v, 0, True)),
                 ("sz.cumlogsumexp", lambda v: sz.cumlogsumexp(v, 0), lambda v: jax.lax.cumlogsumexp(v, 0))]
        for name, ours, theirs in pairs:
            for in_axes in (0, 2):
                got = jax.jit(jax.vmap(jax.grad(_weighted(ours)), in_axes=in_axes, out_axes=in_axes))(x)
                want = jax.vmap(jax.grad(_weighted(theirs)), in_axes=in_axes, out_axes=in_axes)(x)
                assert np.allclose(np.asarray(got), np.asarray(want), rtol=1e-2, atol=1e-4), (name, in_axes)
            got = jax.jit(jax.grad(_weighted(jax.vmap(ours, in_axes=1, out_axes=1))))(x)
            want = jax.grad(_weighted(jax.vmap(theirs, in_axes=1, out_axes=1)))(x)
            assert np.allclose(np.asarray(got), np.asarray(want), rtol=1e-2, atol=1e-4), name

        a = jnp.asarray((0.5 + 0.5 * rng.random((4, 19, 3))).astype(np.float32))

        def loop(p, q):  # h[t] = p[t] h[t - 1] + q[t] along axis 0, by JAX
            start = jnp.zeros(p.shape[1:], p.dtype)
            return jax.lax.scan(lambda h, step: (step[0] * h + step[1],) * 2, start, (p, q))[1]

        ours = jax.jit(jax.vmap(jax.grad(lambda p, q: _ramp_loss(scan_zoo.linear_recurrence(p, q, 0)), (0, 1))))
        theirs = jax.vmap(jax.grad(lambda p, q: _ramp_loss(loop(p, q)), (0, 1)))
        for got, want in zip(ours(a, x[:, :19]), theirs(a, x[:, :19])):
            assert np.allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-5)
