"""scan_zoo.cupy (python/scan_zoo/cupy.py): numpy.cumsum, cumprod, cumulative_sum and
cumulative_prod for CuPy arrays, held to NumPy's rules and to NumPy's and CuPy's own tests.

Without a GPU (CI): NumPy 2's dtype rules (python/scan_zoo/_numpy_rules.py) against numpy itself
for every dtype and the four functions: the default accumulation, dtype= (each element converted
first, then accumulated), the promotion an out= brings and the cast into it; every accumulation
NumPy makes has a way through scan_zoo's plans (_dtypes.scan_plan), and one NumPy does not know
is refused with TypeError; the functions' signatures are NumPy's (read from the source,
since importing the module needs CuPy). Needs numpy (skipped without it).

With a GPU and CuPy: NumPy's own test cases for these functions (numpy/lib/tests/
test_function_base.py, numpy/_core/tests/test_regression.py, test_ufunc.py, test_umath.py) and
CuPy's (tests/cupy_tests/math_tests/test_sumprod.py, TestCumsum and TestCumprod), ported; then
every dtype along every axis of a 3-D array (None, negative) and one long line, dtype= (int8
wrapping, bool, a float from integers), out= of the result's dtype and of another, strided or
overlapping the input, strided inputs, empty and 0-d arrays, include_initial, another stream and
the errors. Against numpy on the same data: random values (the session's seed, conftest.py's, or
fixed ones), outputs poisoned with random bytes, every element checked, integers exactly, floats
within tolerances of the float64 (complex128) result rounded to the result's dtype.
"""
import ast
import importlib
import inspect
import itertools
import warnings

import pytest

from conftest import ROOT

scan_zoo = pytest.importorskip("scan_zoo", reason="the package is not installed in this interpreter "
                                                   "(make test installs it: make python-package)")
from scan_zoo import _dtypes, _numpy_rules  # noqa: E402

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
          "float64", "complex64", "complex128")
FUNCTIONS = ("cumsum", "cumprod", "cumulative_sum", "cumulative_prod")
OPERATORS = {"cumsum": "sum", "cumulative_sum": "sum", "cumprod": "prod", "cumulative_prod": "prod"}
# A complex input accumulated in a real dtype is its real part accumulated (cupy.py takes .real first).
REAL_PARTS = {"complex64": "float32", "complex128": "float64"}


@pytest.fixture(scope="module")
def np():
    return pytest.importorskip("numpy")


def numpy_function(np, function):
    """numpy's own function; cumulative_sum and cumulative_prod are NumPy 2.1's (skipped before)."""
    if not hasattr(np, function):
        pytest.skip(f"numpy {np.__version__} has no {function} (NumPy 2.1 added it)")
    return getattr(np, function)


def random_host(np, rng, shape, name, factors=False):
    """Random values of dtype `name`: integers of every bit random (sums and products wrap; odd with
    factors=True, so that no product wraps to 0), bool half true; floats and complex parts
    multiples of 1/8 in [-8, 8] (every partial sum exact in float32 and float64, and in float16
    rounded once), or with factors=True signs with a rare 2 or 1/2, complex ones turned a quarter
    at random (1, i, -1 or -i times that: every product exact, its parts trading places)."""
    if name == "bool":
        return np.asarray(rng.integers(0, 2, shape)).astype(bool)
    if name in _dtypes.INTEGERS:
        bits = rng.integers(0, 2**64, shape, dtype=np.uint64)
        return np.asarray(bits | np.uint64(factors)).astype(name)  # truncated to the width: every bit random
    if factors:
        step = rng.integers(0, 1000, shape)
        size = (rng.integers(0, 2, shape) * 2 - 1.0) * np.where(step == 0, 2.0, np.where(step == 1, 0.5, 1.0))
        turn = (rng.integers(0, 2, shape) == 1) & (name in _dtypes.COMPLEXES)
        real, imag = np.where(turn, 0.0, size), np.where(turn, size, 0.0)
    else:
        real, imag = rng.integers(-64, 65, shape) / 8, rng.integers(-64, 65, shape) / 8
    return np.asarray(real + 1j * imag if name in _dtypes.COMPLEXES else real).astype(name)


