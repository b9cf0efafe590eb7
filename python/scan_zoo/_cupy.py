"""CuPy arrays: the scans on the current stream of the array's device (cupy.cuda.get_current_stream),
outputs and workspaces from CuPy's memory pool, no synchronization."""
import cupy

from . import _core, _dtypes
from ._extension_loader import extension

_WORKSPACES = _core.Workspaces(extension)


def dtype_name(dtype):
    return cupy.dtype(dtype).name


def check_cuda(x, function, what="x"):
    if not isinstance(x, cupy.ndarray):
        raise TypeError(f"scan_zoo.{function}: {what} must be a cupy.ndarray, not {type(x).__name__}")


def is_contiguous(x):
    return x.flags.c_contiguous


def _launch_facts(x):
    device = x.device.id
    with x.device:
        stream = cupy.cuda.get_current_stream()
        capturing = stream.is_capturing()

    def allocate(nbytes):
        with x.device:
            buffer = cupy.empty(nbytes, dtype=cupy.uint8)
        return buffer, buffer.data.ptr

    return device, stream.ptr, capturing, allocate


def scan(x, op, dim, out_dtype, exclusive, reverse, out=None):
    x = cupy.ascontiguousarray(x)  # the one copy a strided input costs
    if out is None:
        with x.device:
            out = cupy.empty(x.shape, dtype=out_dtype)
    lines, _ = _core.lines_of(tuple(x.shape), dim, "scan")
    _core.run_scan(extension, _WORKSPACES, op, dtype_name(x.dtype), dtype_name(out.dtype), lines, exclusive,
                   reverse, x.data.ptr, out.data.ptr, *_launch_facts(x))
    return out


def linear_recurrence(a, b, dim, reverse):
    a, b = cupy.ascontiguousarray(a), cupy.ascontiguousarray(b)
    state = _dtypes.recurrence_state_dtype(dtype_name(a.dtype), dtype_name(b.dtype))
    with a.device:
        h = cupy.empty(a.shape, dtype=state)
    lines, _ = _core.lines_of(tuple(a.shape), dim, "linear_recurrence")
    _core.run_recurrence(extension, _WORKSPACES, dtype_name(a.dtype), state, lines, reverse, a.data.ptr, b.data.ptr,
                         h.data.ptr, *_launch_facts(a))
    return h
