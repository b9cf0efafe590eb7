"""Timed rows of the frameworks' scans: torch, CuPy and JAX cumsum, cuda.compute, scan_zoo.

The prefix sums Python users call, torch.cumsum, cupy.cumsum, jax.numpy.cumsum and NVIDIA's cuda.compute, and the zoo's own from Python (the scan_zoo package),
measured by the zoo's protocol and printed as rows of the zoo's schema, so that they sit in the
same tables and charts as the binaries (bin/cub_scan, bin/thrust_scan, ...).

Rows (stdout, scripts/timing_table.py COLUMNS): variant torch_cumsum, cupy_cumsum, jax_cumsum,
cuda_compute_scan, scan_zoo_torch, scan_zoo_cupy or scan_zoo_jax, op sum, mode inclusive, one
row per (framework, type, N); human lines on stderr. With --row-length L the N elements are N / L
rows of L, each scanned on its own along the last axis (torch.cumsum(x, 1) of the [N / L, L]
view, cupy.cumsum(x, axis=1)), as the binaries of src/axis/ do, and the mode is
inclusive-lengthL, theirs; with --columns C they are N / C rows of C, each column scanned down
its rows (torch.cumsum(x, 0) of the [N / C, C] view, cupy.cumsum(x, axis=0)), mode
inclusive-columnsC.

What each runs underneath, read from the frameworks' sources (their main branches; the first
rows were taken with torch 2.11 and CuPy 14.2, CuPy's accelerators at their default, CUB):
  torch_cumsum  torch.cumsum(x, 0, out=y). A 1-D CUDA tensor goes to at::cuda::cub::inclusive_scan
                (aten/src/ATen/native/cuda/ScanUtils.cuh, scan_dim: numel == size(dim)), i.e.
                cub::DeviceScan::InclusiveScan with std::plus, in chunks of 2^30 elements
                (aten/src/ATen/cuda/cub.cuh), its temporary storage from PyTorch's caching
                allocator (CUB_WRAPPER): no cudaMalloc once the cache holds a block. The output
                is y, int32 like x: without out= (or dtype=) torch returns int64 for integer
                input and first converts x to int64 (ReduceOps.cpp: meta_func_cum_ops,
                impl_func_cum_ops), reading 4 + 8 and writing 8 + 8 bytes per element instead
                of reading 4 and writing 4.
  cupy_cumsum   cupy.cumsum(x, out=y) (axis=None) goes to cupy/_core/_routines_math.pyx
                scan_core: it first copies x into y (`result[...] = a`, an elementwise kernel),
                then scans y in place, with CUB's DeviceScan (cupy/cuda/cub.pyx, device_scan,
                workspace from CuPy's memory pool) when CUB is among CuPy's routine accelerators
                (CUPY_ACCELERATORS, "cub" by default on CUDA: docs/source/reference/
                environment.rst), else with CuPy's own two-level scan kernels. With CUB that is
                4 global accesses per element, not 2: its bound is half of memcpy's.
  jax_cumsum    jax.jit(jnp.cumsum) of the array (or of the matrix view, along its axis), compiled
                once per shape before anything is timed: XLA's own scan (no out=: JAX arrays are
                immutable, so every call returns a new output array, which the check reads).
                JAX has no CUDA events: its reps are timed on the host, perf_counter around the
                call after blocking on the previous work and blocking on the result
                (block_until_ready), the way a JAX user times a call; that adds JAX's dispatch
                and a host round trip (tens of microseconds) to every rep, which small N show.
                Its cold-L2 flush is a jnp.sum over 512 MiB (eight times 64 MiB: JAX does not
                report the L2's size; the largest of the measured GPUs is the H200's 60 MB).
  cuda_compute_scan
                cuda.compute.make_inclusive_scan(d_in=x, d_out=y, op=OpKind.PLUS) on CuPy arrays
                (package cuda-cccl; cuda/compute/algorithms/_scan.py): NVRTC compiles CUB's
                DeviceScan for the types when the object is made, once per type here before
                anything is timed; a call of the object launches it with the temporary storage
                it was given, allocated once. One array only: it has no scan along an axis.
  scan_zoo_torch, scan_zoo_cupy, scan_zoo_jax
                the zoo's own scan called from Python: scan_zoo.cumsum(x, dim, dtype=y.dtype, out=y)
                of the package this repository builds (pyproject.toml, python/; make
                python-package), on torch tensors (through its torch.library operator) and CuPy
                arrays; on JAX arrays, jax.jit of scan_zoo.cumsum(x, dim) as jax_cumsum's (an
                XLA custom call, timed on the host as jax_cumsum is); underneath, one launch of include/scan_zoo/axis.cuh's scan, as
                bin/single_pass_scan_tuned, bin/row_scan and bin/column_scan run it, plus the
                package's Python work per call. Without the package: SKIPPED(no-scan_zoo) rows.
The versions and, for CuPy, the accelerators in use are printed on stderr.

Protocol (docs/protocol.md, "How it measures"), as the binaries run it:
  input     zoo::input_value(seed, i) (src/harness/reference.hpp) reproduced in numpy: integers in
            [-8, 8] from SplitMix64, with the binaries' combination seed
            (harness.cuh: combination_seed, and mix64(round) of the first verified round), so
            torch_cumsum int32 at N and seed S scans exactly the data of
            `bin/cub_scan N --seed S`; uploaded once, output preallocated.
  check     the output poisoned with 0xA5 bytes, one call, every element compared with numpy's
            int64 cumsum wrapped to int32 (float64 rounded to float32 for float32): a FAIL row
            and exit 1 on a mismatch. N = 0 is the empty scan, as for the binaries: nothing
            to call, a PASS row with 0 reps.
  timing    3 warm-up calls; each rep a CUDA event pair around the call; cold L2 unless --hot
            (before each rep a sum over a buffer eight times the L2 size: a reduction has to
            read every byte); hot reps in groups of 10 behind one untimed call; adaptive reps
            (10 to 300, about 0.25 s) unless --reps; a batch whose median is over 1.5x its min
            measured again, at most twice more, the row reporting the last; median, min, max,
            p10, p90 (linear interpolation, as numpy.percentile and the harness);
            GB/s = N * (the input's and the result's bytes) / median. The event pair brackets
            the call as a user makes it, and the flush in front keeps the GPU busy while the
            host does the call's work, as in a pipeline: the binaries' flush reads twice the L2
            size, enough to hide their ~2 us launch, but a framework's host work a call
            (Python, dispatch, the temporary storage: 5-30 us) sometimes outlasted that read
            (~35 us on an H200), and the gap joined the figure (median +4-6% at 2^28 int32 on
            one machine, streaks of reps 30 us slow; NOTES, "From Python: every framework").
            Four times the read (~140 us) hides it, so cold rows time the GPU's work of the
            call, as the binaries' rows do. Where host work outlasts the GPU's, --hot shows it:
            back-to-back calls wait for the host.
  outcomes  a framework that is not importable, or sees no GPU: SKIPPED(no-torch),
            SKIPPED(no-cupy), SKIPPED(no-cuda.compute) or SKIPPED(no-gpu) rows with the reason
            on stderr, exit 0 (a sweep goes on), as is a scan_zoo built without JAX's handlers
            (scan_zoo_jax: SKIPPED(no-scan_zoo-jax)), and so does a framework without bfloat16 asked
            for bf16>float32 (SKIPPED(no-bfloat16)) or one without axis scans asked for an axis
            (cuda_compute_scan: SKIPPED(one-array-only)); a size beyond free device memory:
            SKIPPED(device-memory), exit 4; a usage error: exit 2, no rows. Worst exit code wins, as in the binaries.

Usage:
    python3 -m scripts framework-scans SIZES [--variants torch_cumsum,cupy_cumsum,jax_cumsum,scan_zoo_torch,...]
                                       [--type int32[,float32][,bf16>float32]]
                                       [--reps R] [--warmup W] [--hot] [--seed S] [--row-length L | --columns C]
SIZES as the binaries take N: 1048576, 64K, 16M, 1G, 2^20, 2^24-1, comma lists.
"""
import argparse
import importlib
import os
import sys
import time

