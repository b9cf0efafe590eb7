"""scan_zoo.torch, the switch that puts torch's own scan operators on scan_zoo
(python/scan_zoo/torch.py), held to PyTorch's own tests: the OpInfo sample and reference inputs
of cumsum, cumprod, cummax, cummin and logcumsumexp (torch.testing._internal.
common_methods_invocations.op_db), every dtype OpInfo lists for CUDA, with the switch on, against
torch's CPU kernel on the same inputs; gradcheck and gradgradcheck where OpInfo says the op
supports them; torch.compile(fullgraph=True) with Inductor, CUDA graph capture, the deterministic
mode, what falls through, torch's own errors with the switch on, the package's own with it off,
and the three ways to turn it on.

Needs a GPU and PyTorch (skipped elsewhere: CI has neither); the OpInfo database also needs
expecttest (the GPU machine gets it as a wheel: docs/tests.md). Every served call is counted
(scan_zoo.torch.counts()), so a test that only fell through to torch cannot pass as scan_zoo's.
"""
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT

scan_zoo = pytest.importorskip("scan_zoo", reason="the package is not installed in this interpreter "
                                                   "(make test installs it: make python-package)")
from scan_zoo import _dtypes  # noqa: E402


@pytest.fixture(scope="module")
def switch(torch):
    import scan_zoo.torch as switch
    return switch


@pytest.fixture
def on(switch):
    with switch.enabled():
        yield switch


# The aten operators each function reaches (python/scan_zoo/torch.py, _KERNELS).
ATEN = {"cumsum": ("cumsum", "cumsum.out", "cumsum_"), "cumprod": ("cumprod", "cumprod.out", "cumprod_"),
        "logcumsumexp": ("_logcumsumexp", "_logcumsumexp.out"), "cummax": ("_cummax_helper",),
        "cummin": ("_cummin_helper",)}
OPERATORS = {"cumsum": "sum", "cumprod": "prod", "logcumsumexp": "logsumexp", "cummax": "max", "cummin": "min"}


def served(switch, function):
    """The calls of this function's aten operators scan_zoo served, and those that fell through."""
    counts = switch.counts()
    return tuple(sum(counts.get(name, (0, 0))[k] for name in ATEN[function]) for k in (0, 1))


# ---- PyTorch's OpInfo samples ----

def _op_infos(torch):
    try:
        from torch.testing._internal.common_methods_invocations import op_db
    except ImportError as error:  # expecttest, which torch's test modules import
        pytest.skip(f"torch's OpInfo database does not import here: {error}")
    return {info.name: info for info in op_db if info.name in ATEN and info.variant_test_name == ""}


def _to_cpu(torch, value):
    return torch.utils._pytree.tree_map(lambda t: t.cpu() if isinstance(t, torch.Tensor) else t, value)


def _widened(torch, value):
    """Floats to float64, complex to complex128 (tensors and dtype= alike): the reference's inputs."""
    def widen(t):
        if isinstance(t, torch.Tensor):
            return t.to(torch.complex128) if t.is_complex() else t.double() if t.is_floating_point() else t
        if isinstance(t, torch.dtype):
            return torch.complex128 if t.is_complex else torch.float64 if t.is_floating_point else t
        return t
    return torch.utils._pytree.tree_map(widen, value)


