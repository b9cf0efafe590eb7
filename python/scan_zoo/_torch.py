"""PyTorch tensors: the scans as custom operators (torch.library), so that torch.compile traces
them and CUDA graphs capture them, with autograd.

Operators (namespace scan_zoo):
  scan(x, op, dim, out_dtype, exclusive, reverse) -> Tensor          a new output (cumsum, cumprod,
                                                                      logcumsumexp)
  scan_out(x, op, dim, exclusive, reverse, out) -> ()                 into `out` (mutated)
  extreme(x, op, dim) -> (Tensor, Tensor)                             cummax, cummin: values, indices
  extreme_out(x, op, dim, values, indices) -> ()                      into them (mutated)
  linear_recurrence(a, b, dim, reverse) -> Tensor                     the state h
  linear_recurrence_backward(a, h, grad, dim, reverse) -> (Tensor, Tensor)   its gradients along
                                                                      the last axis: da, db
  segmented_scan(x, offsets, out_dtype, exclusive) -> Tensor          segmented_cumsum, a new output
  segmented_scan_out(x, offsets, exclusive, out) -> ()                into `out` (mutated)
Each runs on the current stream of the input's device (torch.cuda.current_stream), allocates
through PyTorch's caching allocator, and never synchronizes. In plain eager calls the package
skips the dispatcher and calls the extension itself (_plain_eager), as the operators' CUDA
kernels do. Gradients: cumsum's is the scan of the output's gradient in the other direction
(inclusive stays inclusive, exclusive exclusive), segmented_cumsum's the same within each segment;
cumprod's and logcumsumexp's are torch's own formulas (torch.autograd over torch.cumprod and
torch.logcumsumexp, recomputed); cummax's and cummin's put each value's gradient on its index
(scatter_add, as torch's); the recurrence's is the adjoint equation, the recurrence run
backwards, in one fused kernel along the last axis (linear_recurrence_backward) and over the
shifted multipliers along any other, below.
"""
import torch

from torch._C import _cuda_getCurrentRawStream as _raw_stream  # a device's current stream, as an integer

from . import _core, _dtypes
from ._extension_loader import extension

_WORKSPACES = _core.Workspaces(extension)
_TORCH_DTYPES = {name: getattr(torch, name) for name in _dtypes.DTYPES}
_NAMES = {dtype: name for name, dtype in _TORCH_DTYPES.items()}


def dtype_name(dtype):
    """"float32" for torch.float32 (a dict lookup, which torch.compile traces without a break)."""
    if isinstance(dtype, str):
        return dtype
    name = _NAMES.get(dtype)
    return name if name is not None else str(dtype).removeprefix("torch.")


def check_cuda(x, function, what="x"):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"scan_zoo.{function}: {what} must be a torch.Tensor, not {type(x).__name__}")
    if not x.is_cuda:
        raise ValueError(f"scan_zoo.{function}: {what} is on {x.device}; scan_zoo runs on CUDA devices "
                         f"(move it with .cuda(), or use torch's own function on the CPU)")


def is_contiguous(x):
    return x.is_contiguous()


def device_index(x):
    return x.get_device()


def _allocate(nbytes, device):
    buffer = torch.empty(nbytes, dtype=torch.uint8, device=torch.device("cuda", device))
    return buffer, buffer.data_ptr()


def _enqueue_scan(x, op, lines, out, exclusive, reverse):
    """x and out contiguous, on one device: the scan on that device's current stream, the same bits
    in every run under torch.use_deterministic_algorithms(True)."""
    device = x.get_device()
    _core.run_scan(extension, _WORKSPACES, op, dtype_name(x.dtype), dtype_name(out.dtype), lines, exclusive, reverse,
                   x.data_ptr(), out.data_ptr(), device, _raw_stream(device), _allocate,
                   deterministic=torch.are_deterministic_algorithms_enabled())