def quietly(call):
    """call() without NumPy's warnings: a complex to real conversion (ComplexWarning), a float out
    of an integer's range (RuntimeWarning), which these checks make on purpose."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


def converts_defined(np, values, dtype):
    """Where converting values to dtype is defined: everywhere but a float (or complex) outside an
    integer dtype's range, or not finite, which C leaves undefined (numpy's casts of them differ
    between its contiguous and strided loops)."""
    if np.dtype(dtype).kind not in "iu" or values.dtype.kind not in "fc":
        return np.ones(values.shape, bool)
    real, limits = values.real, np.iinfo(dtype)
    with np.errstate(invalid="ignore"):
        return np.isfinite(real) & (real > float(limits.min) - 1) & (real < float(limits.max) + 1)


def same_bits(np, a, b):
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


# ---- no GPU needed: NumPy's rules against numpy ----

@pytest.mark.parametrize("function", FUNCTIONS)
def test_the_default_accumulation_is_numpys(np, function):
    """_numpy_rules.default_dtype of every dtype is the dtype numpy's function returns (bool and the
    narrow signed integers to int64, the narrow unsigned to uint64, the rest kept), along an axis
    and, for cumsum and cumprod, flattened."""
    accumulate = numpy_function(np, function)
    rng = np.random.default_rng(57)
    wrong = []
    for name in DTYPES:
        host = random_host(np, rng, (3, 4), name)
        got = {quietly(lambda: accumulate(host, axis=1)).dtype.name, quietly(lambda: accumulate(host[0])).dtype.name}
        if function in ("cumsum", "cumprod"):
            got.add(quietly(lambda: accumulate(host)).dtype.name)
        if got != {_numpy_rules.default_dtype(name)}:
            wrong.append(f"{name}: numpy gives {got}, the rule {_numpy_rules.default_dtype(name)}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_dtype_converts_each_element_first_as_numpy_does(np, function):
    """For every input dtype and every dtype=: numpy's result has dtype=, and is its function of the
    input converted to dtype= first (so dtype=bool is the running or (and) of the elements'
    truth, dtype=int8 wrapping int8 arithmetic), bit for bit: the rule cupy.py's conversions
    follow (_numpy_rules.converted_first)."""
    accumulate = numpy_function(np, function)
    rng = np.random.default_rng(58)
    wrong = []
    for name, dtype in itertools.product(DTYPES, DTYPES):
        host = random_host(np, rng, (2, 50), name)
        if host.dtype.kind in "fc" and np.dtype(dtype).kind == "u":
            host = np.where(host.real < 0, -host, host)  # a negative float to an unsigned one is undefined in C
        got = quietly(lambda: accumulate(host, axis=1, dtype=dtype))
        converted_first = quietly(lambda: accumulate(host.astype(dtype), axis=1, dtype=dtype))
        if got.dtype.name != _numpy_rules.accumulation_dtype(name, dtype, None) or not same_bits(np, got,
                                                                                             converted_first):
            wrong.append(f"{name} with dtype={dtype}: {got.dtype}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_out_accumulates_in_the_promotion_then_casts_into_out(np, function):
    """For every input dtype and out= dtype: numpy's type resolution of the accumulation (the ufunc's
    own resolve_dtypes) is _numpy_rules.accumulation_dtype's promotion, and numpy's out holds its
    function accumulated in that dtype, then cast (unsafe) into out, bit for bit: an int8 input
    into an int64 out does not wrap at 127, a uint64 one into an int64 out goes through float64.
    With include_initial, the identity first (numpy writes the accumulation into out[1:])."""
    accumulate = numpy_function(np, function)
    ufunc = np.add if OPERATORS[function] == "sum" else np.multiply
    rng = np.random.default_rng(59)
    wrong = []
    for name, out_dtype in itertools.product(DTYPES, DTYPES):
        accumulated = _numpy_rules.accumulation_dtype(name, None, out_dtype)
        resolved = ufunc.resolve_dtypes((np.dtype(out_dtype), np.dtype(name), None), reduction=True, casting="unsafe")
        host = random_host(np, rng, (2, 50), name)
        for initial in ((False, True) if function.startswith("cumulative") else (False,)):
            kwargs = {"include_initial": True} if initial else {}
            out = np.zeros((2, 50 + initial), out_dtype)
            quietly(lambda: accumulate(host, axis=1, out=out, **kwargs))
            accumulation = quietly(lambda: accumulate(host, axis=1, dtype=accumulated, **kwargs))
            then_cast = quietly(lambda: accumulation.astype(out_dtype))
            defined = converts_defined(np, accumulation, out_dtype)
            if resolved[0].name != accumulated or not same_bits(np, out[defined], then_cast[defined]):
                wrong.append(f"{name} into {out_dtype} (include_initial={initial}): numpy resolves {resolved[0]}, "
                             f"the rule {accumulated}")
    assert not wrong, "\n".join(wrong)


def test_the_out_cases_that_tell_the_accumulation_dtype_apart(np):
    """Values whose result shows which dtype numpy accumulated in with out=: the promotion's, then
    cast; the same cases the GPU test runs through scan_zoo.cupy."""
    for host, out_dtype, expected in out_cases(np):
        out = np.zeros(host.shape, out_dtype)
        assert np.cumsum(host, out=out) is out
        assert np.array_equal(out, expected), (host.dtype, out_dtype, out)


def out_cases(np):
    """(input, out's dtype, numpy's result): a uint64 input into an int64 out adds in float64 (2**60 + 1
    is lost), a float16 one into a float32 out adds in float32 (past 2048, which float16 cannot
    step by 1), a float64 one into an int32 out truncates the float sums (not the elements), an
    int64 one into a bool out tests the int64 sums (1 + -1 is False), an int8 one into an int64 out
    does not wrap."""
    return [(np.array([2**60 + 1, 1], np.uint64), "int64", np.array([2**60, 2**60])),
            (np.array([2048, 1, 1, 1], np.float16), "float32", np.array([2048, 2049, 2050, 2051])),
            (np.array([0.5, 0.7, 1.9]), "int32", np.array([0, 1, 3])),
            (np.array([1, -1, 2]), "bool", np.array([True, False, True])),
            (np.array([100, 100, 100], np.int8), "int64", np.array([100, 200, 300]))]


def test_every_accumulation_numpy_makes_has_a_way_or_is_refused():
    """For both operators, every input dtype and every accumulation dtype, _numpy_rules.converted_first
    gives a dtype from which _dtypes.scan_plan reaches that accumulation (a bool one from another
    dtype only by converting first): complex products included."""
    for op, name, accumulated in itertools.product(("sum", "prod"), DTYPES, DTYPES):
        function = "cumsum" if op == "sum" else "cumprod"
        source = REAL_PARTS[name] if name in REAL_PARTS and accumulated not in _dtypes.COMPLEXES else name
        first = _numpy_rules.converted_first(function, op, source, accumulated)
        assert first in (source, accumulated), (op, name, accumulated)
        assert _dtypes.scan_plan(op, first, accumulated)[2] == accumulated, (op, name, accumulated)
        if accumulated == "bool":
            assert first == "bool", (op, name)


def test_a_dtype_scan_zoo_does_not_know_is_refused():
    with pytest.raises(TypeError, match="no code to accumulate int32 as timedelta64"):
        _numpy_rules.converted_first("cumsum", "sum", "int32", "timedelta64")


@pytest.mark.parametrize("function", FUNCTIONS)
def test_the_signatures_are_numpys(np, function):
    """Each function's parameters (names, positional-only or keyword-only, defaults) are numpy's own,
    read from cupy.py's source (importing it needs CuPy)."""
    tree = ast.parse((ROOT / "python" / "scan_zoo" / "cupy.py").read_text())
    definition = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == function)
    args = definition.args
    positional = args.posonlyargs + args.args
    defaults = [inspect.Parameter.empty] * (len(positional) - len(args.defaults)) + \
        [ast.literal_eval(d) for d in args.defaults]
    ours = [(a.arg, inspect.Parameter.POSITIONAL_ONLY if a in args.posonlyargs else
             inspect.Parameter.POSITIONAL_OR_KEYWORD, d) for a, d in zip(positional, defaults)]
    ours += [(a.arg, inspect.Parameter.KEYWORD_ONLY, ast.literal_eval(d)) for a, d in zip(args.kwonlyargs,
                                                                                          args.kw_defaults)]
    theirs = [(p.name, p.kind, p.default) for p in inspect.signature(numpy_function(np, function)).parameters.values()]
    assert ours == theirs


