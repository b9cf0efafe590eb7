"""NumPy 2's dtype rules for cumsum, cumprod, cumulative_sum and cumulative_prod, framework-free
(dtype names such as "int64"), for scan_zoo.cupy (cupy.py): which dtype the elements accumulate
in, and how scan_zoo's cumsum and cumprod reach it (tests/test_cupy_rules.py checks both against
numpy itself, for every dtype).
"""
from . import _dtypes

# NumPy's default accumulation, where it is not the input's own dtype: bool and the integers
# narrower than the default integer (int64, NumPy's intp on the 64-bit platforms CUDA runs on)
# widen to it, the unsigned ones to uint64; int64, uint64, the floats and complex are kept.
WIDENED = {"bool": "int64", "int8": "int64", "int16": "int64", "int32": "int64",
           "uint8": "uint64", "uint16": "uint64", "uint32": "uint64"}
# The first element of include_initial=True: the operator's identity.
IDENTITIES = {"sum": 0, "prod": 1}


def default_dtype(in_dtype):
    """The dtype NumPy's cumsum and cumprod of an `in_dtype` array accumulate in and return."""
    return WIDENED.get(in_dtype, in_dtype)


def accumulation_dtype(in_dtype, dtype, out_dtype):
    """The dtype NumPy accumulates in: dtype= when given (a name, or None); else, with an out= of
    `out_dtype`, the promotion of the input's dtype and out's (NumPy's type resolution for
    add.accumulate and multiply.accumulate with out=: an int32 input into a float32 out
    accumulates in float64, a uint64 input into an int64 out in float64); else the default. The
    result is then cast into out, whatever its dtype."""
    if dtype is not None:
        return dtype
    if out_dtype is not None:
        import numpy  # CuPy's own dependency: here, so that the rules above need no NumPy
        return numpy.promote_types(in_dtype, out_dtype).name
    return default_dtype(in_dtype)


def converted_first(function, op, in_dtype, accumulated):
    """The dtype an `in_dtype` input is converted to before scan_zoo's cumsum or cumprod (op "sum"
    or "prod") accumulates it as `accumulated`: the input's own where _dtypes.scan_plan has a way
    from it (a kernel for the pair, or its own casts), else `accumulated` itself (NumPy's rule:
    each element converted, then accumulated; a float to int8, a complex to its real part).
    TypeError where scan_zoo has no code for the accumulation."""
    # A bool accumulation of another dtype is converted here first: NumPy converts each element,
    # so 1 + -1 accumulates as True or True. (scan_plan's own bool plan converts first too since
    # ba465db; converting here keeps the rule visible where NumPy's rules live, at no extra cast.)
    candidates = (accumulated,) if accumulated == "bool" != in_dtype else (in_dtype, accumulated)
    for candidate in candidates:
        try:
            _dtypes.scan_plan(op, candidate, accumulated)
            return candidate
        except TypeError as error:
            refusal = error
    raise TypeError(f"scan_zoo.cupy.{function}: no code to accumulate {in_dtype} as {accumulated} ({refusal})")
