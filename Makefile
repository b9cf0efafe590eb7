# scan-zoo build. One binary per src/<family>/*.cu (discovered by glob); see docs/layout.md.
#   make                 build every variant into bin/
#   make test            install Python requirements if missing, build, run the pytest suite
#                        (TESTS="tests/test_gpu.py -k in_place" runs a part of it)
#   make examples        build the library examples (examples/*.cu) into build/examples/
#   make cuda12-check    compile the library's example with CUDA 12.4 too (the oldest toolkit
#                        supported; downloads it once into build/cuda12, ~110 MB)
#   make cccl-new        fetch a newer CCCL's headers (build/cccl-new, ~4 MB) for
#                        bin/cub_device_segmented_scan, CUB's DeviceSegmentedScan
#   make bench           sweep every binary (bench.sh) into results/<gpu>/timing.txt (<gpu>: h100, ...;
#                        results/ is git-ignored: the committed bench/<gpu>/ is written only by
#                        ./bench.sh --out bench/<gpu>/timing.txt)
#   make plots           the documents' results tables + each GPU's charts (bench/<gpu>/*.png) from its timing*.txt
#   make plots FROM=results/h100   that table's (or folder's) charts beside it, its tables on stdout
#   make sass V=name     disassemble bin/name (SASS), e.g. to check 16-byte loads or spills
#   make sanitize        compute-sanitizer memcheck/racecheck/synccheck/initcheck at small sizes
#   make stress          re-verify every variant with fresh data (200x per size; single-pass 1000x)
#   make large-n         verify every variant once at N = 2^32 + 1 (needs ~35 GB of GPU memory)
#   make tuner           build the tuner (tune/): every configuration of single_pass_scan_tuned
#   make drop-stage      build the drop-a-stage probe (probes/drop_stage.cu): where the tuned scan's time goes
#   make mixed-types     build the mixed-types probe (probes/mixed_types.cu): bf16 -> float, uint8 -> int64 beside copies
#   make row-items       build the row-items probe (probes/row_items.cu): narrow columns as a 1-D scan of rows, beside the column scan
#   make determinism     build the determinism probe (probes/determinism.cu): float scans' repeats, the deterministic mode's cost
#   make cluster-launch  build the cluster-launch probe (probes/cluster_launch.cu): a cluster launch's own cost
#   make multi-gpu-phases  build the phases probe (probes/multi_gpu_phases.cu): multi_gpu_scan's time by phase
#   make tune            run the tuning sweep (tune/tune.sh) -> bench/<gpu>/tuning.txt, then
#                        make tune-select: tune/tune_select.py over every bench/*/tuning.txt and
#                        the listing of the space (build/tune/space.txt) -> the per-GPU, per-N
#                        tables, each GPU's report and charts
#   make check-env       say which nvcc, CCCL, driver, GPU, ARCH and Python the build uses (make
#                        says it too, the first time and whenever the flags change)
#   make clean
# ARCH: the GPU architectures, a list built into one binary: make ARCH="sm_90 sm_100". Default:
# the visible GPU's (nvidia-smi), else sm_90 (the H100 and H200 the tables come from). Binaries
# rebuild when ARCH, the compiler or its flags change.

