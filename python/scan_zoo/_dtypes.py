"""Which dtypes each function accepts and produces, framework-free (strings such as "float32").

The numbers are the extension's (python/src/entry_points.hpp, enum Dtype and enum Operator).
Every combination listed here has code in the extension; anything else is refused here, before
any GPU work, with the combinations that are there.
"""

DTYPE_CODES = {"int32": 0, "int64": 1, "float32": 2, "float64": 3, "bfloat16": 4, "float16": 5}
OPERATOR_CODES = {"sum": 0, "max": 1, "min": 2}

# cumsum: input -> the outputs it may have; the first is the default, as torch.cumsum and
# numpy.cumsum choose it (integers widened to int64, floats kept).
SUM_OUTPUTS = {
    "int32": ("int64", "int32"),
    "int64": ("int64",),
    "float32": ("float32",),
    "float64": ("float64",),
    "bfloat16": ("bfloat16", "float32"),
    "float16": ("float16", "float32"),
}
# segmented_cumsum: the offsets' dtypes (the outputs are cumsum's).
OFFSET_TYPES = ("int32", "int64")
# cummax and cummin: the output is the input's dtype.
EXTREME_TYPES = ("int32", "int64", "float32", "float64", "bfloat16", "float16")
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


def scan_output_dtype(op, in_dtype, dtype):
    """The output dtype of a scan with operator `op` of an `in_dtype` array when `dtype` (a name or
    None) is asked; TypeError when the extension has no code for it."""
    if op == "sum":
        outputs = SUM_OUTPUTS.get(in_dtype)
        if outputs is None:
            raise TypeError(f"scan_zoo.cumsum: no code for {in_dtype} input; it takes "
                            f"{', '.join(SUM_OUTPUTS)} (convert first, e.g. x.to(torch.int32) or x.astype('int32'))")
        if dtype is None:
            return outputs[0]
        if dtype not in outputs:
            raise TypeError(f"scan_zoo.cumsum: no code for {in_dtype} input with dtype={dtype}; "
                            f"{in_dtype} input gives {' or '.join(outputs)}")
        return dtype
    if in_dtype not in EXTREME_TYPES:
        raise TypeError(f"scan_zoo.cum{op}: no code for {in_dtype} input; it takes {', '.join(EXTREME_TYPES)}")
    if dtype is not None and dtype != in_dtype:
        raise TypeError(f"scan_zoo.cum{op}: the output has the input's dtype ({in_dtype}), not {dtype}")
    return in_dtype


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