def _check_sample(torch, info, sample):
    """The op on the sample (CUDA, switch on) against torch's CPU kernel on the same input: the
    dtype and, for integers, bool and cummax/cummin, every value (and index) exactly; floats
    within torch.testing's tolerances for the result's dtype of the float64 result (complex
    logcumsumexp's imaginary part moved first by the multiple of 2 pi nearest the reference's:
    it is defined only modulo 2 pi, include/scan_zoo/operators.cuh, LogSumExp<Complex<T>>).
    Returns None, or what differs."""
    args, kwargs = sample.args, sample.kwargs
    result = info.op(sample.input, *args, **kwargs)
    expected = info.op(*_to_cpu(torch, (sample.input, *args)), **_to_cpu(torch, kwargs))
    results = result if isinstance(result, tuple) else (result,)
    expecteds = expected if isinstance(expected, tuple) else (expected,)
    try:
        for got, want in zip(results, expecteds):
            assert got.dtype == want.dtype and got.shape == want.shape, f"{got.dtype}{tuple(got.shape)}, want " \
                                                                          f"{want.dtype}{tuple(want.shape)}"
        if info.name in ("cummax", "cummin") or not (results[0].is_floating_point() or results[0].is_complex()):
            for got, want in zip(results, expecteds):
                torch.testing.assert_close(got.cpu(), want, rtol=0, atol=0, equal_nan=True)
        else:
            wide = info.op(*_widened(torch, _to_cpu(torch, (sample.input, *args))),
                           **_widened(torch, _to_cpu(torch, kwargs)))
            got = results[0].cpu().to(wide.dtype)
            if info.name == "logcumsumexp" and got.is_complex():
                got = _nearest_branch(torch, got, wide)
            torch.testing.assert_close(got, wide, equal_nan=True, **_tolerances(torch, results[0].dtype))
    except AssertionError as error:
        return str(error).splitlines()[0][:300]
    return None


def _nearest_branch(torch, got, reference):
    """got with its imaginary part moved by the multiple of 2 pi that brings it nearest the
    reference's (where both are finite)."""
    turns = torch.round((reference.imag - got.imag) / (2 * torch.pi)).nan_to_num(0, 0, 0)
    return torch.complex(got.real, got.imag + 2 * torch.pi * turns)


def _has_plan(op, dtype_name, asked=None):
    """Whether scan_zoo serves the op for this input dtype (and dtype=, else torch's default)."""
    try:
        _dtypes.scan_plan(op, dtype_name, asked)
        return True
    except TypeError:
        return False


def _tolerances(torch, dtype):
    """torch.testing's defaults for the dtype (its rtol and atol tables)."""
    from torch.testing._comparison import default_tolerances
    rtol, atol = default_tolerances(dtype)
    return {"rtol": rtol, "atol": atol}


@pytest.mark.parametrize("function", sorted(ATEN))
def test_opinfo_samples_with_the_switch_on(torch, on, function):
    """Every OpInfo sample and reference input of the function for every dtype OpInfo lists for
    CUDA: no mismatch. Per dtype, the samples scan_zoo served: all of those whose dtypes it has
    code for (_dtypes.py), none of the others (they fall through to torch's kernel). The table
    of passes per dtype goes to $SCAN_ZOO_OPINFO_REPORT when set (the closing note's evidence)."""
    info = _op_infos(torch)[function]
    op = OPERATORS[function]
    rows, failures = [], []
    for dtype in sorted(info.supported_dtypes("cuda"), key=str):
        name = str(dtype).removeprefix("torch.")
        samples = list(info.sample_inputs("cuda", dtype)) + list(info.reference_inputs("cuda", dtype))
        before = served(on, function)
        wrong = [(sample, why) for sample in samples if (why := _check_sample(torch, info, sample)) is not None]
        after = served(on, function)
        scan_zoo_served, fell = after[0] - before[0], after[1] - before[1]
        rows.append(f"{function} {name}: {len(samples) - len(wrong)} passed, {len(wrong)} failed; "
                    f"{scan_zoo_served} calls on scan_zoo, {fell} fell through")
        failures += [f"{function} {name} {sample.input.shape} {sample.args} {sample.kwargs}: {why}"
                     for sample, why in wrong[:3]]
        covered = _has_plan(op, name)
        if covered:
            assert scan_zoo_served > 0, f"{function} {name}: scan_zoo has code for it but served no sample"
        if not covered:
            assert scan_zoo_served == 0, f"{function} {name}: scan_zoo has no code for it, yet served {scan_zoo_served}"
    report = os.environ.get("SCAN_ZOO_OPINFO_REPORT")
    if report:
        with open(report, "a") as f:
            f.write("\n".join(rows) + "\n")
    print("\n".join(rows))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("function", sorted(ATEN))