import numpy as np

from scripts.sizes import parse_sizes, split_list  # the binaries' N syntax
from scripts.timing_table import COLUMNS  # the row schema, one list for every script

VARIANTS = ("torch_cumsum", "cupy_cumsum", "jax_cumsum", "scan_zoo_torch", "scan_zoo_cupy", "scan_zoo_jax",
            "cuda_compute_scan")
# The result's type of each --type (the host's values, the reference's and the output's).
TYPES = {"int32": np.int32, "float32": np.float32, "bf16>float32": np.float32}
# The types whose input is narrower than the result, and its bytes an element: bf16>float32 is a
# bfloat16 array scanned into float32 (torch.cumsum(x, dim, dtype=torch.float32), jnp.cumsum(x,
# dtype=jnp.float32); issue 33's bf16 row), its values cast on the device from the float32 host
# values, which bfloat16 holds exactly (integers in [-8, 8]). CuPy has no bfloat16: a
# SKIPPED(no-bfloat16) row.
NARROW_INPUT_BYTES = {"bf16>float32": 2}
OP, MODE = "sum", "inclusive"

# The binaries' exit codes (src/core/rows.hpp) and their order of severity in a list run; a
# usage error is argparse's exit 2, as theirs.
EXIT_PASS, EXIT_FAIL, EXIT_CUDA_OR_MEMORY = 0, 1, 4
SEVERITY = {EXIT_PASS: 0, EXIT_FAIL: 2, EXIT_CUDA_OR_MEMORY: 3}