ARCH ?= $(or $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .' | sed 's/^/sm_/'),sm_90)
# Build in parallel on every core by default (make -j1 to override).
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
NVCC ?= nvcc
# The scripts and tests run in the project's virtual environment, .venv (python-deps below);
# PYTHON=python3 runs them with an interpreter of your own, as it is.
VENV := .venv
VENV_PYTHON := $(CURDIR)/$(VENV)/bin/python
PYTHON ?= $(VENV_PYTHON)
# Exported, so that every script a recipe starts (bench.sh, the tests' own subprocesses) runs the
# interpreter make chose, not whatever `python3` is first on the PATH.
export PYTHON
# What `make test` runs: the whole suite, or the pytest arguments given (a GPU session that
# cannot fit the whole suite in one call splits it).
TESTS ?= tests
GENCODE := $(foreach arch,$(ARCH),-gencode arch=compute_$(arch:sm_%=%),code=$(arch))
WARNINGS := -Xcompiler -Wall,-Wextra -Werror all-warnings
# HOST_OPT is the host code's level (nvcc optimizes device code fully whatever -O says): the
# host only launches, times and checks, and its compile is most of a binary's (the harness's
# checks over every type and operator; 18 of memcpy_baseline's 27 s on one core at -O2, 68% of
# that in gcc's optimizer). -O1 took the host compile of memcpy_baseline from 18.2 to 12.3 s and
# of hierarchical_warp_shuffle from 27.8 to 20.2 s, where the 2-core CI machine's build has a time
# limit; the host's generation and check of 2^26 float and int32 elements took about a quarter
# longer (0.83 -> 1.16 s here), which no timing includes. (-O3 took half again as long as -O2.)
# The programs that compile CUB's device-wide scan keep -O2 (CUB_SCAN_PROGRAMS, below).
HOST_OPT := -O1
NVCCFLAGS ?= $(HOST_OPT) -std=c++17 -lineinfo $(GENCODE) $(WARNINGS)
# Every kernel of ours must be spill-free: ptxas reports spills and -Werror makes them fatal.
SPILL_CHECK ?= -Xptxas -warn-spills
LDFLAGS ?= -lpthread

SOURCES := $(wildcard src/*/*.cu)
BINARIES := $(addprefix bin/,$(basename $(notdir $(SOURCES))))
# The library's headers are a tree (include/scan_zoo/ and its folders), the zoo's one level deep.
COMMON := $(wildcard src/*/*.cuh src/*/*.hpp) $(shell find include/scan_zoo -name '*.cuh' -o -name '*.hpp')
# Every build depends on the shared headers and on the flags it is built with (BUILD_FLAGS,
# below).
BUILD_FLAGS := build/flags.txt
DEPENDS := $(COMMON) $(BUILD_FLAGS)
# A binary's source is found in its family's folder.
vpath %.cu $(sort $(dir $(SOURCES)))
TEST_BINARIES := $(patsubst tests/cuda/%.cu,build/tests/%,$(wildcard tests/cuda/*.cu))

# The scans across GPUs (bin/multi_gpu_*, their test fixtures, the phases probe) talk over NCCL,
# which a one-GPU user may not have: without it they are left out of `all` and `test-programs`,
# with one line saying so, and everything else builds. NCCL is found when nccl.h preprocesses with
# NVCC and its flags; the probe runs once, here, and the sub-makes of `make test` inherit its
# answer. NCCL=0 or NCCL=1 on the command line overrides it.
MULTI_GPU_TARGETS := $(filter bin/multi_gpu_% build/tests/multi_gpu_%,$(BINARIES) $(TEST_BINARIES))
ifndef NCCL
NCCL := $(shell $(NVCC) $(NVCCFLAGS) -x c++ -E -include nccl.h - </dev/null >/dev/null 2>&1 && echo 1 || echo 0)
endif
export NCCL
# Written when NCCL is missing and removed when it is found, so that the tests skip what this
# build left out, with this line as the reason (tests/conftest.py).
NO_NCCL := build/no_nccl.txt
NO_NCCL_LINE := make: no NCCL (nccl.h not found by $(NVCC), or NCCL=0): the multi_gpu_* binaries are skipped; install NCCL to build them
ifeq ($(NCCL),0)
BINARIES := $(filter-out $(MULTI_GPU_TARGETS),$(BINARIES))
TEST_BINARIES := $(filter-out $(MULTI_GPU_TARGETS),$(TEST_BINARIES))
endif

# Test programs that only a GPU test runs: the library's self-tests, which instantiate the tuned
# kernel in every configuration of the table for a dozen element types, operators and forms, or
# the row and column kernels for cummax's pairs, the axis scans' forms and types, the
# recurrences' maps and the segments' offsets (minutes of compiling: axis_selftest alone took 4
# of CI's 2-core build), and the fixtures of tests/test_gpu.py and tests/test_multi_gpu.py.
# test-programs builds them where a GPU is visible (nvidia-smi), where their tests run;
# GPU_TESTS=1 builds them anyway (to see that they compile), GPU_TESTS=0 leaves them out.
# The forms' self-test is five programs and the scan ops' four (tests/cuda/api_forms.cuh and
# scan_ops.cuh say why), built side by side.
API_FORMS_SELFTESTS := $(patsubst tests/cuda/%.cu,build/tests/%,$(wildcard tests/cuda/api_forms_*_selftest.cu))
SCAN_OPS_SELFTESTS := $(patsubst tests/cuda/%.cu,build/tests/%,$(wildcard tests/cuda/scan_ops_*_selftest.cu))
GPU_ONLY_TEST_PROGRAMS := build/tests/api_selftest $(API_FORMS_SELFTESTS) $(SCAN_OPS_SELFTESTS) \
  build/tests/copy_posing_as_scan build/tests/noisy_copy build/tests/multi_gpu_skips_last_element \
  build/tests/axis_selftest build/tests/recurrence_selftest build/tests/segmented_selftest
ifndef GPU_TESTS
GPU_TESTS := $(shell nvidia-smi -L 2>/dev/null | grep -q '^GPU' && echo 1 || echo 0)
endif
export GPU_TESTS
ifeq ($(GPU_TESTS),0)
TEST_BINARIES := $(filter-out $(GPU_ONLY_TEST_PROGRAMS),$(TEST_BINARIES))
endif

# CUB's DeviceSegmentedScan (bin/cub_device_segmented_scan, the reference of the scans along
# rows) is in no CCCL a toolkit ships yet: it compiles against the headers of the Python package
# index's nvidia-cuda-cccl, which scripts/cccl_new.sh unpacks once into build/cccl-new
# (`make cccl-new`; `make test` fetches them where the index can be reached), placed before the
# toolkit's on that binary's command line alone. Without them the binary is left out, with one
# line saying so (written to build/no_cccl_new.txt for the tests' reason to skip).
CCCL_NEW := build/cccl-new
CCCL_NEW_TARGETS := $(filter bin/cub_device_segmented_scan,$(BINARIES))
NO_CCCL_NEW := build/no_cccl_new.txt
NO_CCCL_NEW_LINE := make: no newer CCCL headers in $(CCCL_NEW) (make cccl-new fetches them from the Python package index): bin/cub_device_segmented_scan is skipped
ifeq ($(wildcard $(CCCL_NEW)/include/cub/device/device_segmented_scan.cuh),)
BINARIES := $(filter-out $(CCCL_NEW_TARGETS),$(BINARIES))
HAVE_CCCL_NEW := 0
else
HAVE_CCCL_NEW := 1
endif
$(CCCL_NEW_TARGETS): private NVCCFLAGS += -I$(CCCL_NEW)/include

EXAMPLES := $(patsubst examples/%.cu,build/examples/%,$(wildcard examples/*.cu))

.PHONY: all examples python-package cuda12-check cuda12-if-reachable cccl-new cccl-new-if-reachable cccl-new-status test-programs test bench plots sass sanitize stress large-n tuner drop-stage mixed-types row-items determinism cluster-launch multi-gpu-phases tune tune-select clean print-flags python-deps check-env nccl-status FORCE

# The longest compiles first (each instantiates the tuned scan in every configuration for every
# element type and operator, minutes on one core), so that a parallel build does not end with
# one of them compiling alone.
HEAVIEST := $(filter bin/single_pass_scan_tuned bin/multi_gpu_scan bin/multi_gpu_scan_then_add,$(BINARIES))
all: $(HEAVIEST) $(BINARIES) nccl-status cccl-new-status

# A prerequisite of `all` and `test-programs`: run once per make, so the line is said once.
nccl-status: | build
ifeq ($(NCCL),0)
	@echo "$(NO_NCCL_LINE)" | tee $(NO_NCCL)
else
	@rm -f $(NO_NCCL)
endif

cccl-new-status: | build
ifeq ($(HAVE_CCCL_NEW),0)
	@echo "$(NO_CCCL_NEW_LINE)" | tee $(NO_CCCL_NEW)
else
	@rm -f $(NO_CCCL_NEW)
endif

$(CCCL_NEW)/include/cub/device/device_segmented_scan.cuh: scripts/cccl_new.sh
	scripts/cccl_new.sh $(CCCL_NEW)

cccl-new: $(CCCL_NEW)/include/cub/device/device_segmented_scan.cuh

# What `make test` runs before the build: the headers, or nothing where neither the package index
# nor a carried wheel has them (cccl_new.sh's exit 3: the binary is then skipped, saying so).
cccl-new-if-reachable: python-deps
	@scripts/cccl_new.sh $(CCCL_NEW); status=$$?; [ $$status = 0 ] || [ $$status = 3 ]

bin/%: %.cu $(DEPENDS) | bin
	$(NVCC) $(NVCCFLAGS) $(SPILL_CHECK) -Isrc -Iinclude -o $@ $< $(LDFLAGS)

# The scans across GPUs (multi_gpu_*, and their test fixtures) talk over NCCL. The per-target
# flags here and below are `private`: not inherited by prerequisites, so build/flags.txt records
# the build's own flags whichever target happens to write it (else building one multi_gpu_* or
# cub_* binary would rewrite it, and every other binary would rebuild).
$(MULTI_GPU_TARGETS): private LDFLAGS += -lnccl

# CUB's own tuned scan kernel spills 4 bytes on sm_90 with nvcc 13.0 (its code, not ours, and
# not ours to edit), so the spill check is off for the library rows only: CUB's (bin/cub_*) and
# Thrust's (bin/thrust_*), whose scan is CUB's kernel.
$(filter bin/cub_% bin/thrust_%,$(BINARIES)): private SPILL_CHECK :=

# CUB's device-wide scan (cub::DeviceScan, behind Thrust's scans too) trips gcc's
# -Wmaybe-uninitialized at -O1 inside its own dispatch (dispatch_scan.cuh: `dispatch`, used in
# MaxGridDimX), a false positive that -O2's analysis sees through: the programs that compile it
# (CUB's and Thrust's rows, the scans across GPUs, whose check is CUB's scan, the tuner's
# reference, and the library's self-test, which checks against CUB: every includer of
# src/baselines/cub_reference.cuh or of CUB's DeviceScan) keep -O2, and every warning.
CUB_SCAN_PROGRAMS := $(filter bin/cub_% bin/thrust_% bin/multi_gpu_% build/tests/multi_gpu_%,$(BINARIES) $(TEST_BINARIES)) \
  build/tests/api_selftest build/tune/scan_tuner.o
$(CUB_SCAN_PROGRAMS): private HOST_OPT := -O2

# Test-only programs (tests/cuda/): the harness's host unit tests and fixture variants that
# provoke the exit codes a real variant should never give. Built outside bin/, so bench.sh and
# the variant sweep never see them.
build/tests/%: tests/cuda/%.cu $(wildcard tests/cuda/*.cuh) $(DEPENDS) | build/tests
	$(NVCC) $(NVCCFLAGS) $(SPILL_CHECK) -Isrc -Iinclude -o $@ $< $(LDFLAGS)

# The library's self-test instantiates the tuned kernel for 64-bit and 16-byte element types,
# whose largest tiles spill registers: a cost for those types, not a bug (the zoo's int32 and
# float32 kernels, in bin/, stay spill-checked). The axis self-test's 16-bit affine maps (a
# multiply-add per operand) spill 4-16 bytes in the row kernel's 256 x 32 tiles at its 3 blocks an
# SM: a cost of that operator, as a user's costly operator would pay it.
build/tests/api_selftest $(API_FORMS_SELFTESTS) build/tests/axis_selftest: private SPILL_CHECK :=
# The operators' self-test scans with an extended __device__ lambda.
build/tests/api_forms_operators_selftest: private NVCCFLAGS += --extended-lambda
# The GPU-only test programs compile over every core (nvcc --split-compile=0 splits its front and
# back ends by function): where they are built, on a GPU machine, the build used to end with the
# longest of them compiling alone, one core each, for minutes (bench/NOTES.md, "The scan ops'
# self-test in four programs").
$(GPU_ONLY_TEST_PROGRAMS): private NVCCFLAGS += --split-compile=0

# The library's examples (examples/*.cu): user programs, built against include/ only.
build/examples/%: examples/%.cu $(DEPENDS) | build/examples
	$(NVCC) $(NVCCFLAGS) -Iinclude -o $@ $< $(LDFLAGS)

examples: $(EXAMPLES)

# The library with CUDA 12: the example and the library's self-test compiled and linked (sm_90,
# nothing runs) by CUDA 12.4, the oldest toolkit it supports, which scripts/cuda12_toolkit.sh
# assembles once into build/cuda12 from the Python package index and Debian (about 110 MB). Not
# part of `make`: `make test` builds it (cuda12-if-reachable, below) and tests/test_install.py
# checks it.
CUDA12 := build/cuda12
CUDA12_CHECKS := build/cuda12-check/prefix_offsets

$(CUDA12)/nvcc: scripts/cuda12_toolkit.sh
	scripts/cuda12_toolkit.sh $(CUDA12)

build/cuda12-check/prefix_offsets: examples/prefix_offsets.cu
$(CUDA12_CHECKS): $(COMMON) $(CUDA12)/nvcc | build/cuda12-check
	$(CUDA12)/nvcc -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 $(WARNINGS) -Iinclude -o $@ $(filter %.cu,$^) $(LDFLAGS)

cuda12-check: $(CUDA12_CHECKS)

# What `make test` builds beside the zoo, so that the CUDA 12 compiles overlap the others: the
# check, or nothing where the toolkit's registries cannot be reached (cuda12_toolkit.sh's exit 3),
# which tests/test_install.py then reports as its reason to skip.
cuda12-if-reachable:
	@scripts/cuda12_toolkit.sh $(CUDA12); status=$$?; \
	  if [ $$status = 0 ]; then $(MAKE) --no-print-directory cuda12-check; elif [ $$status != 3 ]; then exit $$status; fi

bin build build/tests build/tune build/probes build/examples build/cuda12-check:
	mkdir -p $@

# What every binary is built with, in a file that is rewritten only when it changes, so that
# `make ARCH=sm_80` after `make` rebuilds everything instead of saying it is up to date. Its first
# writing (and every change) runs the environment check: a missing or unsupported toolkit stops
# the build before the first compile, with the reason.
$(BUILD_FLAGS): FORCE | build
	@echo '$(NVCC) $(NVCCFLAGS) | $(SPILL_CHECK) | $(LDFLAGS)' | cmp -s - $@ || \
	  { NVCC='$(NVCC)' NCCL='$(NCCL)' scripts/check_env.sh '$(ARCH)' '$(PYTHON)' && \
	    echo '$(NVCC) $(NVCCFLAGS) | $(SPILL_CHECK) | $(LDFLAGS)' > $@; }

check-env:
	@NVCC='$(NVCC)' NCCL='$(NCCL)' scripts/check_env.sh '$(ARCH)' '$(PYTHON)'

FORCE:

# The tuner: the 864 configurations of include/scan_zoo/detail/tuned_space.cuh, int32 sum only, compiled
# in TUNE_SHARDS translation units so that they build in parallel (about 10 minutes of one core in
# all). Not part of `make`. Shards are built without the spill check: a configuration that spills
# is measured like any other, and `scan_tuner --describe` reports its local memory, so the
# selection keeps it out of bin/ (which is built spill-free).
TUNE_SHARDS ?= 32
TUNE_SHARD_OBJECTS := $(foreach s,$(shell seq 0 $$(($(TUNE_SHARDS) - 1))),build/tune/shard_$(s).o)
TUNE_HEADERS := $(wildcard tune/*.cuh)

build/tune/shard_%.o: tune/shard.cu $(TUNE_HEADERS) $(DEPENDS) | build/tune
	$(NVCC) $(NVCCFLAGS) -Isrc -Iinclude -Itune -DTUNE_SHARD=$* -DTUNE_SHARDS=$(TUNE_SHARDS) -c -o $@ $<

# Includes CUB (its reference row), whose kernel spills: no spill check, as for bin/cub_scan.
build/tune/scan_tuner.o: tune/scan_tuner.cu $(TUNE_HEADERS) $(DEPENDS) | build/tune
	$(NVCC) $(NVCCFLAGS) -Isrc -Iinclude -Itune -c -o $@ $<

build/tune/scan_tuner: build/tune/scan_tuner.o $(TUNE_SHARD_OBJECTS)
	$(NVCC) $(GENCODE) -o $@ $(filter %.o,$^) $(LDFLAGS)

tuner: build/tune/scan_tuner

# The listing of the space (tune/list_space.cu), which the selection reads: host code, no
# kernel. Not rebuilt for the generated table, which is made from the listing.
build/tune/list_space: tune/list_space.cu $(filter-out include/scan_zoo/detail/tuned_table.cuh,$(COMMON)) $(BUILD_FLAGS) | build/tune
	$(NVCC) $(NVCCFLAGS) -Isrc -Iinclude -o $@ $<

build/tune/space.txt: build/tune/list_space
	$< > $@

# The drop-a-stage probe: the tuned scan with its look-back wait or its scan taken away, beside
# memcpy (bench/NOTES.md, "What limits the tuned scan"). Not part of `make`.
build/probes/drop_stage: probes/drop_stage.cu probes/probe.cuh $(DEPENDS) | build/probes
	$(NVCC) $(NVCCFLAGS) $(SPILL_CHECK) -Isrc -Iinclude -Iprobes -o $@ $< $(LDFLAGS)

drop-stage: build/probes/drop_stage

# The mixed-types probe: the library's scans with different input, accumulator and output types
# (bf16 -> float, uint8 -> int64, ...) beside copies of their bytes, and bf16 in every
# configuration (bench/NOTES.md, "Mixed types"). Not part of `make`.
build/probes/mixed_types: probes/mixed_types.cu probes/probe.cuh $(DEPENDS) | build/probes
	$(NVCC) $(NVCCFLAGS) -Isrc -Iinclude -Iprobes -o $@ $< $(LDFLAGS)

mixed-types: build/probes/mixed_types

# The row-items probe: C columns as a 1-D scan of rows of C elements, in every configuration of
# the table, beside the column scan and a copy (bench/NOTES.md, "Scans along an axis"). Not part
# of `make`.
build/probes/row_items: probes/row_items.cu probes/probe.cuh $(DEPENDS) | build/probes
	$(NVCC) $(NVCCFLAGS) -Isrc -Iinclude -Iprobes -o $@ $< $(LDFLAGS)

row-items: build/probes/row_items

# The determinism probe: float sums repeated bit for bit, with and without the library's
# deterministic mode, and both timed beside memcpy (docs/library.md, "Determinism"). Not part of `make`.
build/probes/determinism: probes/determinism.cu probes/probe.cuh $(DEPENDS) | build/probes
	$(NVCC) $(NVCCFLAGS) $(SPILL_CHECK) -Isrc -Iinclude -Iprobes -o $@ $< $(LDFLAGS)

determinism: build/probes/determinism

# The phases probe: multi_gpu_scan's reduce, exchange and scan timed apart (bench/NOTES.md, "A
# scan across GPUs"). Not part of `make`.
build/probes/multi_gpu_phases: probes/multi_gpu_phases.cu $(DEPENDS) | build/probes
	$(NVCC) $(NVCCFLAGS) $(SPILL_CHECK) -Isrc -Iinclude -Iprobes -o $@ $< $(LDFLAGS) -lnccl

ifeq ($(NCCL),0)
multi-gpu-phases:
	@echo "make multi-gpu-phases: needs NCCL (nccl.h not found by $(NVCC), or NCCL=0)" >&2; exit 2
else
multi-gpu-phases: build/probes/multi_gpu_phases
endif

# The cluster-launch probe: an empty kernel launched plainly and as one thread-block cluster
# (bench/NOTES.md, "Small N: one cluster"). Not part of `make`.
build/probes/cluster_launch: probes/cluster_launch.cu probes/probe.cuh $(DEPENDS) | build/probes
	$(NVCC) $(NVCCFLAGS) $(SPILL_CHECK) -Isrc -Iinclude -Iprobes -o $@ $< $(LDFLAGS)

cluster-launch: build/probes/cluster_launch

tune: all tuner python-deps
	./tune/tune.sh
	$(MAKE) tune-select

# Every GPU's sweep, so that tuning on one GPU replaces that GPU's table and keeps the others'.
tune-select: python-deps build/tune/space.txt
	$(PYTHON) -m tune.tune_select --bench-dir bench --space build/tune/space.txt --table include/scan_zoo/detail/tuned_table.cuh

# The Python environment: .venv, created with access to the system's packages (a GPU machine's
# own PyTorch and CuPy stay visible for the framework rows, and an offline machine that already
# has numpy, pandas, matplotlib and pytest needs no network). What is missing is installed into
# .venv at the versions requirements.txt pins, never system-wide, with a line saying so; a
# version other than the pinned one is used as it is, with a line saying that
# (scripts/python_deps.py). With PYTHON=<your interpreter>, no .venv is created: what is missing
# goes into that interpreter's environment.
python-deps: $(if $(filter $(VENV_PYTHON),$(PYTHON)),$(VENV_PYTHON))
	@$(PYTHON) -m scripts python-deps requirements.txt || \
	  { echo "make: installing into $(PYTHON): $$(grep -v '^#' requirements.txt | tr '\n' ' ') (pip, from the Python package index)"; \
	    $(PYTHON) -m pip install --disable-pip-version-check -r requirements.txt || \
	    { echo "make: pip could not install requirements.txt into $(PYTHON): an offline machine needs them installed beforehand, or PYTHON=<an interpreter that has them>"; exit 2; }; }

# Without pip where the system lacks ensurepip: its own packages then have to do. A venv sees
# only its base interpreter's own site-packages, even with --system-site-packages: not the user
# site (~/.local, where `pip install --user` puts packages on machines without root) nor a
# distribution's extra folders (Debian's dist-packages). A .pth file in the venv lists every
# package folder python3 itself reads, after the venv's own, so that what python3 imports, .venv
# imports too.
$(VENV_PYTHON):
	@echo "make: creating the Python environment $(VENV) (python3 -m venv --system-site-packages)"
	@python3 -m venv --system-site-packages $(VENV) 2>/dev/null || \
	  python3 -m venv --system-site-packages --without-pip $(VENV) || \
	  { echo "make: could not create $(VENV) (on Debian and Ubuntu: apt install python3-venv), or use PYTHON=python3"; exit 2; }
	@python3 -c 'import sys; print("\n".join(p for p in sys.path if p.endswith(("site-packages", "dist-packages"))))' \
	  > "$$($(VENV)/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/python3-packages.pth"

test-programs: $(TEST_BINARIES) nccl-status

# The Python packages first, then the build: a machine that cannot get them learns it at once,
# not after ten minutes of compiling.
test: cccl-new-if-reachable
	@$(MAKE) --no-print-directory all test-programs examples cuda12-if-reachable python-package
	$(PYTHON) -m pytest -q -rs --durations=8 $(TESTS)

# The Python package (pyproject.toml, python/) installed into $(PYTHON), as a user would:
# pip install . , for ARCH's GPUs (else the visible GPU's, else sm_90). Its build tools
# (scikit-build-core, nanobind) come from the package index into pip's isolated build
# environment, or, where the interpreter has them already (the GPU machines, offline), from
# there. The build is kept in build/python/, so a second install recompiles only what changed.
python-package: python-deps
	@if $(PYTHON) -c "import scikit_build_core, nanobind" 2>/dev/null; then isolation=--no-build-isolation; \
	  else isolation=; fi; \
	  echo "make: pip install . (the scan_zoo Python package) into $(PYTHON) $$isolation"; \
	  ARCH="$(ARCH)" $(PYTHON) -m pip install --disable-pip-version-check -q $$isolation . || \
	  { echo "make: pip could not build and install the Python package (see above)"; exit 2; }

# The sweep goes to results/<gpu>/ (bench.sh --help); PYTHON writes its JSON beside it, and runs
# the framework rows, the scan_zoo package's among them (installed first).
bench: all python-deps python-package
	./bench.sh

# Without FROM: the committed reference, bench/: every GPU's charts and the documents' tables
# (README.md's fastest scan, docs/results.md's, docs/variants.md's applications). With FROM (a
# timing table, a folder holding one, or a folder of such folders, e.g. results/h100 or results):
# the charts beside each table, the tables on stdout; the documents are left alone.
plots: python-deps
ifdef FROM
	$(PYTHON) -m scripts results-table --from "$(FROM)"
	$(PYTHON) -m scripts plots --from "$(FROM)"
else
	$(PYTHON) -m scripts results-table --bench-dir bench --readme README.md --readme docs/results.md --readme docs/variants.md
	$(PYTHON) -m scripts plots --bench-dir bench
endif

sass: $(if $(V),bin/$(V))
	@test -n "$(V)" || { echo "usage: make sass V=<variant>  (one of: $(notdir $(BINARIES)))"; exit 2; }
	@command -v cuobjdump >/dev/null || { echo "make sass: cuobjdump not found (it ships with the full CUDA toolkit)"; exit 2; }
	cuobjdump -sass bin/$(V)

sanitize: all
	./scripts/sanitize.sh

stress: all
	./scripts/stress.sh

large-n: all
	./scripts/large_n.sh

print-flags:
	@echo "$(NVCC) $(NVCCFLAGS) $(SPILL_CHECK)"

clean:
	rm -rf bin build