def test_gradcheck_with_the_switch_on(torch, on, function):
    """gradcheck (and gradgradcheck where OpInfo says the op supports it) of float64 samples: the
    backward formulas' own scans run on scan_zoo too."""
    info = _op_infos(torch)[function]
    if not info.supports_autograd:
        pytest.skip(f"OpInfo: {function} has no autograd")
    before = served(on, function)
    for sample in list(info.sample_inputs("cuda", torch.float64, requires_grad=True))[:6]:
        def fn(t, sample=sample):
            result = info.op(t, *sample.args, **sample.kwargs)
            return result[0] if isinstance(result, tuple) else result
        assert torch.autograd.gradcheck(fn, (sample.input,))
        if info.supports_gradgrad:
            assert torch.autograd.gradgradcheck(fn, (sample.input,))
    assert served(on, function)[0] > before[0]


@pytest.mark.parametrize("function", ["cumprod", "logcumsumexp"])
def test_complex_gradcheck_with_the_switch_on(torch, on, function):
    """gradcheck of complex128 cumprod and logcumsumexp along rows, columns and a middle axis
    (torch's backward formulas for complex conjugate; their scans run on scan_zoo): parts in
    [0.5, 1.5), so no factor is zero."""
    generator = torch.Generator(device="cuda").manual_seed(58)
    before = served(on, function)
    for shape, dim in (((3, 11), 1), ((9, 4), 0), ((2, 7, 3), 1)):
        parts = [torch.rand(shape, generator=generator, device="cuda", dtype=torch.float64) + 0.5 for _ in range(2)]
        z = torch.complex(*parts).requires_grad_()
        assert torch.autograd.gradcheck(lambda t, dim=dim: getattr(torch, function)(t, dim), (z,))
    assert served(on, function)[0] > before[0]


# ---- every dtype torch's CUDA kernels take, beyond OpInfo's lists ----

# torch 2.11's CUDA cumsum and cumprod take these (the issue's survey on the H200); OpInfo lists
# none of the unsigned types past uint8.
SUM_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64", "float16", "bfloat16",
              "float32", "float64", "complex64", "complex128")
SHAPES_AND_DIMS = [((64, 1000), 1), ((1000, 64), 0), ((3, 517, 7), 1), ((100003,), 0)]


def _random(torch, shape, name, generator, factors=False):
    """Random values of dtype `name`: integers over their whole range (so that sums and products
    wrap; odd with factors=True), bool half true; floats and complex parts small multiples of 1/8 (partial sums exact in
    float32), or with factors=True signs with a rare 2 or 1/2 (products exact, rarely past range), for complex
    a quarter turn too (1, i, -1 or -i: the products' real and imaginary parts trade places, still exact)."""
    dtype = getattr(torch, name)
    if name == "bool":
        return torch.randint(0, 2, shape, generator=generator, device="cuda").bool()
    if name in _dtypes.INTEGERS:
        wide = torch.randint(-2**62, 2**62, shape, generator=generator, device="cuda", dtype=torch.int64) * 2
        # every bit random; odd factors, whose products never wrap to 0
        return (wide + (1 if factors else torch.randint(0, 2, shape, generator=generator, device="cuda"))).to(dtype)
    if factors:
        sign = torch.randint(0, 2, shape, generator=generator, device="cuda").double() * 2 - 1
        step = torch.randint(0, 2000, shape, generator=generator, device="cuda")
        size = sign * torch.where(step == 0, 2.0, torch.where(step == 1, 0.5, 1.0))
        turn = torch.randint(0, 2, shape, generator=generator, device="cuda").bool() & (name in _dtypes.COMPLEXES)
        parts = [torch.where(turn, 0.0, size), torch.where(turn, size, 0.0)]
    else:
        parts = [torch.randint(-64, 65, shape, generator=generator, device="cuda").double() / 8 for _ in range(2)]
    return torch.complex(*parts).to(dtype) if name in _dtypes.COMPLEXES else parts[0].to(dtype)