def _enqueue_recurrence(a, b, lines, h, reverse):
    device = a.get_device()
    _core.run_recurrence(extension, _WORKSPACES, dtype_name(a.dtype), dtype_name(h.dtype), lines, reverse,
                         a.data_ptr(), b.data_ptr(), h.data_ptr(), device, _raw_stream(device), _allocate)


def _enqueue_recurrence_backward(a, h, grad, lines, grad_a, grad_b, reverse):
    device = a.get_device()
    _core.run_recurrence_backward(extension, _WORKSPACES, dtype_name(a.dtype), dtype_name(h.dtype), lines, reverse,
                                  a.data_ptr(), h.data_ptr(), grad.data_ptr(), grad_a.data_ptr(), grad_b.data_ptr(),
                                  device, _raw_stream(device), _allocate)


def _enqueue_segmented(x, offsets, out, exclusive):
    device = x.get_device()
    _core.run_segmented(extension, _WORKSPACES, dtype_name(x.dtype), dtype_name(out.dtype), dtype_name(offsets.dtype),
                        x.numel(), offsets.numel() - 1, exclusive, x.data_ptr(), out.data_ptr(), offsets.data_ptr(),
                        device, _raw_stream(device), _allocate)


def _plain_eager(*tensors):
    """True where calling the extension directly does what the dispatcher would: plain tensors,
    no gradient to record, no torch.compile tracing, no dispatch mode (a FakeTensor's, a
    profiler's) and no functorch transform (vmap, grad). The operators below serve every other
    case; the direct call saves their dispatch, most of the host time a call costs through them
    (bench/NOTES.md, "From Python")."""
    if torch.compiler.is_compiling() or torch._C._len_torch_dispatch_stack() or \
            torch._C._are_functorch_transforms_active():
        return False
    recording = torch.is_grad_enabled()
    for t in tensors:
        if type(t) is not torch.Tensor or (recording and t.requires_grad):
            return False
    return True


@torch.library.custom_op("scan_zoo::scan", mutates_args=(), device_types="cuda")
def scan_op(x: torch.Tensor, op: str, dim: int, out_dtype: torch.dtype, exclusive: bool,
            reverse: bool) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty(x.shape, dtype=out_dtype, device=x.device)
    _enqueue_scan(x, op, _core.lines_of(tuple(x.shape), dim, "scan")[0], out, exclusive, reverse)
    return out


@scan_op.register_fake
def _(x, op, dim, out_dtype, exclusive, reverse):
    return x.new_empty(x.shape, dtype=out_dtype)


_TORCH_FUNCTIONS = {"prod": "cumprod", "logsumexp": "logcumsumexp"}


def _scan_setup_context(ctx, inputs, output):
    x, op, dim, _out_dtype, exclusive, reverse = inputs
    ctx.op, ctx.dim, ctx.exclusive, ctx.reverse, ctx.x_dtype = op, dim, exclusive, reverse, x.dtype
    if op != "sum":
        ctx.save_for_backward(x)


def _scan_backward(ctx, grad):
    if ctx.op != "sum":
        # torch's own derivative of the same function (its formulas handle cumprod's zeros and
        # logcumsumexp's infinities), over a recomputed forward.
        (x,) = ctx.saved_tensors
        with torch.enable_grad():
            leaf = x.detach().requires_grad_()
            y = getattr(torch, _TORCH_FUNCTIONS[ctx.op])(leaf, ctx.dim)
            (grad_x,) = torch.autograd.grad(y, leaf, grad.to(y.dtype))
        return grad_x, None, None, None, None, None
    # y[t] = sum of x[s], s <= t (s < t exclusive): dx[s] = sum of dy[t], t >= s (t > s), the scan of
    # dy in the other direction, of the same kind.
    grad_x = scan_op(grad, "sum", ctx.dim, grad.dtype, ctx.exclusive, not ctx.reverse)
    return grad_x.to(ctx.x_dtype), None, None, None, None, None


