"""The framework-free middle of the package: shapes and dims, the workspaces, the extension calls.

A framework adapter (_torch.py, _cupy.py) turns its arrays into the few facts these functions
need: a device pointer, a device index, the current stream as an integer, and a way to allocate
bytes on a device (from the framework's allocator, on its current stream). Every call here is
on the path of every scan: it is kept to dict lookups and a few calls into the extension.
"""
import atexit
import math

from . import _dtypes


def lines_of(shape, dim, function):
    """(outer, length, inner) of a contiguous array of `shape` scanned along `dim`, and the dim made
    non-negative. A 0-d array is one element (dim 0 or -1, as torch.cumsum takes it)."""
    ndim = len(shape)
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"scan_zoo.{function}: dim must be an int, not {type(dim).__name__}")
    rank = max(ndim, 1)
    if not -rank <= dim < rank:
        raise IndexError(f"scan_zoo.{function}: dim {dim} is out of range for an array of {ndim} dimensions "
                         f"(expected -{rank} to {rank - 1})")
    if ndim == 0:
        return (1, 1, 1), 0
    dim %= ndim
    return (math.prod(shape[:dim]), shape[dim], math.prod(shape[dim + 1:])), dim


class Workspaces:
    """One workspace per (device, stream): the library's scans keep bookkeeping in it that lets a
    scan skip zeroing it (an epoch), which holds only while its scans run in one stream's order.
    A stream capturing a CUDA graph gets a fresh workspace at every call instead, zeroed inside
    the captured work: a replay repeats the captured epoch, so reused memory would hold a previous
    replay's words with the same epoch."""

    def __init__(self, extension):
        self._extension = extension
        self._cache = {}
        # Handles freed before the interpreter's teardown, whose order nanobind cannot rely on.
        atexit.register(self.clear)

    def get(self, bytes_needed, device, stream, allocate):
        """A Workspace handle of at least bytes_needed bytes for this stream, and the buffer that
        must stay alive with it. allocate(bytes, device) returns (buffer, its device pointer)."""
        if self._extension.stream_is_capturing(stream):
            buffer, pointer = allocate(bytes_needed, device)
            return self._extension.Workspace(pointer, bytes_needed), buffer
        key = (device, stream)
        held = self._cache.get(key)
        if held is None or held[0].bytes < bytes_needed:
            # Grown by at least half, so that a slowly growing size does not reallocate each call.
            grown = bytes_needed if held is None else max(bytes_needed, held[0].bytes * 3 // 2)
            buffer, pointer = allocate(grown, device)
            held = (self._extension.Workspace(pointer, grown), buffer)
            self._cache[key] = held
        return held

    def clear(self):
        self._cache.clear()


_KERNEL_CODES = {}


def _kernel_codes(op, in_dtype, out_dtype):
    """The extension's codes for a scan of these dtypes (through their kernel views, _dtypes.py)
    and the lanes a line becomes: worked out once per dtype pair, a dict lookup after."""
    key = (op, in_dtype, out_dtype)
    codes = _KERNEL_CODES.get(key)
    if codes is None:
        (in_kernel, lanes), (out_kernel, _) = _dtypes.kernel_view(op, in_dtype), _dtypes.kernel_view(op, out_dtype)
        codes = _KERNEL_CODES[key] = (_dtypes.OPERATOR_CODES[op], _dtypes.DTYPE_CODES[in_kernel],
                                      _dtypes.DTYPE_CODES[out_kernel], lanes)
    return codes


def run_scan(extension, workspaces, op, in_dtype, out_dtype, lines, exclusive, reverse, in_ptr, out_ptr, device,
             stream, allocate, indices_ptr=0, deterministic=False):
    """Enqueues one scan (cumsum, cumprod, logcumsumexp, cummax, cummin: for these two also the
    int64 indices where indices_ptr is not 0) of a kernel's pair or a view's (_dtypes.py) on
    `stream`; nothing for an empty array. deterministic: the same bits in every run (the library's
    fixed-order look-back, for the floating-point scans whose bits depend on it)."""
    if math.prod(lines) == 0:
        return
    op_code, in_code, out_code, lanes = _kernel_codes(op, in_dtype, out_dtype)
    if lanes != 1:  # a complex line is two float lines, its parts side by side
        lines = (lines[0], lines[1], lines[2] * lanes)
    bytes_needed = extension.scan_workspace_bytes(op_code, in_code, out_code, *lines, deterministic)
    workspace, _buffer = workspaces.get(max(bytes_needed, 1), device, stream, allocate)
    extension.scan(op_code, in_code, out_code, *lines, exclusive, reverse, deterministic, in_ptr, out_ptr, indices_ptr,
                   workspace, device, stream)


def run_recurrence(extension, workspaces, in_dtype, state_dtype, lines, reverse, a_ptr, b_ptr, h_ptr, device,
                   stream, allocate):
    """Enqueues one linear recurrence on `stream`; nothing for an empty array."""
    if math.prod(lines) == 0:
        return
    in_code, state_code = _dtypes.DTYPE_CODES[in_dtype], _dtypes.DTYPE_CODES[state_dtype]
    bytes_needed = extension.recurrence_workspace_bytes(in_code, state_code, *lines)
    workspace, _buffer = workspaces.get(max(bytes_needed, 1), device, stream, allocate)
    extension.linear_recurrence(in_code, state_code, *lines, reverse, a_ptr, b_ptr, h_ptr, workspace, device,
                                stream)


def run_recurrence_backward(extension, workspaces, in_dtype, state_dtype, lines, reverse, a_ptr, h_ptr, dh_ptr,
                            da_ptr, db_ptr, device, stream, allocate):
    """Enqueues the backward of one linear recurrence along rows (lines' inner 1) on `stream`: da
    and db (the input's dtype) from a, h and dh (the state's); nothing for an empty array."""
    if math.prod(lines) == 0:
        return
    if lines[2] != 1:
        raise ValueError(f"scan_zoo: the fused recurrence backward runs along rows (the last axis), not lines {lines}")
    in_code, state_code = _dtypes.DTYPE_CODES[in_dtype], _dtypes.DTYPE_CODES[state_dtype]
    bytes_needed = extension.recurrence_workspace_bytes(in_code, state_code, *lines)
    workspace, _buffer = workspaces.get(max(bytes_needed, 1), device, stream, allocate)
    extension.linear_recurrence_backward(in_code, state_code, *lines, reverse, a_ptr, h_ptr, dh_ptr, da_ptr, db_ptr,
                                         workspace, device, stream)


def run_segmented(extension, workspaces, in_dtype, out_dtype, offsets_dtype, n, segments, exclusive, in_ptr, out_ptr,
                  offsets_ptr, device, stream, allocate):
    """Enqueues one segmented sum on `stream` (segments + 1 offsets); nothing for an empty array or
    no segment."""
    if n == 0 or segments == 0:
        return
    in_code, out_code = _dtypes.DTYPE_CODES[in_dtype], _dtypes.DTYPE_CODES[out_dtype]
    bytes_needed = extension.segmented_workspace_bytes(in_code, out_code, n)
    workspace, _buffer = workspaces.get(max(bytes_needed, 1), device, stream, allocate)
    extension.segmented_scan(in_code, out_code, _dtypes.DTYPE_CODES[offsets_dtype], n, segments, exclusive, in_ptr,
                             out_ptr, offsets_ptr, workspace, device, stream)