# ---- on a GPU, through CuPy ----

@pytest.fixture(scope="module")
def zoo(cupy):
    """scan_zoo.cupy, the module under test."""
    return importlib.import_module("scan_zoo.cupy")


# Relative tolerances of a float result against the float64 (complex128) one rounded to its dtype, by
# the coarser of the accumulation's dtype and the result's: float16's is one unit in its last place.
RTOL = {"float16": 1e-3, "float32": 2e-6, "float64": 1e-12, "complex64": 2e-6, "complex128": 1e-12}


def poisoned(np, cupy, rng, shape, dtype, strided=False):
    """A GPU array of random bytes (NaNs and non-canonical bools among them), so that an element the
    call does not write shows; strided: every other element of a wider one."""
    wide = shape[:-1] + (shape[-1] * 2,) if strided and shape else shape
    size = int(np.prod(wide)) * np.dtype(dtype).itemsize
    array = cupy.asarray(np.frombuffer(rng.bytes(size), dtype=dtype).reshape(wide))
    return array[..., ::2] if strided and shape else array


def check(np, cupy, zoo, function, host, x=None, out=None, **kwargs):
    """zoo.<function>(x, **kwargs) (x: host on the GPU unless given) against numpy's <function>(host,
    **kwargs), both with out= where out is given (a GPU array; numpy's a copy of it): the result's
    dtype and shape, out returned, and every element: exactly where the accumulation or the result
    is an integer or bool, else within RTOL of the same accumulation in float64 (complex128) of the
    elements converted to its dtype first. Returns the result."""
    x = cupy.asarray(host) if x is None else x
    host_out = None if out is None else cupy.asnumpy(out)
    want = quietly(lambda: numpy_function(np, function)(host, out=host_out, **kwargs))
    got = quietly(lambda: getattr(zoo, function)(x, out=out, **kwargs))
    if out is not None:
        assert got is out
    assert isinstance(got, cupy.ndarray) and got.dtype == want.dtype and got.shape == want.shape, \
        (function, host.dtype, kwargs, got.dtype, got.shape, want.dtype, want.shape)
    result = cupy.asnumpy(got)
    asked = None if kwargs.get("dtype") is None else np.dtype(kwargs["dtype"]).name
    accumulated = _numpy_rules.accumulation_dtype(host.dtype.name, asked, None if out is None else want.dtype.name)
    if want.dtype.kind in "biu" or accumulated in _dtypes.INTEGERS:
        assert np.array_equal(result, want), (function, host.dtype, kwargs, result, want)
        return got
    wide_dtype = np.complex128 if accumulated in _dtypes.COMPLEXES else np.float64
    converted = quietly(lambda: host.astype(accumulated).astype(wide_dtype))
    wide = numpy_function(np, function)(converted, **dict(kwargs, dtype=wide_dtype))
    # rounded once to the result's dtype, as scan_zoo's is: a float16 product past its range is inf in both
    reference = quietly(lambda: (wide if want.dtype.kind == "c" else wide.real).astype(want.dtype))
    rtol = max(RTOL.get(accumulated, 0), RTOL[want.dtype.name])
    assert np.allclose(result.astype(wide_dtype), reference.astype(wide_dtype), rtol=rtol, atol=rtol, equal_nan=True), \
        (function, host.dtype, kwargs, result, reference)
    return got