scan_op.register_autograd(_scan_backward, setup_context=_scan_setup_context)


@torch.library.custom_op("scan_zoo::scan_out", mutates_args=("out",), device_types="cuda")
def scan_out_op(x: torch.Tensor, op: str, dim: int, exclusive: bool, reverse: bool, out: torch.Tensor) -> None:
    _enqueue_scan(x.contiguous(), op, _core.lines_of(tuple(x.shape), dim, "scan")[0], out, exclusive, reverse)


@scan_out_op.register_fake
def _(x, op, dim, exclusive, reverse, out):
    return None


def _enqueue_extreme(x, op, lines, values, indices):
    """x, values and indices contiguous, on one device (indices None: the values alone)."""
    device = x.get_device()
    name = dtype_name(x.dtype)
    _core.run_scan(extension, _WORKSPACES, op, name, name, lines, False, False, x.data_ptr(), values.data_ptr(),
                   device, _raw_stream(device), _allocate, 0 if indices is None else indices.data_ptr())


@torch.library.custom_op("scan_zoo::extreme", mutates_args=(), device_types="cuda")
def extreme_op(x: torch.Tensor, op: str, dim: int) -> tuple[torch.Tensor, torch.Tensor]:
    x = x.contiguous()
    values, indices = torch.empty_like(x), torch.empty(x.shape, dtype=torch.int64, device=x.device)
    _enqueue_extreme(x, op, _core.lines_of(tuple(x.shape), dim, "cum" + op)[0], values, indices)
    return values, indices


@extreme_op.register_fake
def _(x, op, dim):
    return x.new_empty(x.shape), x.new_empty(x.shape, dtype=torch.int64)


def _extreme_setup_context(ctx, inputs, output):
    x, _op, dim = inputs
    ctx.save_for_backward(output[1])
    ctx.dim, ctx.shape = dim, x.shape


def _extreme_backward(ctx, grad_values, _grad_indices):
    # Each value is the input at its index: its gradient goes there, summed (torch's formula).
    (indices,) = ctx.saved_tensors
    if len(ctx.shape) == 0:
        return grad_values.clone(), None, None
    grad_x = torch.zeros(ctx.shape, dtype=grad_values.dtype, device=grad_values.device)
    return grad_x.scatter_add_(ctx.dim, indices, grad_values), None, None


extreme_op.register_autograd(_extreme_backward, setup_context=_extreme_setup_context)


@torch.library.custom_op("scan_zoo::extreme_out", mutates_args=("values", "indices"), device_types="cuda")
def extreme_out_op(x: torch.Tensor, op: str, dim: int, values: torch.Tensor, indices: torch.Tensor) -> None:
    _enqueue_extreme(x.contiguous(), op, _core.lines_of(tuple(x.shape), dim, "cum" + op)[0], values, indices)


@extreme_out_op.register_fake
def _(x, op, dim, values, indices):
    return None


@torch.library.custom_op("scan_zoo::linear_recurrence", mutates_args=(), device_types="cuda")
def recurrence_op(a: torch.Tensor, b: torch.Tensor, dim: int, reverse: bool) -> torch.Tensor:
    a, b = a.contiguous(), b.contiguous()
    state = _dtypes.recurrence_state_dtype(dtype_name(a.dtype), dtype_name(b.dtype))
    h = torch.empty(a.shape, dtype=_TORCH_DTYPES[state], device=a.device)
    _enqueue_recurrence(a, b, _core.lines_of(tuple(a.shape), dim, "linear_recurrence")[0], h, reverse)
    return h


@recurrence_op.register_fake
def _(a, b, dim, reverse):
    state = _dtypes.recurrence_state_dtype(dtype_name(a.dtype), dtype_name(b.dtype))
    return a.new_empty(a.shape, dtype=_TORCH_DTYPES[state])


