"""Which dtypes each function accepts and produces, framework-free (strings such as "float32").

The numbers are the extension's (python/src/entry_points.hpp, enum Dtype and enum Operator).
Every combination listed here has code in the extension; anything else is refused here, before
any GPU work, with the combinations that are there.
"""

DTYPE_CODES = {"int32": 0, "int64": 1, "float32": 2, "float64": 3, "bfloat16": 4, "float16": 5, "bool": 6, "uint8": 7,
               "int8": 8, "int16": 9}
OPERATOR_CODES = {"sum": 0, "max": 1, "min": 2, "prod": 3, "logsumexp": 4}
# The function each operator serves, for messages.
FUNCTIONS = {"sum": "cumsum", "max": "cummax", "min": "cummin", "prod": "cumprod", "logsumexp": "logcumsumexp"}

# cumsum and cumprod: input -> the outputs it has code for; the first is the default, as
# torch.cumsum and numpy.cumsum choose it (integers and bool widened to int64, floats kept). Any
# other dtype= that torch allows is served by casting the input to it first, where that dtype has
# code of its own (scan_plan).
SUM_OUTPUTS = {
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
PROD_OUTPUTS = {
    "int32": ("int64",),
    "int64": ("int64",),
    "float32": ("float32",),
    "float64": ("float64",),
    "bfloat16": ("bfloat16",),
    "float16": ("float16",),
    "bool": ("int64",),
    "uint8": ("int64",),
}
# The pairs built both ways, reverse included (python/src/typed_calls.cuh, Built::Both): cumsum's
# first ones, which its gradient and segmented_cumsum use; every other pair is forward only.
REVERSIBLE_SUMS = frozenset((i, o) for i, outs in SUM_OUTPUTS.items() if i not in ("bool", "uint8", "int8", "int16")
                            for o in outs)
# segmented_cumsum: its input -> outputs (the reversible sums) and the offsets' dtypes.
SEGMENTED_OUTPUTS = {i: outs for i, outs in SUM_OUTPUTS.items() if (i, outs[0]) in REVERSIBLE_SUMS}
OFFSET_TYPES = ("int32", "int64")
# logcumsumexp: the output is the input's dtype.
LOGSUMEXP_TYPES = ("float32", "float64", "bfloat16", "float16")
# cummax and cummin: values of the input's dtype, int64 indices.
EXTREME_TYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64", "bfloat16", "float16")
# The longest line cummax and cummin take (32-bit positions: python/src/extremes.cu).
EXTREME_MAX_LENGTH = 2**31 - 1
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
    """{input dtype: the outputs it has code for} of operator `op`."""
    return {"sum": SUM_OUTPUTS, "prod": PROD_OUTPUTS}.get(op) or \
        {t: (t,) for t in (LOGSUMEXP_TYPES if op == "logsumexp" else EXTREME_TYPES)}


def scan_plan(op, in_dtype, dtype, reverse=False):
    """(the dtype the input is scanned as, the output's dtype) of a scan with operator `op` of an
    `in_dtype` array when `dtype` (a name or None) is asked. torch's and numpy's rule for dtype=:
    the input converted to dtype, then scanned in it; an (input, dtype) pair with code of its own
    does both in one pass, any other goes through a cast to dtype first. TypeError when there is
    no code for it."""
    function = FUNCTIONS[op]
    outputs = outputs_of(op)
    taken = outputs.get(in_dtype)
    if taken is None:
        raise TypeError(f"scan_zoo.{function}: no code for {in_dtype} input; it takes {', '.join(outputs)} "
                        f"(convert first, e.g. x.to(torch.int32) or x.astype('int32'))")
    if dtype is None or dtype in taken:
        plan = (in_dtype, taken[0] if dtype is None else dtype)
    elif op in ("sum", "prod") and dtype in outputs.get(dtype, ()):
        plan = (dtype, dtype)  # cast first
    elif op in ("sum", "prod"):
        raise TypeError(f"scan_zoo.{function}: no code for {in_dtype} input with dtype={dtype}; {in_dtype} input "
                        f"gives {' or '.join(taken)}, and dtype= takes {', '.join(d for d in outputs if d in outputs[d])}")
    else:
        raise TypeError(f"scan_zoo.{function}: the output has the input's dtype ({in_dtype}), not {dtype}")
    if reverse and (op != "sum" or plan not in REVERSIBLE_SUMS):
        raise TypeError(f"scan_zoo.{function}: reverse=True has no code for {plan[0]} -> {plan[1]}; reverse sums "
                        f"take {', '.join(sorted({i for i, _ in REVERSIBLE_SUMS}))} (or flip the input)")
    return plan


def check_segmented_dtypes(in_dtype, dtype):
    """segmented_cumsum's output dtype: the reversible sums' pairs."""
    outputs = SEGMENTED_OUTPUTS.get(in_dtype)
    if outputs is None:
        raise TypeError(f"scan_zoo.segmented_cumsum: no code for {in_dtype} input; it takes {', '.join(SEGMENTED_OUTPUTS)}")
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