# ---- NumPy's own tests, ported ----

BASIC_LINE = [1, 2, 10, 11, 6, 5, 4]
BASIC_TABLE = [[1, 2, 3, 4], [5, 6, 7, 9], [10, 3, 4, 5]]


@pytest.mark.parametrize("function", ["cumsum", "cumulative_sum"])
@pytest.mark.parametrize("name", ["int8", "uint8", "int16", "uint16", "int32", "uint32", "float32", "float64",
                                  "complex64", "complex128"])
def test_numpy_cumsum_basic(np, cupy, zoo, function, name):
    """Ports numpy/lib/tests/test_function_base.py TestCumsum.test_basic (np.cumsum and
    np.cumulative_sum): a line and a 3 x 4 table of each dtype, along axis 0 and 1, to the sums it
    lists; here also against numpy's result (its dtype) and into a poisoned out."""
    rng = np.random.default_rng(60)
    line, table = np.array(BASIC_LINE, name), np.array(BASIC_TABLE, name)
    sums = {(1, 0): [1, 3, 13, 24, 30, 35, 39], (2, 0): [[1, 2, 3, 4], [6, 8, 10, 13], [16, 11, 14, 18]],
            (2, 1): [[1, 3, 6, 10], [5, 11, 18, 27], [10, 13, 17, 22]]}
    for (ndim, axis), expected in sums.items():
        host = line if ndim == 1 else table
        got = check(np, cupy, zoo, function, host, axis=axis)
        assert np.array_equal(cupy.asnumpy(got), np.array(expected, name))
        out = poisoned(np, cupy, rng, host.shape, _numpy_rules.default_dtype(name))
        check(np, cupy, zoo, function, host, axis=axis, out=out)


@pytest.mark.parametrize("function", ["cumprod", "cumulative_prod"])
@pytest.mark.parametrize("name", ["int16", "uint16", "int32", "uint32", "float32", "float64", "complex64",
                                  "complex128"])
def test_numpy_cumprod_basic(np, cupy, zoo, function, name):
    """Ports numpy/lib/tests/test_function_base.py TestCumprod.test_basic (np.cumprod and
    np.cumulative_prod): the line and the table of each dtype, along axis -1 and 0, to the products
    it lists (complex too: real values, as NumPy's test has them)."""
    line, table = np.array(BASIC_LINE, name), np.array(BASIC_TABLE, name)
    products = {(1, -1): [1, 2, 20, 220, 1320, 6600, 26400],
                (2, 0): [[1, 2, 3, 4], [5, 12, 21, 36], [50, 36, 84, 180]],
                (2, -1): [[1, 2, 6, 24], [5, 30, 210, 1890], [10, 30, 120, 600]]}
    for (ndim, axis), expected in products.items():
        got = check(np, cupy, zoo, function, line if ndim == 1 else table, axis=axis)
        assert np.array_equal(cupy.asnumpy(got), np.array(expected, name))


def test_numpy_cumulative_include_initial(np, cupy, zoo):
    """Ports numpy/lib/tests/test_function_base.py test_cumulative_include_initial: the sums along
    the middle axis and the products along the last of a 2 x 2 x 2 array with the identity first,
    the sums along axis 0 into a float64 out one row longer (here poisoned), and the products of
    [2, 2] from 1; plus the same of random data."""
    rng = np.random.default_rng(61)
    cube = np.arange(8).reshape((2, 2, 2))
    got = check(np, cupy, zoo, "cumulative_sum", cube, axis=1, include_initial=True)
    assert np.array_equal(cupy.asnumpy(got), [[[0, 0], [0, 1], [2, 4]], [[0, 0], [4, 5], [10, 12]]])
    got = check(np, cupy, zoo, "cumulative_prod", cube, axis=2, include_initial=True)
    assert np.array_equal(cupy.asnumpy(got), [[[1, 0, 0], [1, 2, 6]], [[1, 4, 20], [1, 6, 42]]])
    out = poisoned(np, cupy, rng, (3, 2), "float64")
    check(np, cupy, zoo, "cumulative_sum", np.arange(1, 5).reshape((2, 2)), axis=0, out=out, include_initial=True)
    assert np.array_equal(cupy.asnumpy(out), [[0, 0], [1, 2], [4, 6]])
    got = check(np, cupy, zoo, "cumulative_prod", np.array([2, 2]), include_initial=True)
    assert np.array_equal(cupy.asnumpy(got), [1, 2, 4])
    host = random_host(np, rng, (6, 7, 8), "int32")
    for function, axis in itertools.product(("cumulative_sum", "cumulative_prod"), (0, 1, 2, -1)):
        check(np, cupy, zoo, function, host, axis=axis, include_initial=True)


