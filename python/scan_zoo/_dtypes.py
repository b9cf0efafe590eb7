"""Which dtypes each function accepts and produces, framework-free (strings such as "float32").

The numbers are the extension's (python/src/entry_points.hpp, enum Dtype and enum Operator).
Three layers, from the kernels up:
- the kernels: the (input, output) pairs the extension has code for (KERNEL_SUMS, ...);
- views: the same bytes scanned by another kernel (KERNEL_VIEWS): a uint64 sum or product is
  int64's bit for bit (two's-complement arithmetic wraps alike), and a complex sum is two float
  sums, of the real and the imaginary parts (the inner extent doubled);
- plans (scan_plan): any input and dtype= that torch's rules take, as a cast before the kernel
  (torch's rule: the input converted to dtype=, then scanned in it), the kernel, and a cast after
  it where the output is an integer narrower than the kernel's (an int64 sum truncated to int8
  is the int8 sum bit for bit, since wrapping arithmetic commutes with truncation; for bool the
  input is made bool first, and the int64 sum of its 0s and 1s, made bool, is the running or,
  the product the running and).
Anything else is refused here, before any GPU work, with what is taken.
"""

DTYPE_CODES = {"int32": 0, "int64": 1, "float32": 2, "float64": 3, "bfloat16": 4, "float16": 5, "bool": 6, "uint8": 7,
               "int8": 8, "int16": 9, "complex64": 10, "complex128": 11}
OPERATOR_CODES = {"sum": 0, "max": 1, "min": 2, "prod": 3, "logsumexp": 4}
# The function each operator serves, for messages.
FUNCTIONS = {"sum": "cumsum", "max": "cummax", "min": "cummin", "prod": "cumprod", "logsumexp": "logcumsumexp"}

# Every dtype the functions know (torch's names; NumPy's but for bfloat16, which is ml_dtypes').
INTEGERS = ("bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64")
FLOATS = ("float16", "bfloat16", "float32", "float64")
COMPLEXES = ("complex64", "complex128")
DTYPES = INTEGERS + FLOATS + COMPLEXES

# ---- the kernels ----

# cumsum: input -> the outputs the extension has code for; the first is torch's default
# (integers and bool widened to int64, floats kept).
KERNEL_SUMS = {
    "int32": ("int64", "int32"),
    "int64": ("int64",),
    "float32": ("float32",),
    "float64": ("float64",),
    "bfloat16": ("bfloat16", "float32"),
    "float16": ("float16", "float32"),
    "bool": ("int64",),
    "uint8": ("int64",),
    "int8": ("int64",),
    "int16": ("int64",),
}
# cumprod's, forward only (complex: the schoolbook product, torch's and NumPy's).
KERNEL_PRODUCTS = {
    "int32": ("int64",),
    "int64": ("int64",),
    "float32": ("float32",),
    "float64": ("float64",),
    "bfloat16": ("bfloat16",),
    "float16": ("float16",),
    "bool": ("int64",),
    "uint8": ("int64",),
    "complex64": ("complex64",),
    "complex128": ("complex128",),
}
# The kernel pairs built both ways, reverse included (python/src/typed_calls.cuh, Built::Both):
# cumsum's of int32, int64 and the floats, which its gradient and segmented_cumsum use; every
# other pair is forward only.
REVERSIBLE_KERNEL_SUMS = frozenset((i, o) for i, outs in KERNEL_SUMS.items()
                                   if i not in ("bool", "uint8", "int8", "int16") for o in outs)
# logcumsumexp: the output is the input's dtype (complex: operators.cuh, LogSumExp<Complex<T>>,
# says which of the values congruent modulo 2 pi i it gives).
LOGSUMEXP_TYPES = ("float32", "float64", "bfloat16", "float16", "complex64", "complex128")
# cummax and cummin: values of the input's dtype, int64 indices.
EXTREME_TYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64", "bfloat16", "float16")
# The longest line cummax and cummin take (32-bit positions: python/src/extremes.cu).
EXTREME_MAX_LENGTH = 2**31 - 1

# ---- views: (the dtype its kernel scans the bytes as, elements of that dtype per element) ----