@pytest.mark.parametrize("function", ["cumsum", "cumprod"])
@pytest.mark.parametrize("name", SUM_DTYPES)
def test_every_dtype_torch_takes_with_the_switch_on(torch, switch, function, name):
    """Each input dtype with torch's default output and, for integers, a narrow dtype= (int8: the
    wrapping int8 scan), a new output, out= and the in-place form, along rows, columns, a middle
    axis and one line. Integers and bool bit for bit against torch's own CUDA kernel (the switch
    off); floats and complex against torch's CPU kernel (the exact result rounded once, which
    torch's CUDA 16-bit cumsum does not reach) within torch.testing's tolerances. Served where
    _dtypes has a plan and torch a kernel for the result's dtype; where torch refuses it (an
    in-place bool or uint16-64 scan), the same error with the switch on."""
    generator = torch.Generator(device="cuda").manual_seed(57)
    op = OPERATORS[function]
    for shape, dim in SHAPES_AND_DIMS:
        x = _random(torch, shape, name, generator, factors=function == "cumprod")
        exact = name in _dtypes.INTEGERS
        calls = {"new": lambda t, **kw: getattr(torch, function)(t, dim, **kw),
                 "out=": lambda t, **kw: getattr(torch, function)(
                     t, dim, out=torch.full(t.shape, 7, dtype=kw.get("dtype", _default(torch, t)), device=t.device),
                     **kw),
                 "in place": lambda t, **kw: getattr(t.clone(), function + "_")(dim, **kw)}
        for form, call in calls.items():
            for kw in [{}] + ([{"dtype": torch.int8}] if exact and form != "in place" else []):
                asked = _dtypes.default_output(name) if form != "in place" else name
                asked = "int8" if kw else asked
                with switch.enabled(False):
                    try:
                        want, refused = call(x if exact else x.cpu(), **kw), None
                    except (RuntimeError, NotImplementedError) as error:  # torch has no kernel for it
                        want, refused = None, error
                with switch.enabled():
                    before = served(switch, function)
                    if refused is not None:
                        with pytest.raises(type(refused)) as raised:
                            call(x, **kw)
                        assert str(raised.value).splitlines()[0] == str(refused).splitlines()[0]
                        assert served(switch, function)[0] == before[0], (shape, form, kw)
                        continue
                    got = call(x, **kw)
                    after = served(switch, function)
                expect_served = _has_plan(op, name, asked) and asked not in ("bool", "uint16", "uint32", "uint64")
                assert (after[0] - before[0] == 1) == expect_served, (shape, form, kw, before, after)
                assert got.dtype == want.dtype, (shape, form, kw)
                if exact:
                    assert torch.equal(got, want), (shape, form, kw)
                else:
                    torch.testing.assert_close(got.cpu(), want, equal_nan=True)


def _default(torch, t):
    return getattr(torch, _dtypes.default_output(str(t.dtype).removeprefix("torch.")))


# ---- the ways in, and what each reaches ----

def test_tensor_methods_out_and_in_place_reach_scan_zoo(torch, on):
    x = torch.randint(-9, 10, (64, 1000), device="cuda", dtype=torch.int32)
    before = on.counts()
    out = torch.empty(x.shape, dtype=torch.int64, device="cuda")
    y = x.cumsum(1)
    torch.cumsum(x, 1, out=out)
    z = x.clone().cumsum_(0)
    values, indices = x.float().cummax(1)
    after = on.counts()
    for name in ("cumsum", "cumsum.out", "cumsum_", "_cummax_helper"):
        assert after[name][0] > before.get(name, (0, 0))[0], name
    cpu = x.cpu()
    assert torch.equal(y.cpu(), cpu.cumsum(1)) and torch.equal(out.cpu(), cpu.cumsum(1))
    assert torch.equal(z.cpu(), cpu.cumsum(0, dtype=torch.int32))
    expected = cpu.float().cummax(1)
    assert torch.equal(values.cpu(), expected.values) and torch.equal(indices.cpu(), expected.indices)