def test_numpy_zerosize_accumulate(np, cupy, zoo):
    """Ports numpy/_core/tests/test_regression.py test_zerosize_accumulate (ticket #1733): the sums of
    an empty slice of a uint32 array are empty (uint64, NumPy's widening)."""
    host = np.array([[42, 0]], dtype=np.uint32)[:-1, 0]
    for function in FUNCTIONS:
        got = check(np, cupy, zoo, function, host)
        assert got.shape == (0,) and got.dtype == np.uint64


@pytest.mark.parametrize("with_cast", [True, False])
def test_numpy_accumulate_out_shape_mismatch(np, cupy, zoo, with_cast):
    """Ports numpy/_core/tests/test_ufunc.py test_reduceat_and_accumulate_out_shape_mismatch: an out
    of the wrong shape, of the result's dtype or of one needing a cast, raises ValueError naming
    the shape; here for the four functions, include_initial's longer shape too."""
    x = cupy.arange(5)
    for function in FUNCTIONS:
        out = cupy.arange(3).astype(cupy.float64 if with_cast else cupy.int64)
        with pytest.raises(ValueError, match=rf"scan_zoo.cupy.{function}: out has shape \(3,\), the result \(5,\)"):
            getattr(zoo, function)(x, out=out)
    with pytest.raises(ValueError, match=r"out has shape \(5,\), the result \(6,\)"):
        zoo.cumulative_sum(x, out=cupy.zeros(5, cupy.int64), include_initial=True)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_numpy_accumulate_into_bool_gives_canonical_bools(np, cupy, zoo, function):
    """Ports numpy/_core/tests/test_umath.py test_memoverlap_accumulate_cmp: [0, 1, 1] repeated
    (2 to 256 times) of every real dtype, accumulated with dtype=bool, is the running or (and) as
    itertools.accumulate gives it, each byte 0 or 1."""
    logical = (lambda p, q: p or q) if OPERATORS[function] == "sum" else (lambda p, q: p and q)
    for name in DTYPES:
        if name in _dtypes.COMPLEXES:
            continue
        for size in (2, 8, 32, 64, 128, 256):
            host = np.array([0, 1, 1] * size, dtype=name)
            got = check(np, cupy, zoo, function, host, dtype=bool)
            expected = np.array(list(itertools.accumulate(host.astype(bool), logical)), dtype=np.uint8)
            assert np.array_equal(cupy.asnumpy(got).view(np.uint8), expected), (name, size)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_numpy_accumulate_in_the_inputs_own_dtype(np, cupy, zoo, function):
    """Ports numpy/_core/tests/test_umath.py test_memoverlap_accumulate_symmetric: [0, 1, 2] repeated
    (2 to 256 times) of every dtype but bool, accumulated with dtype= its own, as a sequential
    accumulation in that dtype (itertools.accumulate) gives it: narrow integers wrap. Complex
    products, which scan_zoo refuses, are left out."""
    for name in DTYPES:
        if name == "bool" or (OPERATORS[function] == "prod" and name in _dtypes.COMPLEXES):
            continue
        combine = np.add if OPERATORS[function] == "sum" else np.multiply
        for size in (2, 8, 32, 64, 128, 256):
            host = np.array([0, 1, 2] * size).astype(name)
            got = check(np, cupy, zoo, function, host, dtype=name)
            with np.errstate(all="ignore"):
                expected = np.array(list(itertools.accumulate(host, combine)), dtype=name)
            assert np.array_equal(cupy.asnumpy(got), expected), (name, size)


# ---- CuPy's own tests, ported ----

SHAPE_3D = (4, 5, 6)