# The timing protocol's constants (src/harness/timing.cuh): the adaptive rep count, the hot
# reps per host synchronization, and when a batch of reps is noisy and measured again.
MIN_REPS, MAX_REPS, AUTO_BUDGET_S, HOT_GROUP = 10, 300, 0.25, 10
NOISY_MEDIAN_OVER_MIN, NOISY_REMEASURES = 1.5, 2
# The cold flush: a read of FLUSH_L2_MULTIPLE x the L2 size (at least MIN_FLUSH_BYTES), four
# times the binaries' read, long enough to hide a framework's host work a call (the docstring).
FLUSH_L2_MULTIPLE, MIN_FLUSH_BYTES = 8, 128 << 20
POISON_BYTE = 0xA5


# ---------------------------------------------------------------------------------------------
# Input: the harness's generator, in numpy.
# ---------------------------------------------------------------------------------------------
MASK64 = (1 << 64) - 1


def mix64(x):
    """SplitMix64's finaliser (reference.hpp: mix64), on a uint64 array (wrapping) or a Python int."""
    if isinstance(x, np.ndarray):
        x = x + np.uint64(0x9E3779B97F4A7C15)  # a new array: the rest works in place
        x ^= x >> np.uint64(30)
        x *= np.uint64(0xBF58476D1CE4E5B9)
        x ^= x >> np.uint64(27)
        x *= np.uint64(0x94D049BB133111EB)
        x ^= x >> np.uint64(31)
        return x
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def combination_seed(seed, type_name, op, mode, n):
    """harness.cuh: combination_seed, FNV-1a over "type op mode n " then mixed with the seed."""
    fnv = 0xCBF29CE484222325
    for byte in f"{type_name} {op} {mode} {n} ".encode():
        fnv = ((fnv ^ byte) * 0x100000001B3) & MASK64
    return mix64(seed ^ mix64(fnv))


class Axis:
    """How the N elements are scanned: as one array (the default), along the rows of [N / L, L]
    (--row-length L) or down the columns of [N / C, C] (--columns C)."""

    def __init__(self, row_length=0, columns=0):
        self.row_length, self.columns = row_length, columns

    def mode(self):
        """The mode column: the binaries' (problem.cuh, and src/axis/axis_problem.cuh)."""
        if self.row_length:
            return f"{MODE}-length{self.row_length}"
        return f"{MODE}-columns{self.columns}" if self.columns else MODE

    def matrix(self, array):
        """The array as the matrix it is scanned in, and the axis of the scan."""
        if self.row_length:
            return array.reshape(-1, self.row_length), 1
        if self.columns:
            return array.reshape(-1, self.columns), 0
        return array, 0


ONE_ARRAY = Axis()


def first_round_seed(seed, type_name, n, axis=ONE_ARRAY):
    """The stream of the binaries' first verified round (harness.cuh: verified_rounds)."""
    return combination_seed(seed, type_name, OP, axis.mode(), n) ^ mix64(0)


GENERATE_CHUNK = 1 << 16  # elements per numpy pass: its temporaries stay in the CPU caches


def generate_input(stream, n, dtype):
    """zoo::input_value<T>(stream, i) for i in [0, n): (mix64(stream ^ mix64(i)) % 17) - 8."""
    values = np.empty(n, dtype=dtype)
    for begin in range(0, n, GENERATE_CHUNK):
        index = np.arange(begin, min(n, begin + GENERATE_CHUNK), dtype=np.uint64)
        bits = mix64(np.uint64(stream) ^ mix64(index))
        values[begin:begin + len(index)] = (bits % np.uint64(17)).astype(np.int64) - 8
    return values


def reference_scan(values, axis=ONE_ARRAY):
    """The exact inclusive sum in a wide type, narrowed like the harness's reference: int64
    wrapped to int32, float64 rounded to float32 (exact for this data); along the axis's lines."""
    wide = np.int64 if values.dtype.kind == "i" else np.float64
    matrix, dim = axis.matrix(values)
    return np.cumsum(matrix, axis=dim, dtype=wide).astype(values.dtype).reshape(-1)


# ---------------------------------------------------------------------------------------------
# Rows and statistics.
# ---------------------------------------------------------------------------------------------
def summarize(times_ms):
    times = np.asarray(times_ms, dtype=np.float64)
    p10, p90 = np.percentile(times, [10, 90])
    return {"reps": len(times), "median_ms": float(np.median(times)), "min_ms": float(times.min()),
            "max_ms": float(times.max()), "p10_ms": float(p10), "p90_ms": float(p90)}


UNTIMED = {"reps": 0, **{key: float("nan") for key in ("median_ms", "min_ms", "max_ms", "p10_ms", "p90_ms")}}


def format_row(variant, type_name, n, status, stats=UNTIMED, gbps=float("nan"), axis=ONE_ARRAY):
    """One row with exactly the columns of timing_table.COLUMNS, printed as the binaries print
    theirs (rows.hpp: print_row): times with 6 decimals, GB/s with 2, nan where untimed."""
    fields = {"variant": variant, "type": type_name, "op": OP, "mode": axis.mode(), "n": str(n),
              "reps": str(stats["reps"]), "gbps": f"{gbps:.2f}", "status": status, "gpus": "1"}
    fields.update({key: f"{value:.6f}" for key, value in stats.items() if key.endswith("_ms")})
    return " ".join(fields[column] for column in COLUMNS)