def test_the_cpp_kernels_serve_what_needs_no_cast_and_hand_on_the_rest(torch, on):
    """scan_zoo._torch_kernels (python/src/torch_kernels.cpp), in front of the Python kernels where
    the package was built against this torch: it serves cumsum, cumprod and logcumsumexp of a
    contiguous CUDA tensor with a one-pass plan, gradients included (and a float scan under
    torch.use_deterministic_algorithms, in the fixed order), and hands a strided input and a
    dtype= that needs a cast on to the Python kernels."""
    fast = on._fast_kernels()
    if fast is None:
        pytest.skip("the package was built without torch in the build's Python (no scan_zoo._torch_kernels)")
    assert fast.is_enabled()
    generator = torch.Generator(device="cuda").manual_seed(5)
    ints = torch.randint(-9, 10, (64, 4096), generator=generator, device="cuda")
    floats = torch.randint(-64, 65, (8, 3, 1000), generator=generator, device="cuda").float() / 16
    calls = [(lambda: torch.cumsum(ints, -1), lambda: ints.cpu().cumsum(-1), "cumsum"),
             (lambda: (ints > 0).cumsum(1), lambda: (ints.cpu() > 0).cumsum(1), "cumsum"),
             (lambda: ints.int().cumsum(0, dtype=torch.int64), lambda: ints.cpu().cumsum(0), "cumsum"),
             (lambda: torch.cumsum(floats, 1), lambda: floats.cpu().double().cumsum(1), "cumsum"),
             (lambda: torch.cumsum(ints[0, 0], 0), lambda: ints[0, 0].cpu().cumsum(0), "cumsum"),
             (lambda: torch.cumprod(ints % 3 - 1, 1), lambda: (ints.cpu() % 3 - 1).cumprod(1), "cumprod"),
             (lambda: torch.logcumsumexp(floats, 2), lambda: floats.cpu().double().logcumsumexp(2), "_logcumsumexp")]
    for call, reference, name in calls:
        before = fast.served()[name]
        got = call()
        assert fast.served()[name] == before + 1, name
        want = reference()
        if want.dtype == torch.float64:
            torch.testing.assert_close(got.cpu().double(), want, rtol=1e-6, atol=1e-5)
        else:
            assert got.dtype == want.dtype and torch.equal(got.cpu(), want)
    handed_on = [lambda: torch.cumsum(ints.t(), 0), lambda: torch.cumsum(ints, 1, dtype=torch.float64),
                 lambda: torch.cumprod(ints.short(), 0, dtype=torch.int16)]
    for call in handed_on:
        before_fast, before = fast.served()["cumsum"] + fast.served()["cumprod"], on.counts()
        call()
        assert fast.served()["cumsum"] + fast.served()["cumprod"] == before_fast
        assert sum(v[0] for v in on.counts().values()) == sum(v[0] for v in before.values()) + 1
    was = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        before_fast = fast.served()["cumsum"]
        got = torch.cumsum(floats, 1)
        assert fast.served()["cumsum"] == before_fast + 1
        torch.testing.assert_close(got.cpu().double(), floats.cpu().double().cumsum(1), rtol=1e-6, atol=1e-5)
    finally:
        torch.use_deterministic_algorithms(was)
    # Autograd records above the kernels: the forward and cumsum's backward (a cumsum) both reach them.
    leaf = floats.clone().requires_grad_()
    before = fast.served()["cumsum"]
    torch.cumsum(leaf, 2).mul(floats).sum().backward()
    assert fast.served()["cumsum"] >= before + 2
    torch.testing.assert_close(leaf.grad, floats.flip(2).cumsum(2).flip(2))
    on.disable()
    assert not fast.is_enabled()
    on.enable()


