"""CuPy arrays: the scans on the current stream of the array's device (cupy.cuda.get_current_stream),
outputs and workspaces from CuPy's memory pool, no synchronization."""
import cupy

from . import _core, _dtypes
from ._extension_loader import extension

_WORKSPACES = _core.Workspaces(extension)


dtype_name = _dtypes.numpy_dtype_name  # CuPy's dtypes are NumPy's


def check_cuda(x, function, what="x"):
    if not isinstance(x, cupy.ndarray):
        raise TypeError(f"scan_zoo.{function}: {what} must be a cupy.ndarray, not {type(x).__name__}")


def is_contiguous(x):
    return x.flags.c_contiguous


def device_index(x):
    return x.data.device_id


def _allocate(nbytes, device):
    with cupy.cuda.Device(device):
        buffer = cupy.empty(nbytes, dtype=cupy.uint8)
    return buffer, buffer.data.ptr


def _on_device(device, shape, dtype):
    if device == cupy.cuda.runtime.getDevice():
        return cupy.empty(shape, dtype=dtype)
    with cupy.cuda.Device(device):
        return cupy.empty(shape, dtype=dtype)


def cast(x, name, out=None):
    """x converted to dtype `name` (into `out` where given: one kernel)."""
    if out is None:
        return x.astype(name)
    cupy.copyto(out, x, casting="unsafe")
    return out


def extreme(x, op, dim, lines, out=None):
    """cummax and cummin: (values, indices), the indices int64, as torch.cummax gives them."""
    x = cupy.ascontiguousarray(x)
    device = x.data.device_id
    values, indices = out if out is not None else (_on_device(device, x.shape, x.dtype),
                                                   _on_device(device, x.shape, cupy.int64))
    name = dtype_name(x.dtype)
    _core.run_scan(extension, _WORKSPACES, op, name, name, lines, False, False, x.data.ptr, values.data.ptr, device,
                   cupy.cuda.get_current_stream(device).ptr, _allocate, indices.data.ptr)
    return values, indices


def scan(x, op, dim, lines, out_dtype, exclusive, reverse, out=None):
    x = cupy.ascontiguousarray(x)  # the one copy a strided input costs
    device = x.data.device_id
    if out is None:
        out = _on_device(device, x.shape, out_dtype)
    _core.run_scan(extension, _WORKSPACES, op, dtype_name(x.dtype), dtype_name(out.dtype), lines, exclusive, reverse,
                   x.data.ptr, out.data.ptr, device, cupy.cuda.get_current_stream(device).ptr, _allocate)
    return out


def linear_recurrence(a, b, dim, lines, state, reverse):
    a, b = cupy.ascontiguousarray(a), cupy.ascontiguousarray(b)
    device = a.data.device_id
    h = _on_device(device, a.shape, state)
    _core.run_recurrence(extension, _WORKSPACES, dtype_name(a.dtype), state, lines, reverse, a.data.ptr, b.data.ptr,
                         h.data.ptr, device, cupy.cuda.get_current_stream(device).ptr, _allocate)
    return h


def segmented_scan(x, offsets, out_dtype, exclusive, out=None):
    x, offsets = cupy.ascontiguousarray(x), cupy.ascontiguousarray(offsets)
    device = x.data.device_id
    if out is None:
        out = _on_device(device, x.shape, out_dtype)
    _core.run_segmented(extension, _WORKSPACES, dtype_name(x.dtype), dtype_name(out.dtype), dtype_name(offsets.dtype),
                        x.size, offsets.size - 1, exclusive, x.data.ptr, out.data.ptr, offsets.data.ptr, device,
                        cupy.cuda.get_current_stream(device).ptr, _allocate)
    return out