def emit(row):
    print(row, flush=True)


def worse(a, b):
    return b if SEVERITY.get(b, 0) > SEVERITY.get(a, 0) else a


# ---------------------------------------------------------------------------------------------
# The frameworks: the same few operations in each one's terms.
# ---------------------------------------------------------------------------------------------
class Unavailable(Exception):
    """A framework that cannot run here: the status of its rows and the reason."""

    def __init__(self, status, reason):
        super().__init__(reason)
        self.status = status


class Torch:
    variant = "torch_cumsum"

    def __init__(self):
        try:
            import torch
        except ImportError as error:
            raise Unavailable("SKIPPED(no-torch)", f"torch is not importable: {error}") from error
        if not torch.cuda.is_available():
            raise Unavailable("SKIPPED(no-gpu)", f"torch {torch.__version__} sees no CUDA device")
        self.torch = torch
        self.out_of_memory = torch.cuda.OutOfMemoryError
        self.description = f"torch {torch.__version__} (CUDA {torch.version.cuda}), {torch.cuda.get_device_name()}"

    def l2_bytes(self):
        return self.torch.cuda.get_device_properties(self.torch.cuda.current_device()).L2_cache_size

    def free_bytes(self):
        return self.torch.cuda.mem_get_info()

    def upload(self, host):
        return self.torch.from_numpy(host).cuda()

    def empty(self, n, type_name):
        return self.torch.empty(n, dtype=getattr(self.torch, np.dtype(TYPES[type_name]).name), device="cuda")

    def narrow(self, x):
        return x.to(self.torch.bfloat16)

    def poison(self, array):
        array.view(self.torch.uint8).fill_(POISON_BYTE)

    def scan(self, x, y, axis=ONE_ARRAY):
        # y's dtype is the result's and the accumulator's (int32 stays int32; bf16 in, float32 out)
        (x_matrix, dim), (y_matrix, _) = axis.matrix(x), axis.matrix(y)
        self.torch.cumsum(x_matrix, dim, dtype=y_matrix.dtype, out=y_matrix)

    def download(self, array):
        return array.cpu().numpy()

    def flush_buffer(self, nbytes):
        return self.torch.zeros(nbytes // 4, dtype=self.torch.float32, device="cuda"), \
            self.torch.zeros((), dtype=self.torch.float32, device="cuda")

    def read(self, buffer, sink):
        self.torch.sum(buffer, 0, out=sink)

    def event(self):
        return self.torch.cuda.Event(enable_timing=True)

    def elapsed_ms(self, start, stop):
        return start.elapsed_time(stop)

    def synchronize(self):
        self.torch.cuda.synchronize()

    def release(self):
        self.torch.cuda.empty_cache()


class Cupy:
    variant = "cupy_cumsum"

    def __init__(self):
        try:
            import cupy
        except ImportError as error:
            raise Unavailable("SKIPPED(no-cupy)", f"cupy is not importable: {error}") from error
        try:
            devices = cupy.cuda.runtime.getDeviceCount()
        except cupy.cuda.runtime.CUDARuntimeError as error:
            raise Unavailable("SKIPPED(no-gpu)", f"cupy {cupy.__version__} sees no CUDA device: {error}") from error
        if devices == 0:
            raise Unavailable("SKIPPED(no-gpu)", f"cupy {cupy.__version__} sees no CUDA device")
        from cupy._core import _accelerator  # where cupy.cumsum looks for CUB (scan_core)
        self.cupy = cupy
        self.out_of_memory = cupy.cuda.memory.OutOfMemoryError
        names = {getattr(_accelerator, name): name.removeprefix("ACCELERATOR_").lower()
                 for name in dir(_accelerator) if name.startswith("ACCELERATOR_")}
        accelerators = ", ".join(names[a] for a in _accelerator.get_routine_accelerators())
        device = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"].decode()
        self.description = (f"cupy {cupy.__version__} (CUDA runtime {cupy.cuda.runtime.runtimeGetVersion()}), "
                            f"{device}, routine accelerators: {accelerators or 'none (its own scan kernels)'}")

    def l2_bytes(self):
        return self.cupy.cuda.Device().attributes["L2CacheSize"]

    def free_bytes(self):
        return self.cupy.cuda.runtime.memGetInfo()

    def upload(self, host):
        return self.cupy.asarray(host)

    def empty(self, n, type_name):
        return self.cupy.empty(n, dtype=TYPES[type_name])

    def poison(self, array):
        array.view(self.cupy.uint8).fill(POISON_BYTE)

    def scan(self, x, y, axis=ONE_ARRAY):
        if axis is ONE_ARRAY:
            self.cupy.cumsum(x, out=y)  # axis=None: CuPy's 1-D path
        else:
            (x_matrix, dim), (y_matrix, _) = axis.matrix(x), axis.matrix(y)
            self.cupy.cumsum(x_matrix, axis=dim, out=y_matrix)

    def download(self, array):
        return self.cupy.asnumpy(array)

    def flush_buffer(self, nbytes):
        return self.cupy.zeros(nbytes // 4, dtype=np.float32), self.cupy.zeros((), dtype=np.float32)

    def read(self, buffer, sink):
        self.cupy.sum(buffer, out=sink)

    def event(self):
        return self.cupy.cuda.Event()

    def elapsed_ms(self, start, stop):
        return self.cupy.cuda.get_elapsed_time(start, stop)

    def synchronize(self):
        self.cupy.cuda.Device().synchronize()

    def release(self):
        self.cupy.get_default_memory_pool().free_all_blocks()


class HostTimer:
    """A host clock in the place of a CUDA event (Jax): record() waits for the framework's
    outstanding work, then reads perf_counter."""

    def __init__(self, framework):
        self.framework, self.at_s = framework, 0.0

    def record(self):
        self.framework.synchronize()
        self.at_s = time.perf_counter()


class Jax:
    variant = "jax_cumsum"
    FLUSH_L2_BYTES = 64 << 20  # JAX reports no L2 size: the largest measured GPU's (H200, 60 MB), rounded up

    def __init__(self):
        # XLA takes 75% of the GPU's memory when it starts, unless told otherwise: beside other
        # processes on the same GPU (the test suite's workers, a user's job) that starves them
        # (torch and api_selftest ran out of memory beside it on an H200). Allocate as we go,
        # unless the caller chose.
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        try:
            import jax
            import jax.numpy as jnp
        except ImportError as error:
            raise Unavailable("SKIPPED(no-jax)", f"jax is not importable: {error}") from error
        try:
            gpus = jax.devices("gpu")
        except RuntimeError as error:
            raise Unavailable("SKIPPED(no-gpu)", f"jax {jax.__version__} sees no GPU: {error}") from error
        self.jax, self.jnp, self.device = jax, jnp, gpus[0]
        # Out of device memory is a runtime error of XLA's (RESOURCE_EXHAUSTED).
        self.out_of_memory = getattr(jax.errors, "JaxRuntimeError", RuntimeError)
        self.compiled, self.pending = {}, []
        self.description = f"jax {jax.__version__}, {self.device.device_kind}"

    def l2_bytes(self):
        return self.FLUSH_L2_BYTES

    def free_bytes(self):
        stats = self.device.memory_stats() or {}
        limit = stats.get("bytes_limit", 0)
        return limit - stats.get("bytes_in_use", 0), limit

    def upload(self, host):
        return self.jax.device_put(host, self.device)

    def empty(self, n, type_name):
        return [None]  # the output of the next call: JAX returns a new array each time

    def poison(self, array):
        pass  # nothing to poison: the output is the array the call returns

    def narrow(self, x):
        return x.astype(self.jnp.bfloat16)

    def scan(self, x, y, axis=ONE_ARRAY):
        key = (axis.row_length, axis.columns, str(x.dtype))
        if key not in self.compiled:
            jnp = self.jnp
            result = jnp.float32 if x.dtype == jnp.bfloat16 else None  # else x's own

            def cumsum(v):
                matrix, dim = axis.matrix(v)
                return self.cumsum(matrix, dim, result).reshape(-1)

            self.compiled[key] = self.jax.jit(cumsum)
        y[0] = self.compiled[key](x)
        self.pending = [y[0]]

    def cumsum(self, matrix, dim, dtype):
        """The scan the jitted function makes (the scan_zoo row's is the package's)."""
        return self.jnp.cumsum(matrix, axis=dim, dtype=dtype)

    def download(self, array):
        return np.asarray(array[0])

    def flush_buffer(self, nbytes):
        return self.jnp.zeros(nbytes // 4, dtype=self.jnp.float32, device=self.device), None

    def read(self, buffer, sink):
        self.pending.append(self.jnp.sum(buffer))

    def event(self):
        return HostTimer(self)

    def elapsed_ms(self, start, stop):
        return (stop.at_s - start.at_s) * 1e3

    def synchronize(self):
        for array in self.pending:
            array.block_until_ready()
        self.pending = []

    def release(self):
        self.pending = []




def _scan_zoo():
    try:
        import scan_zoo
    except ImportError as error:
        raise Unavailable("SKIPPED(no-scan_zoo)", f"the scan_zoo package is not importable (make python-package): "
                                                  f"{error}") from error
    return scan_zoo


class ScanZooRows:
    """The zoo's own scan from Python (the scan_zoo package, pyproject.toml) on the arrays of the
    framework class it is mixed into: scan_zoo.cumsum(x, dim, dtype=y.dtype, out=y), the call
    torch_cumsum makes (through the package's torch.library operator on torch tensors)."""

    def __init__(self):
        super().__init__()
        self.scan_zoo = _scan_zoo()
        self.description = f"scan_zoo {self.scan_zoo.__version__} on {self.description}"

    def scan(self, x, y, axis=ONE_ARRAY):
        (x_matrix, dim), (y_matrix, _) = axis.matrix(x), axis.matrix(y)
        self.scan_zoo.cumsum(x_matrix, dim, dtype=y_matrix.dtype, out=y_matrix)


class ScanZooTorch(ScanZooRows, Torch):
    variant = "scan_zoo_torch"


class ScanZooCupy(ScanZooRows, Cupy):
    variant = "scan_zoo_cupy"


class ScanZooJax(ScanZooRows, Jax):
    """scan_zoo.cumsum inside jax.jit, compiled once per shape as jax_cumsum's jnp.cumsum is."""
    variant = "scan_zoo_jax"
    scan = Jax.scan  # JAX has no out=: the jitted call returns the output

    def __init__(self):
        super().__init__()
        try:  # a package built where its build's Python had no jax lacks the handlers
            from scan_zoo import _jax  # noqa: F401
        except ImportError as error:
            raise Unavailable("SKIPPED(no-scan_zoo-jax)", f"{self.description}: {error}") from error

    def cumsum(self, matrix, dim, dtype):
        return self.scan_zoo.cumsum(matrix, dim, dtype=dtype)


class CudaCompute(Cupy):
    """NVIDIA's scan for Python, cuda.compute (package cuda-cccl), on CuPy arrays: the scanner
    object of make_inclusive_scan(d_in=x, d_out=y, op=OpKind.PLUS), built (JIT-compiled) once per
    type before anything is timed, its temporary storage allocated once beside it, each rep one
    call of the object: the reusable form its documentation gives for repeated scans (the
    one-shot cuda.compute.inclusive_scan builds and allocates on every call). It scans one
    array: the batched shapes are SKIPPED(one-array-only) rows."""
    variant = "cuda_compute_scan"
    scans_along_axes = False

    def __init__(self):
        super().__init__()
        try:
            import cuda.compute
            from importlib.metadata import version
        except ImportError as error:
            raise Unavailable("SKIPPED(no-cuda.compute)", f"cuda.compute is not importable (pip install "
                                                          f"cuda-cccl): {error}") from error
        self.compute, self.scanners = cuda.compute, {}
        self.description = f"cuda.compute (cuda-cccl {version('cuda-cccl')}) on {self.description}"

    def scan(self, x, y, axis=ONE_ARRAY):
        key = (x.dtype, y.dtype, x.size)
        if key not in self.scanners:
            scanner = self.compute.make_inclusive_scan(d_in=x, d_out=y, op=self.compute.OpKind.PLUS)
            storage_bytes = scanner(temp_storage=None, d_in=x, d_out=y, op=self.compute.OpKind.PLUS,
                                    init_value=None, num_items=x.size)
            self.scanners[key] = scanner, self.cupy.empty(max(storage_bytes, 1), dtype=np.uint8)
        scanner, storage = self.scanners[key]
        # stream None: the legacy default stream, CuPy's current one here, where the events are
        scanner(temp_storage=storage, d_in=x, d_out=y, op=self.compute.OpKind.PLUS, init_value=None,
                num_items=x.size)

    def release(self):
        self.scanners.clear()
        super().release()


FRAMEWORKS = {"torch_cumsum": Torch, "cupy_cumsum": Cupy, "jax_cumsum": Jax, "scan_zoo_torch": ScanZooTorch,
              "scan_zoo_cupy": ScanZooCupy, "scan_zoo_jax": ScanZooJax, "cuda_compute_scan": CudaCompute}


# ---------------------------------------------------------------------------------------------
# One framework at one (type, N): memory, the verified call, the timed reps, the row.
# ---------------------------------------------------------------------------------------------
def time_batch(framework, run_once, flush, options):
    """timing.cuh: time_batch. Returns the reps' times in ms."""
    for _ in range(options.warmup):
        run_once()
        framework.synchronize()
    group = HOT_GROUP if options.hot else 1
    pairs = [(framework.event(), framework.event()) for _ in range(group)]
    times = []
    began = time.perf_counter()
    while True:
        done = len(times)
        if options.reps:
            if done >= options.reps:
                break
        elif done >= MIN_REPS and (time.perf_counter() - began >= AUTO_BUDGET_S or done >= MAX_REPS):
            break
        count = min(group, (options.reps or MAX_REPS) - done)
        if options.hot:
            run_once()  # the untimed lead: every timed rep then starts behind another
        for start, stop in pairs[:count]:
            if not options.hot:
                flush()
            start.record()
            run_once()
            stop.record()
        framework.synchronize()
        times += [framework.elapsed_ms(start, stop) for start, stop in pairs[:count]]
    return times


def torch_on_a_gpu(tool, module):
    """(torch, the module named) for a tool that times torch's tensors on a GPU (torch-scan-ops,
    recurrence-bench), or None after saying on stderr what is missing, torch, the module (a part
    of the scan_zoo package) or a visible GPU: the tool then exits 4."""
    try:
        import torch
        imported = importlib.import_module(module)
    except ImportError as error:
        print(f"{tool}: {error}", file=sys.stderr)
        return None
    if not torch.cuda.is_available():
        print(f"{tool}: no CUDA device visible to torch", file=sys.stderr)
        return None
    return torch, imported


def interleaved_batches(names, time_one, rounds):
    """{name: the times of its batches}, time_one(name) giving a batch's times, every name's batch
    once a round and the order reversed every other round: contenders timed in one process take
    turns, so that none always runs first, or always after the same neighbour (its clocks, its
    caches), and a drift of the machine over the rounds reaches all of them alike."""
    results = {name: [] for name in names}
    for round_ in range(rounds):
        for name in names if round_ % 2 == 0 else names[::-1]:
            results[name] += time_one(name)
    return results


def noisy(stats):
    return stats["median_ms"] > NOISY_MEDIAN_OVER_MIN * stats["min_ms"]


def time_reps(framework, run_once, flush, options, label):
    """timing.cuh: time_reps. One batch, measured again while it is noisy (its median more than
    1.5x its min: something else shared the GPU or the host), at most twice more; the row
    reports the last batch, not the best."""
    stats = summarize(time_batch(framework, run_once, flush, options))
    if not noisy(stats):
        return stats
    for remeasure in range(1, NOISY_REMEASURES + 1):
        print(f"{label}: noisy: median {stats['median_ms']:.4f} ms is {stats['median_ms'] / stats['min_ms']:.2f}x "
              f"the min {stats['min_ms']:.4f} ms (over {NOISY_MEDIAN_OVER_MIN:.1f}x): measuring again "
              f"({remeasure} of {NOISY_REMEASURES})", file=sys.stderr)
        stats = summarize(time_batch(framework, run_once, flush, options))
        if not noisy(stats):
            break
    ratio = stats["median_ms"] / stats["min_ms"]
    if noisy(stats):
        print(f"{label}: still noisy after {NOISY_REMEASURES} more batches: the row reports the last "
              f"(median {stats['median_ms']:.4f} ms, {ratio:.2f}x the min)", file=sys.stderr)
    else:
        print(f"{label}: settled: median {stats['median_ms']:.4f} ms, {ratio:.2f}x the min", file=sys.stderr)
    return stats


def bytes_an_element(type_name):
    """The bytes a scan of type_name reads and writes an element: its input's and its result's."""
    itemsize = np.dtype(TYPES[type_name]).itemsize
    return NARROW_INPUT_BYTES.get(type_name, itemsize) + itemsize


def run_combination(framework, type_name, n, options, flush):
    """Returns (row, exit code)."""
    variant, axis = framework.variant, options.axis
    label = f"{variant} {type_name} {OP} {axis.mode()} n={n}"
    if type_name in NARROW_INPUT_BYTES and not hasattr(framework, "narrow"):
        print(f"{label}: {variant} has no bfloat16: SKIPPED", file=sys.stderr)
        return format_row(variant, type_name, n, "SKIPPED(no-bfloat16)", axis=axis), EXIT_PASS
    if axis is not ONE_ARRAY and not getattr(framework, "scans_along_axes", True):
        print(f"{label}: {variant} scans one array, not along an axis: SKIPPED", file=sys.stderr)
        return format_row(variant, type_name, n, "SKIPPED(one-array-only)", axis=axis), EXIT_PASS
    if n == 0:
        print(f"{label}: empty input, nothing to do: PASS", file=sys.stderr)
        return format_row(variant, type_name, n, "PASS", axis=axis), EXIT_PASS
    needed = n * bytes_an_element(type_name)

    def short_of_memory(free, total):
        print(f"{label}: not enough device memory: needs {needed} bytes (input and output); "
              f"{free} bytes ({free / 2**30:.2f} GiB) free of {total}", file=sys.stderr)
        return format_row(variant, type_name, n, "SKIPPED(device-memory)", axis=axis), EXIT_CUDA_OR_MEMORY

    free, total = framework.free_bytes()
    if needed > free:
        return short_of_memory(free, total)
    host = generate_input(first_round_seed(options.seed, type_name, n, axis), n, TYPES[type_name])
    try:
        x = framework.upload(host)
        if type_name in NARROW_INPUT_BYTES:
            x = framework.narrow(x)
        y = framework.empty(n, type_name)
        framework.poison(y)
        framework.scan(x, y, axis)
        got = framework.download(y)
    except framework.out_of_memory:  # the framework's temporary storage, or another process
        return short_of_memory(*framework.free_bytes())

    expected = reference_scan(host, axis)
    wrong = np.flatnonzero(got != expected)
    if wrong.size:
        first = wrong[0]
        print(f"{label}: GPU vs CPU check: FAIL: {wrong.size} of {n} elements wrong; first at index {first}: "
              f"expected {expected[first]}, got {got[first]}", file=sys.stderr)
        return format_row(variant, type_name, n, "FAIL", axis=axis), EXIT_FAIL
    print(f"{label}: GPU vs CPU check: PASS", file=sys.stderr)

    stats = time_reps(framework, lambda: framework.scan(x, y, axis), flush, options, label)
    gbps = n * bytes_an_element(type_name) / (stats["median_ms"] * 1e-3) / 1e9
    print(f"{label}: Time taken: {stats['median_ms']:.4f} ms (median of {stats['reps']} reps, "
          f"min {stats['min_ms']:.4f}, max {stats['max_ms']:.4f}, {'hot' if options.hot else 'cold'} L2): "
          f"{gbps:.1f} GB/s", file=sys.stderr)
    return format_row(variant, type_name, n, "PASS", stats, gbps, axis), EXIT_PASS


def run_framework(name, options):
    """Every (type, N) of one framework, its rows printed as they finish; returns the exit code."""
    try:
        framework = FRAMEWORKS[name]()
    except Unavailable as why:
        print(f"{name}: {why}", file=sys.stderr)
        for type_name in options.types:
            for n in options.sizes:
                emit(format_row(name, type_name, n, why.status, axis=options.axis))
        return EXIT_PASS
    print(f"{name}: {framework.description}", file=sys.stderr)
    flush_bytes = max(FLUSH_L2_MULTIPLE * framework.l2_bytes(), MIN_FLUSH_BYTES)
    buffer, sink = framework.flush_buffer(flush_bytes)  # taken first: the memory checks see it
    code = EXIT_PASS
    for type_name in options.types:
        for n in options.sizes:
            row, outcome = run_combination(framework, type_name, n, options, lambda: framework.read(buffer, sink))
            emit(row)
            code = worse(code, outcome)
            framework.release()  # the arrays of this N back to the device, for the next N's check
    return code


# ---------------------------------------------------------------------------------------------
# Command line.
# ---------------------------------------------------------------------------------------------
def _argument(parse):
    """An argparse type from a parser that raises ValueError with its own message."""
    def convert(text):
        try:
            return parse(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from error
    return convert


def _at_least(minimum, flag):
    def parse(text):
        if not text.isdigit() or int(text) < minimum:
            raise ValueError(f"{flag} expects an integer >= {minimum}, got '{text}'")
        return int(text)
    return parse


def _names(known, flag):
    def parse(text):
        names = split_list(text, flag)
        unknown = [name for name in names if name not in known]
        if unknown:
            raise ValueError(f"unknown {flag} '{unknown[0]}' (expected one of: {' '.join(known)})")
        return names
    return parse


def _seed(text):
    if not text.isdigit() or int(text) > MASK64:
        raise ValueError(f"--seed expects a non-negative 64-bit integer, got '{text}'")
    return int(text)


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="framework_scans.py", description="the frameworks' prefix sums timed by the zoo's protocol, "
        "as rows of the zoo's schema: " + " ".join(COLUMNS),
        epilog="exit codes: 0 pass (or skipped: no framework, no GPU), 1 verification failed, 2 usage error, "
               "4 not enough device memory")
    parser.add_argument("sizes", type=_argument(parse_sizes), metavar="SIZES",
                        help="element counts: 1000, 64K, 16M, 1G, 2^20, 2^24-1; a comma list runs each")
    parser.add_argument("--variants", type=_argument(_names(VARIANTS, "--variants")), default=list(VARIANTS),
                        help="comma list of " + ", ".join(VARIANTS) + " (default: all)")
    parser.add_argument("--type", dest="types", type=_argument(_names(tuple(TYPES), "--type")), default=["int32"],
                        help="comma list of " + ", ".join(TYPES) + " (default int32)")
    parser.add_argument("--reps", type=_argument(_at_least(1, "--reps")), default=0,
                        help="timed repetitions (default: adaptive, 10..300 reps / ~0.25 s)")
    parser.add_argument("--warmup", type=_argument(_at_least(0, "--warmup")), default=3,
                        help="untimed calls before timing (default 3)")
    parser.add_argument("--hot", action="store_true", help="do not flush L2 between timed reps")
    parser.add_argument("--seed", type=_argument(_seed), default=1,
                        help="seed of the input, as the binaries' --seed (default 1)")
    axis = parser.add_mutually_exclusive_group()
    axis.add_argument("--row-length", type=_argument(_at_least(1, "--row-length")), default=0,
                      help="each N is N / L rows of L, scanned along the last axis (default: one array)")
    axis.add_argument("--columns", type=_argument(_at_least(1, "--columns")), default=0,
                      help="each N is N / C rows of C, every column scanned down its rows (default: one array)")
    options = parser.parse_args(argv)
    extent, what = (options.row_length, "--row-length") if options.row_length else (options.columns, "--columns")
    for n in options.sizes:
        if extent and n % extent:
            parser.error(f"N = {n} is not a whole number of rows of {what} {extent}")
    # ONE_ARRAY itself when no axis is asked: the frameworks' scans test for it by identity
    options.axis = Axis(options.row_length, options.columns) if extent else ONE_ARRAY
    return options


def main(argv):
    options = parse_arguments(argv)  # a usage error exits 2 here, before any framework is touched
    code = EXIT_PASS
    for name in options.variants:
        code = worse(code, run_framework(name, options))
    return code



if __name__ == "__main__":  # run by its path: the tools run through the package's one entry
    raise SystemExit("run it from the repository root as: python3 -m scripts framework-scans")