def test_torch_compile_fullgraph_reaches_scan_zoo(torch, on):
    """Inductor's own scans give way to its fallbacks while the switch is on: the compiled graph
    calls the aten operators, which are scan_zoo's."""
    torch.compiler.reset()

    def f(x):
        return torch.cumsum(x, 1) * 2, torch.cummax(x, 0).indices, torch.logcumsumexp(x, 1)

    x = torch.randint(-50, 51, (256, 4096), device="cuda").float() / 8
    compiled = torch.compile(f, fullgraph=True)
    before = [served(on, name)[0] for name in ("cumsum", "cummax", "logcumsumexp")]
    got = compiled(x)
    after = [served(on, name)[0] for name in ("cumsum", "cummax", "logcumsumexp")]
    assert all(a > b for a, b in zip(after, before)), (before, after)
    want = f(x)
    assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])
    torch.testing.assert_close(got[2], want[2])
    torch.compiler.reset()


def test_cuda_graph_capture_and_replay(torch, on):
    static_x = torch.randint(-9, 10, (64, 131072), device="cuda", dtype=torch.int32)
    torch.cumsum(static_x, 1)  # warm up outside the capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_y = torch.cumsum(static_x, 1)
        static_v = torch.cummin(static_x, 1).values
    for _ in range(3):
        static_x.copy_(torch.randint(-9, 10, static_x.shape, device="cuda", dtype=torch.int32))
        static_y.fill_(-1)
        graph.replay()
        torch.cuda.synchronize()
        cpu = static_x.cpu()
        assert torch.equal(static_y.cpu(), cpu.cumsum(1)) and torch.equal(static_v.cpu(), cpu.cummin(1).values)


# Where the deterministic mode's look-backs run (one line of 2^24 elements: the row kernel, its one row
# of 64 windows; rows of several windows; columns and a middle axis of many bands; a complex sum as
# pairs of floats), each with a float op of every kind.
_DETERMINISTIC_CALLS = [((1 << 24,), 0, "cumsum", "float32"), ((4, 1 << 21), 1, "cumsum", "float32"),
                        ((1 << 20, 16), 0, "cumsum", "float32"), ((4, 65536, 32), 1, "cumsum", "float64"),
                        ((8, 1 << 19), 1, "cumsum", "complex64"), ((4, 1 << 20), 1, "cumsum", "bfloat16"),
                        ((8, 1 << 20), 1, "cumprod", "float32"), ((1 << 21, 8), 0, "logcumsumexp", "float32")]


@pytest.mark.parametrize("shape, dim, op, dtype", _DETERMINISTIC_CALLS)
def test_deterministic_mode_is_bit_identical(torch, on, shape, dim, op, dtype):
    """Under torch.use_deterministic_algorithms(True) scan_zoo serves float scans in its fixed-order
    look-back: five runs give the same bits, near torch's CPU kernel in float64; an integer sum
    stays served and exact."""
    generator = torch.Generator(device="cuda").manual_seed(11)
    x = torch.randn(shape, generator=generator, device="cuda", dtype=getattr(torch, dtype))
    if op == "cumprod":
        x = 1 + x / 1000  # products of a million factors that stay finite
    function = getattr(torch, op)
    was = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        before = served(on, op)
        first = function(x, dim)
        runs = [function(x, dim) for _ in range(4)]
        after = served(on, op)
        ints = torch.randint(-9, 10, (64, 100000), generator=generator, device="cuda")
        int_sums = torch.cumsum(ints, 1)
    finally:
        torch.use_deterministic_algorithms(was)
    assert after[0] - before[0] == 5 and after[1] == before[1], (before, after)  # all served
    for again in runs:
        assert torch.equal(again.view(torch.uint8), first.view(torch.uint8))  # bit for bit
    # Near the exact result: float32's rounding over partial sums of a random walk, bfloat16's once.
    wide = torch.complex128 if x.is_complex() else torch.float64
    want = function(x.cpu().to(wide), dim)
    torch.testing.assert_close(first.cpu().to(wide), want, rtol=1e-2 if dtype == "bfloat16" else 1e-3,
                               atol=1e-3 * shape[dim] ** 0.5)
    assert torch.equal(int_sums.cpu(), ints.cpu().cumsum(1))