KERNEL_VIEWS = {"sum": {"uint64": ("int64", 1), "complex64": ("float32", 2), "complex128": ("float64", 2)},
                "prod": {"uint64": ("int64", 1)}}


def kernel_view(op, dtype):
    """(the extension's dtype for `dtype`'s bytes under `op`, lanes per element)."""
    return KERNEL_VIEWS.get(op, {}).get(dtype, (dtype, 1))


def _with_views(kernels, op):
    """The kernels' table with the views added: every int64 output is also a uint64 one; a uint64
    input has int64's outputs; a complex input, which scans as its parts, gives its own dtype."""
    table = {i: outs + ("uint64",) if "int64" in outs else outs for i, outs in kernels.items()}
    for dtype, (kernel_dtype, lanes) in KERNEL_VIEWS[op].items():
        table[dtype] = table[kernel_dtype] if lanes == 1 else (dtype,)
    return table


# input -> the outputs it has code for (a kernel's or a view's); the first is torch's default.
SUM_OUTPUTS = _with_views(KERNEL_SUMS, "sum")
PROD_OUTPUTS = _with_views(KERNEL_PRODUCTS, "prod")
# What reverse=True takes: the pairs whose kernel pair is built both ways.
REVERSIBLE_SUMS = frozenset((i, o) for i, outs in SUM_OUTPUTS.items() for o in outs
                            if (kernel_view("sum", i)[0], kernel_view("sum", o)[0]) in REVERSIBLE_KERNEL_SUMS)
# segmented_cumsum: its input -> outputs (the reversible kernel sums) and the offsets' dtypes.
SEGMENTED_OUTPUTS = {i: outs for i, outs in KERNEL_SUMS.items() if (i, outs[0]) in REVERSIBLE_KERNEL_SUMS}
OFFSET_TYPES = ("int32", "int64")
# linear_recurrence: a's and b's dtype -> the state's (h's).
RECURRENCE_STATES = {"float32": "float32", "bfloat16": "float32", "float16": "float32", "float64": "float64"}

_NUMPY_NAMES = {}  # a NumPy dtype in any spelling -> its name


def numpy_dtype_name(dtype):
    """"float32" for numpy.float32, numpy.dtype("float32") or "float32" (CuPy's and JAX's dtypes are
    NumPy's): a dict lookup once seen, since numpy.dtype(...).name takes microseconds, a large part
    of a small scan's host time."""
    name = _NUMPY_NAMES.get(dtype)
    if name is None:
        import numpy  # here, not above: CuPy and JAX bring it, and a PyTorch caller never gets here
        name = _NUMPY_NAMES[dtype] = numpy.dtype(dtype).name
    return name


def outputs_of(op):
    """{input dtype: the outputs it has code for (a kernel's or a view's)} of operator `op`."""
    return {"sum": SUM_OUTPUTS, "prod": PROD_OUTPUTS}.get(op) or \
        {t: (t,) for t in (LOGSUMEXP_TYPES if op == "logsumexp" else EXTREME_TYPES)}


def default_output(dtype):
    """torch.cumsum's and torch.cumprod's output for an input of `dtype` without dtype=: integers
    and bool widened to int64, floats and complex kept."""
    return "int64" if dtype in INTEGERS else dtype


# The integer outputs a sum or product reaches through int64 and a cast after (the module's doc).
NARROWED = ("bool", "uint8", "int8", "int16", "int32", "uint16", "uint32")