@pytest.mark.parametrize("function", ["cumsum", "cumprod"])
@pytest.mark.parametrize("name", DTYPES)
def test_cupy_cumsum_and_cumprod_cases(np, cupy, zoo, seed, function, name):
    """Ports CuPy's tests/cupy_tests/math_tests/test_sumprod.py TestCumsum (test_cumsum,
    test_cumsum_out, test_cumsum_out_noncontiguous, test_cumsum_2dim, test_cumsum_axis,
    test_cumsum_axis_out, test_cumsum_axis_out_noncontiguous, test_cumsum_axis_empty) and
    TestCumprod (test_cumprod_1dim, test_cumprod_out, test_cumprod_out_noncontiguous,
    test_cumprod_2dim_without_axis, test_cumprod_2dim_with_axis), every dtype: a line, a 4 x 5
    table flattened and along axis 1, a 4 x 5 x 6 array along each axis, into a poisoned out of
    the input's dtype, contiguous and every other element of a wider one, and arrays with a 0
    extent along each axis; random values where CuPy's have 1, 2, 3, ..."""
    rng = np.random.default_rng(seed)
    factors = function == "cumprod"
    line, table = random_host(np, rng, (5,), name, factors), random_host(np, rng, (4, 5), name, factors)
    check(np, cupy, zoo, function, line)
    for strided in (False, True):
        check(np, cupy, zoo, function, line, out=poisoned(np, cupy, rng, (5,), name, strided))
    check(np, cupy, zoo, function, table)
    check(np, cupy, zoo, function, table, axis=1)
    cube = random_host(np, rng, SHAPE_3D, name, factors)
    for axis in range(3):
        check(np, cupy, zoo, function, cube, axis=axis)
        for strided in (False, True):
            check(np, cupy, zoo, function, cube, axis=axis, out=poisoned(np, cupy, rng, SHAPE_3D, name, strided))
        check(np, cupy, zoo, function, random_host(np, rng, (0, 1, 2), name, factors), axis=axis)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_cupy_invalid_axis_and_array_like(np, cupy, zoo, function):
    """Ports CuPy's TestCumsum and TestCumprod test_invalid_axis_lower1/2, test_invalid_axis_upper1/2
    (numpy.exceptions.AxisError, also a ValueError and an IndexError, for axis -ndim - 1, ndim and
    ndim + 1 of a 4 x 5 array, as numpy raises), test_cumsum_arraylike and
    test_cumsum_numpy_array (a tuple and a numpy array are TypeError)."""
    accumulate = getattr(zoo, function)
    x = cupy.zeros((4, 5), cupy.float32)
    for axis in (-x.ndim - 1, x.ndim, x.ndim + 1):
        with pytest.raises(np.exceptions.AxisError) as numpy_raised:
            numpy_function(np, function)(np.zeros((4, 5)), axis=axis)
        with pytest.raises(np.exceptions.AxisError, match=rf"scan_zoo.cupy.{function}: axis {axis} is out of bounds "
                                                          rf"for array of dimension 2") as raised:
            accumulate(x, axis=axis)
        assert isinstance(raised.value, ValueError) and isinstance(raised.value, IndexError)
        assert str(numpy_raised.value) in str(raised.value)
    for array_like in ((1, 2, 3), np.arange(1, 6, dtype=np.float32)):
        with pytest.raises(TypeError, match=rf"scan_zoo.cupy.{function}: \w+ is a \w+.(tuple|ndarray); it takes a "
                                            rf"cupy.ndarray"):
            accumulate(array_like)


# ---- the rules, on every dtype ----

@pytest.mark.parametrize("function", FUNCTIONS)
@pytest.mark.parametrize("name", DTYPES)
def test_every_dtype_along_every_axis(np, cupy, zoo, seed, function, name):
    """Each input dtype with NumPy's default accumulation along each axis of a 3-D array, negative
    ones included, flattened (axis=None: cumsum and cumprod), one line of 100003 (many blocks),
    and its transpose (a strided input); into a poisoned out of the result's dtype and of another
    (an integer of another width, a float or complex of another precision), strided too."""
    if OPERATORS[function] == "prod" and name in _dtypes.COMPLEXES:
        return  # refused: test_cupy_cumsum_and_cumprod_cases and the CPU tests check it
    rng = np.random.default_rng(seed)
    factors = OPERATORS[function] == "prod"
    other = {"bool": "int8", "int8": "int16", "int16": "int8", "int32": "int8", "int64": "int32", "uint8": "int32",
             "uint16": "uint8", "uint32": "int64", "uint64": "uint16", "float16": "float32", "float32": "float64",
             "float64": "float32", "complex64": "complex128", "complex128": "complex64"}[name]
    cube = random_host(np, rng, (5, 67, 9), name, factors)
    axes = (0, 1, 2, -1, -2, -3) + ((None,) if function in ("cumsum", "cumprod") else ())
    for axis in axes:
        check(np, cupy, zoo, function, cube, axis=axis)
        check(np, cupy, zoo, function, cube.transpose(2, 0, 1), x=cupy.asarray(cube).transpose(2, 0, 1), axis=axis)
        shape = (cube.size,) if axis is None else cube.shape
        for out_dtype, strided in itertools.product((_numpy_rules.default_dtype(name), other), (False, True)):
            check(np, cupy, zoo, function, cube, axis=axis, out=poisoned(np, cupy, rng, shape, out_dtype, strided))
    line = random_host(np, rng, (100003,), name, factors)
    check(np, cupy, zoo, function, line, axis=0)
    check(np, cupy, zoo, function, line, axis=-1, out=poisoned(np, cupy, rng, line.shape, other))