def test_what_scan_zoo_lacks_falls_through_to_torch(torch, on, switch):
    """An in-place scan of a strided tensor (scan_zoo scans in place only what is contiguous)."""
    x = torch.randint(-9, 10, (1000, 8), device="cuda").t()  # [8, 1000], not contiguous
    copy = x.clone().t().contiguous().t()
    before = served(on, "cumsum")
    x.cumsum_(1)
    assert served(on, "cumsum")[1] == before[1] + 1
    with switch.enabled(False):
        assert torch.equal(x, copy.cumsum_(1))


def test_torch_errors_stay_torch_errors(torch, switch):
    """With the switch on, a bad call raises what torch raises without it, word for word."""
    x = torch.randn(4, 5, device="cuda")
    calls = [lambda: torch.cumsum(x, 5), lambda: torch.cumsum(x, 0, out=torch.empty(4, 5, device="cuda",
                                                                                      dtype=torch.int32),
                                                              dtype=torch.float64),
             lambda: torch.cummax(x, -3), lambda: torch.logcumsumexp(x.int(), 0)]
    for call in calls:
        messages = []
        for on in (False, True):
            with switch.enabled(on):
                with pytest.raises((RuntimeError, IndexError, TypeError)) as raised:
                    call()
                messages.append((type(raised.value), str(raised.value).splitlines()[0]))
        assert messages[0] == messages[1]


def test_the_package_functions_refuse_bad_input_with_the_switch_off(torch, switch):
    with switch.enabled(False):
        with pytest.raises(ValueError, match="x is on cpu"):
            scan_zoo.cumprod(torch.ones(3), 0)
        with pytest.raises(TypeError, match="no code for int32 input"):
            scan_zoo.logcumsumexp(torch.ones(3, dtype=torch.int32, device="cuda"), 0)
        with pytest.raises(IndexError, match="dim 2 is out of range"):
            scan_zoo.logcumsumexp(torch.ones(3, 4, device="cuda"), 2)
        with pytest.raises(ValueError, match="out has shape"):
            scan_zoo.cummax(torch.ones(3, 4, device="cuda"), 1, out=(torch.empty(4, 3, device="cuda"),
                                                                     torch.empty(3, 4, dtype=torch.int64,
                                                                                 device="cuda")))


def test_disable_gives_torch_its_kernels_back(torch, switch):
    switch.enable()
    switch.disable()
    assert not switch.is_enabled()
    before = switch.counts()
    torch.cumsum(torch.arange(10, device="cuda"), 0)
    assert switch.counts() == before


def test_the_environment_variable_and_the_runner_turn_it_on(torch, tmp_path):
    """SCAN_ZOO_TORCH=1 at `import scan_zoo`; `python -m scan_zoo.torch PROGRAM` for a program that
    never imports scan_zoo."""
    check = "import torch; torch.cumsum(torch.arange(10, device='cuda'), 0); " \
            "import sys; print(sys.modules['scan_zoo.torch'].counts()['cumsum'][0])"
    env = dict(os.environ, SCAN_ZOO_TORCH="1")
    result = subprocess.run([sys.executable, "-c", "import scan_zoo; " + check], capture_output=True, text=True,
                            timeout=300, env=env)
    assert result.returncode == 0 and result.stdout.strip() == "1", result.stderr
    program = tmp_path / "program.py"
    program.write_text(textwrap.dedent(check.replace("; ", "\n")) + "\nassert sys.argv[1:] == ['--flag']\n")
    result = subprocess.run([sys.executable, "-m", "scan_zoo.torch", str(program), "--flag"], capture_output=True,
                            text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 0 and result.stdout.strip() == "1", result.stderr
    result = subprocess.run([sys.executable, "-m", "scan_zoo.torch"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 2 and "usage: python -m scan_zoo.torch PROGRAM.py" in result.stderr