def _recurrence_setup_context(ctx, inputs, output):
    a, b, dim, reverse = inputs
    ctx.save_for_backward(a, output)
    ctx.dim, ctx.reverse, ctx.b_dtype = dim, reverse, b.dtype


def _shifted(x, dim, toward_end):
    """x moved one step along dim, a zero coming in: toward_end gives y[t] = x[t - 1], y[0] = 0;
    else y[t] = x[t + 1], y[last] = 0."""
    length = x.shape[dim]
    zero = torch.zeros_like(x.narrow(dim, 0, min(length, 1)))
    if toward_end:
        return torch.cat([zero, x.narrow(dim, 0, max(length - 1, 0))], dim)
    return torch.cat([x.narrow(dim, min(length, 1), max(length - 1, 0)), zero], dim)


@torch.library.custom_op("scan_zoo::linear_recurrence_backward", mutates_args=(), device_types="cuda")
def recurrence_backward_op(a: torch.Tensor, h: torch.Tensor, grad: torch.Tensor, dim: int,
                           reverse: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """The fused backward along the last axis (include/scan_zoo/linear_recurrence.cuh's
    linear_recurrence_backward): dL/da and dL/db in a's dtype, in one launch."""
    a, h, grad = a.contiguous(), h.contiguous(), grad.to(h.dtype).contiguous()
    grad_a, grad_b = torch.empty_like(a), torch.empty_like(a)
    _enqueue_recurrence_backward(a, h, grad, _core.lines_of(tuple(a.shape), dim, "linear_recurrence")[0], grad_a,
                                 grad_b, reverse)
    return grad_a, grad_b


@recurrence_backward_op.register_fake
def _(a, h, grad, dim, reverse):
    return torch.empty_like(a), torch.empty_like(a)


def _recurrence_backward(ctx, grad):
    # Forward, h[t] = a[t] h[t - 1] + b[t]: the loss reaches h[t] directly (grad[t]) and through
    # h[t + 1] = a[t + 1] h[t] + ..., so lam[t] = dL/dh[t] = grad[t] + a[t + 1] lam[t + 1], the
    # reverse recurrence over the multipliers shifted one step back; then dL/db[t] = lam[t] and
    # dL/da[t] = lam[t] h[t - 1]. The reverse recurrence mirrors it. Along the last axis one
    # kernel does all of it (recurrence_backward_op); along another, the steps below.
    a, h = ctx.saved_tensors
    shape = a.shape
    if _core.lines_of(tuple(shape), ctx.dim, "linear_recurrence")[0][2] == 1:
        grad_a, grad_b = recurrence_backward_op(a, h, grad, ctx.dim, ctx.reverse)
        return grad_a, grad_b.to(ctx.b_dtype), None, None
    if a.dim() == 0:  # one step along an axis of one element
        a, h, grad = a.reshape(1), h.reshape(1), grad.reshape(1)
    dim = ctx.dim % a.dim()
    state = h.dtype
    multipliers = _shifted(a.to(state), dim, toward_end=ctx.reverse)
    lam = recurrence_op(multipliers, grad.to(state).contiguous(), dim, not ctx.reverse)
    before = _shifted(h, dim, toward_end=not ctx.reverse)
    grad_a, grad_b = lam * before, lam
    return grad_a.reshape(shape).to(a.dtype), grad_b.reshape(shape).to(ctx.b_dtype), None, None


recurrence_op.register_autograd(_recurrence_backward, setup_context=_recurrence_setup_context)


@torch.library.custom_op("scan_zoo::segmented_scan", mutates_args=(), device_types="cuda")
def segmented_op(x: torch.Tensor, offsets: torch.Tensor, out_dtype: torch.dtype, exclusive: bool) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty(x.shape, dtype=out_dtype, device=x.device)
    _enqueue_segmented(x, offsets.contiguous(), out, exclusive)
    return out


@segmented_op.register_fake
def _(x, offsets, out_dtype, exclusive):
    return x.new_empty(x.shape, dtype=out_dtype)


def _segmented_setup_context(ctx, inputs, output):
    x, offsets, _out_dtype, exclusive = inputs
    ctx.save_for_backward(offsets)
    ctx.exclusive, ctx.x_dtype = exclusive, x.dtype


def _segmented_backward(ctx, grad):
    # As cumsum's, within each segment: dx is dy summed from the end of its segment. The library
    # scans segments forward only, so the gradient is the forward scan of dy reversed, over the
    # segments reversed (offsets n - offsets[::-1]), reversed back: two copies of dy's size.
    (offsets,) = ctx.saved_tensors
    n = grad.shape[0]
    reversed_sums = segmented_op(grad.flip(0), n - offsets.flip(0), grad.dtype, ctx.exclusive)
    return reversed_sums.flip(0).to(ctx.x_dtype), None, None, None


segmented_op.register_autograd(_segmented_backward, setup_context=_segmented_setup_context)


@torch.library.custom_op("scan_zoo::segmented_scan_out", mutates_args=("out",), device_types="cuda")
def segmented_out_op(x: torch.Tensor, offsets: torch.Tensor, exclusive: bool, out: torch.Tensor) -> None:
    _enqueue_segmented(x.contiguous(), offsets.contiguous(), out, exclusive)


@segmented_out_op.register_fake
def _(x, offsets, exclusive, out):
    return None


# The adapter's interface, as _cupy.py's (scan_zoo/__init__.py calls these after its checks,
# with the lines of x's shape along dim and the output's dtype name).
def cast(x, name, out=None):
    """x converted to dtype `name` (into `out` where given: one kernel)."""
    return x.to(_TORCH_DTYPES[name]) if out is None else out.copy_(x)


_RETURN_TYPES = {"max": torch.return_types.cummax, "min": torch.return_types.cummin}


def extreme(x, op, dim, lines, out=None):
    """cummax and cummin: (values, indices) as torch's (torch.return_types.cummax)."""
    if _plain_eager(x):
        x = x.contiguous()
        values, indices = out if out is not None else (torch.empty_like(x),
                                                       torch.empty(x.shape, dtype=torch.int64, device=x.device))
        _enqueue_extreme(x, op, lines, values, indices)
    elif out is None:
        values, indices = extreme_op(x, op, dim)
    else:
        values, indices = out
        extreme_out_op(x, op, dim, values, indices)
    return _RETURN_TYPES[op]((values, indices))


def scan(x, op, dim, lines, out_dtype, exclusive, reverse, out=None):
    if _plain_eager(x):
        x = x.contiguous()
        if out is None:
            out = torch.empty(x.shape, dtype=_TORCH_DTYPES[out_dtype], device=x.device)
        _enqueue_scan(x, op, lines, out, exclusive, reverse)
        return out
    if out is None:
        return scan_op(x, op, dim, _TORCH_DTYPES[out_dtype], exclusive, reverse)
    scan_out_op(x, op, dim, exclusive, reverse, out)
    return out


def linear_recurrence(a, b, dim, lines, state, reverse):
    if _plain_eager(a, b):
        a, b = a.contiguous(), b.contiguous()
        h = torch.empty(a.shape, dtype=_TORCH_DTYPES[state], device=a.device)
        _enqueue_recurrence(a, b, lines, h, reverse)
        return h
    return recurrence_op(a, b, dim, reverse)


def segmented_scan(x, offsets, out_dtype, exclusive, out=None):
    if _plain_eager(x, offsets):
        x, offsets = x.contiguous(), offsets.contiguous()
        if out is None:
            out = torch.empty(x.shape, dtype=_TORCH_DTYPES[out_dtype], device=x.device)
        _enqueue_segmented(x, offsets, out, exclusive)
        return out
    if out is None:
        return segmented_op(x, offsets, _TORCH_DTYPES[out_dtype], exclusive)
    segmented_out_op(x, offsets, exclusive, out)
    return out