@pytest.mark.parametrize("function", FUNCTIONS)
def test_dtype_converts_first_then_accumulates(np, cupy, zoo, seed, function):
    """dtype= of every integer input: int8 (the sums and products wrap as int8's), bool (the running
    or (and) of the elements' truth, so 1 and -1 give True where their int64 sum would be 0),
    float32 and complex128 from small integers (exact); int64 and int8 of floats (each element
    truncated first); float64 of float16."""
    rng = np.random.default_rng(seed)
    factors = OPERATORS[function] == "prod"
    for name in DTYPES[:9]:  # bool and the integers
        host = random_host(np, rng, (7, 300), name, factors)
        for dtype in ("int8", "bool", "uint64"):
            check(np, cupy, zoo, function, host, axis=1, dtype=dtype)
        small = (rng.integers(-3, 4, (7, 300)) if name != "bool" and "u" not in name else
                 rng.integers(0, 4, (7, 300))).astype(name)
        # products of 12 factors of at most 3 are below 2**24: exact in float32, in any order
        check(np, cupy, zoo, function, small[:, :12] if factors else small, axis=1, dtype="float32")
        if not factors:
            check(np, cupy, zoo, function, small, axis=1, dtype="complex128")
    opposites = np.array([[1, -1, 1, -1, 0, 2, -2]])
    got = check(np, cupy, zoo, function, opposites, axis=1, dtype=bool)
    assert np.array_equal(cupy.asnumpy(got), np.logical_or.accumulate(opposites != 0, axis=1) if not factors else
                          np.logical_and.accumulate(opposites != 0, axis=1))
    floats = (rng.integers(-80, 81, (7, 300)) / 8).astype(np.float32)
    for dtype in ("int64", "int8"):
        check(np, cupy, zoo, function, floats[:, :30] if factors else floats, axis=1, dtype=dtype)
    halves = random_host(np, rng, (7, 300), "float16", factors)
    check(np, cupy, zoo, function, halves, axis=1, dtype=np.float64)


def test_out_accumulates_in_numpys_promotion_then_casts(np, cupy, zoo):
    """The cases that tell the accumulation's dtype apart with out= (out_cases, checked against numpy
    on the CPU above): a uint64 input into an int64 out through float64, a float16 one into a
    float32 out in float32, float sums truncated into an int32 out, int64 sums tested into a bool
    out, an int8 one into int64 without wrapping; contiguous and strided outs, poisoned."""
    rng = np.random.default_rng(62)
    for host, out_dtype, expected in out_cases(np):
        for strided in (False, True):
            out = poisoned(np, cupy, rng, host.shape, out_dtype, strided)
            check(np, cupy, zoo, "cumsum", host, out=out)
            assert np.array_equal(cupy.asnumpy(out), expected), (host.dtype, out_dtype, strided)


def test_complex_into_real_warns_and_keeps_the_real_part(np, cupy, zoo):
    """A complex input with a real dtype=, and a complex sum into a real out: ComplexWarning, as
    numpy warns, and the real parts' sums."""
    host = np.array([1 + 2j, 3 - 4j, -0.5 + 1j], np.complex64)
    with pytest.warns(np.exceptions.ComplexWarning):
        got = zoo.cumsum(cupy.asarray(host), dtype=np.float64)
    assert got.dtype == np.float64 and np.array_equal(cupy.asnumpy(got), [1, 4, 3.5])
    out = cupy.zeros(3, np.float32)
    with pytest.warns(np.exceptions.ComplexWarning):
        zoo.cumulative_sum(cupy.asarray(host), out=out)
    assert np.array_equal(cupy.asnumpy(out), [1, 4, 3.5])
    with pytest.warns(np.exceptions.ComplexWarning):
        got = zoo.cumprod(cupy.asarray(host), dtype=np.float32)
    assert np.array_equal(cupy.asnumpy(got), [1, 3, -1.5])


def test_empty_and_zero_dimensional_inputs(np, cupy, zoo, seed):
    """Empty arrays (a 0 extent along the axis or another, flattened) give empty results of NumPy's
    dtype, with include_initial a row of identities; a 0-d input is one element in one dimension
    (shape (1,)) for axis None, 0 and -1, and axis 1 is out of its bounds."""
    rng = np.random.default_rng(seed)
    for function, name in itertools.product(FUNCTIONS, ("bool", "int8", "uint32", "float16", "float64")):
        for shape, axis in (((0,), 0), ((0, 3), 0), ((0, 3), 1), ((3, 0), 1), ((2, 0, 4), -1)):
            check(np, cupy, zoo, function, np.zeros(shape, name), axis=axis)
            if function.startswith("cumulative"):
                check(np, cupy, zoo, function, np.zeros(shape, name), axis=axis, include_initial=True)
        if not function.startswith("cumulative"):
            check(np, cupy, zoo, function, np.zeros((2, 0, 4), name))
        scalar = random_host(np, rng, (), name)
        for axis in (None, 0, -1):
            got = check(np, cupy, zoo, function, scalar, axis=axis)
            assert got.shape == (1,)
        with pytest.raises(np.exceptions.AxisError, match="axis 1 is out of bounds for array of dimension 1"):
            getattr(zoo, function)(cupy.asarray(scalar), axis=1)