def scan_plan(op, in_dtype, dtype, reverse=False):
    """How a scan with operator `op` of an `in_dtype` array is done when `dtype` (a name or None)
    is asked: (the dtype the input is cast to first, the kernel's output dtype, the result's
    dtype), each cast skipped where the dtypes are equal. torch's and numpy's rule for dtype=:
    the input converted to dtype, then scanned in it; an (input, dtype) pair with code of its own
    does both in one pass. TypeError when there is no way."""
    function = FUNCTIONS[op]
    outputs = outputs_of(op)
    if in_dtype not in DTYPES:
        raise TypeError(f"scan_zoo.{function}: no code for {in_dtype} input; it takes {', '.join(outputs)}")
    if op not in ("sum", "prod"):
        if in_dtype not in outputs:
            raise TypeError(f"scan_zoo.{function}: no code for {in_dtype} input; it takes {', '.join(outputs)} "
                            f"(convert first, e.g. x.to(torch.float32) or x.astype('float32'))")
        if dtype is not None and dtype != in_dtype:
            raise TypeError(f"scan_zoo.{function}: the output has the input's dtype ({in_dtype}), not {dtype}")
        if reverse:
            raise TypeError(f"scan_zoo.{function}: reverse=True has no code (flip the input)")
        return in_dtype, in_dtype, in_dtype
    target = default_output(in_dtype) if dtype is None else dtype
    if target not in DTYPES:
        raise TypeError(f"scan_zoo.{function}: dtype={target} is not a dtype it knows; it takes {', '.join(DTYPES)}")
    if in_dtype in COMPLEXES and target not in COMPLEXES:
        raise TypeError(f"scan_zoo.{function}: a {in_dtype} input with dtype={target} would drop the imaginary part "
                        f"(take x.real first)")
    if target in outputs.get(in_dtype, ()):
        plan = (in_dtype, target, target)  # one pass
    elif target in outputs.get(target, ()):
        plan = (target, target, target)  # cast first
    elif target == "bool" and in_dtype in INTEGERS:
        plan = ("bool", "int64", "bool")  # to bool first: truncation is no homomorphism onto bool's or/and
    elif target in NARROWED and in_dtype in INTEGERS:
        plan = (in_dtype if "int64" in outputs.get(in_dtype, ()) else "int64", "int64", target)
    elif in_dtype not in outputs and dtype is None:
        raise TypeError(f"scan_zoo.{function}: no code for {in_dtype} input; it takes "
                        f"{', '.join(d for d in DTYPES if d in outputs or d in INTEGERS)}")
    else:
        taken = outputs.get(in_dtype)
        known = f"{in_dtype} input gives {' or '.join(taken)}, and " if taken else ""
        raise TypeError(f"scan_zoo.{function}: no code for {in_dtype} input with dtype={target}; {known}dtype= takes "
                        f"{', '.join(d for d in outputs if d in outputs[d])}, and the narrower integers from an "
                        f"integer or bool input")
    if reverse and (op != "sum" or plan[:2] not in REVERSIBLE_SUMS):
        if op == "sum" and (plan[1], plan[1]) in REVERSIBLE_SUMS:
            return plan[1], plan[1], plan[2]  # cast first to the kernel's output, whose pair is reversible
        raise TypeError(f"scan_zoo.{function}: reverse=True has no code for {plan[0]} -> {plan[1]}; reverse sums "
                        f"take {', '.join(sorted({i for i, _ in REVERSIBLE_SUMS}))} (or flip the input)")
    return plan


def check_segmented_dtypes(in_dtype, dtype):
    """segmented_cumsum's output dtype: the reversible sums' pairs."""
    outputs = SEGMENTED_OUTPUTS.get(in_dtype)
    if outputs is None:
        raise TypeError(f"scan_zoo.segmented_cumsum: no code for {in_dtype} input; it takes "
                        f"{', '.join(SEGMENTED_OUTPUTS)}")
    if dtype is not None and dtype not in outputs:
        raise TypeError(f"scan_zoo.segmented_cumsum: no code for {in_dtype} input with dtype={dtype}; {in_dtype} input "
                        f"gives {' or '.join(outputs)}")
    return outputs[0] if dtype is None else dtype


def check_offsets_dtype(offsets_dtype):
    if offsets_dtype not in OFFSET_TYPES:
        raise TypeError(f"scan_zoo.segmented_cumsum: offsets are {offsets_dtype}; they must be "
                        f"{' or '.join(OFFSET_TYPES)}")


def recurrence_state_dtype(a_dtype, b_dtype):
    """The state's dtype for inputs a and b of these dtypes; TypeError for others."""
    if a_dtype != b_dtype:
        raise TypeError(f"scan_zoo.linear_recurrence: a and b must have one dtype, not {a_dtype} and {b_dtype}")
    state = RECURRENCE_STATES.get(a_dtype)
    if state is None:
        raise TypeError(f"scan_zoo.linear_recurrence: no code for {a_dtype} inputs; it takes "
                        f"{', '.join(RECURRENCE_STATES)}")
    return state