@pytest.mark.parametrize("function", ["cumulative_sum", "cumulative_prod"])
def test_include_initial_into_every_kind_of_out(np, cupy, zoo, seed, function):
    """include_initial=True along each axis of a 3-D array (the rest contiguous only for axis 0, so
    the scan writes it directly there and through a temporary elsewhere), a 1-D one, with NumPy's
    dtype and dtype=int8, into a poisoned out of the result's dtype, of another, and strided."""
    rng = np.random.default_rng(seed)
    factors = function == "cumulative_prod"
    cube = random_host(np, rng, (6, 33, 7), "int32", factors)
    floats = random_host(np, rng, (6, 33, 7), "float32", factors)
    for axis in (0, 1, 2, -1):
        shape = list(cube.shape)
        shape[axis] += 1
        for host, out_dtype, strided in ((cube, "int64", False), (cube, "int64", True), (cube, "float64", False),
                                         (floats, "float32", False), (floats, "float16", True)):
            check(np, cupy, zoo, function, host, axis=axis, include_initial=True)
            check(np, cupy, zoo, function, host, axis=axis, include_initial=True, dtype="int8")
            out = poisoned(np, cupy, rng, tuple(shape), out_dtype, strided)
            check(np, cupy, zoo, function, host, axis=axis, include_initial=True, out=out)
    line = random_host(np, rng, (100003,), "float64", factors)
    check(np, cupy, zoo, function, line, include_initial=True)
    check(np, cupy, zoo, function, line, include_initial=True, out=poisoned(np, cupy, rng, (100004,), "float64"))


def test_out_in_place_and_overlapping_the_input(np, cupy, zoo, seed):
    """out= the input itself (the library scans in place), and an out overlapping the input shifted
    by one element (which goes through a temporary, as numpy's overlap handling): the input's
    sums, as numpy gives them."""
    rng = np.random.default_rng(seed)
    host = random_host(np, rng, (9, 1000), "int64")
    x = cupy.asarray(host)
    assert zoo.cumsum(x, axis=1, out=x) is x
    assert np.array_equal(cupy.asnumpy(x), np.cumsum(host, axis=1))
    floats = random_host(np, rng, (100001,), "float64")
    wide, host_wide = cupy.asarray(floats), floats.copy()
    np.cumsum(host_wide[:-1], out=host_wide[1:])
    zoo.cumsum(wide[:-1], out=wide[1:])
    assert np.array_equal(cupy.asnumpy(wide), host_wide)


def test_the_scans_run_on_cupys_current_stream(np, cupy, zoo, seed):
    """A call inside another stream is enqueued on it: its result, once that stream has finished, is
    numpy's (nothing synchronizes, so the call itself cannot be trusted to)."""
    rng = np.random.default_rng(seed)
    host = random_host(np, rng, (64, 4096), "int32")
    x = cupy.asarray(host)
    side = cupy.cuda.Stream(non_blocking=True)
    cupy.cuda.get_current_stream().synchronize()
    with side:
        sums = zoo.cumsum(x, axis=1)
        initial = zoo.cumulative_sum(x, axis=0, include_initial=True, dtype=np.int8)
    side.synchronize()
    assert np.array_equal(cupy.asnumpy(sums), np.cumsum(host, axis=1))
    assert np.array_equal(cupy.asnumpy(initial), np.cumulative_sum(host, axis=0, include_initial=True, dtype=np.int8)
                          if hasattr(np, "cumulative_sum") else
                          np.concatenate([np.zeros((1, 4096), np.int8), np.cumsum(host, axis=0, dtype=np.int8)]))


def test_arguments_numpy_refuses_are_refused(np, cupy, zoo):
    """axis=None for a multi-dimensional x of cumulative_sum and cumulative_prod (ValueError, as
    numpy), an axis that is not an integer (bool, float, tuple: TypeError), an out that is not a
    cupy.ndarray or is on another device, a dtype scan_zoo does not know (TypeError)."""
    x = cupy.zeros((4, 5), cupy.int32)
    for function in ("cumulative_sum", "cumulative_prod"):
        with pytest.raises(ValueError, match="x has 2 dimensions; axis=None takes an x of at most one"):
            getattr(zoo, function)(x)
    for function, axis in itertools.product(FUNCTIONS, (True, 1.0, (1,))):
        with pytest.raises(TypeError, match=f"scan_zoo.cupy.{function}: axis must be an integer or None, not "
                                            f"{type(axis).__name__}"):
            getattr(zoo, function)(x, axis=axis)
    assert zoo.cumsum(x, axis=np.int64(1)).shape == (4, 5)  # an integer of NumPy's is an integer
    with pytest.raises(TypeError, match="out must be a cupy.ndarray, not ndarray"):
        zoo.cumsum(x, axis=1, out=np.zeros((4, 5), np.int64))
    with pytest.raises(TypeError, match="no code to accumulate int32 as timedelta64"):
        zoo.cumsum(x, axis=1, dtype="m8[s]")
    if cupy.cuda.runtime.getDeviceCount() > 1:
        with cupy.cuda.Device(1):
            elsewhere = cupy.zeros((4, 5), cupy.int64)
        with pytest.raises(ValueError, match="out is on device 1, the input on 0"):
            zoo.cumsum(x, axis=1, out=elsewhere)
