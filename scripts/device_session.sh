#!/usr/bin/env bash
# device_session.sh -- one GPU session in one call: build, tests, sanitizers, sweeps, tuning.
#
# The full test suite with the GPU tests executed, the sanitizers, a benchmark sweep. Logs and
# results go to $OUT (or ./device_out when $OUT is unset). Steps are bounded so the whole call fits
# in ten minutes (BUILD_LIMIT, TEST_LIMIT, STRESS_LIMIT, SANITIZE_LIMIT, BENCH_LIMIT, TUNE_LIMIT:
# seconds per step; TESTS: the pytest arguments of the test step, to split the suite over calls;
# with the GPU tests the suite takes longer than one call: run it in parts on a machine kept warm,
# each call issued as the last ends (a machine goes cold 30 s after a call), e.g.
#   BUILD_LIMIT=480 TEST_LIMIT=90 TESTS=tests/test_api.py scripts/device_session.sh build test
#   TESTS="tests --ignore=tests/test_api.py --ignore=<each package file>" scripts/device_session.sh test
#   TESTS="<the package's files: tests/test_{python,torch_switch,cupy_rules,jax_rules,frameworks}.py>" \
#     SCAN_ZOO_OPINFO_REPORT=$OUT/opinfo.txt scripts/device_session.sh test   (torch's OpInfo samples, reported)
#   SCAN_ZOO_COMMIT=<sha> scripts/device_session.sh [steps...]
#   One device call may run 10 minutes: with the whole zoo, split the steps over calls, e.g.
#   "build test sanitize", then "build stress", then BENCH_PART=1/3 "build bench", 2/3, and 3/3
#   with bench-hot (the sweep alone takes ~11 minutes on an H100; the call that completes the
#   parts joins them into bench/<gpu>/timing.txt).
#   steps: build test sanitize stress bench bench-hot (default: all), and, not in the default,
#   library (issue 32's evidence into bench/<gpu>/library/, after build; see its comment), axis
#   (issue 33's sweep along rows and columns, scripts/axis_bench.sh, into bench/<gpu>/axis/;
#   AXIS_ARGS passes options, e.g. --types int32 --lengths 131072 --columns 64),
#   segments and recurrence (issue 33's scans of segments by offsets and linear recurrences, each
#   beside memcpy and CUB, into bench/<gpu>/axis/), multi-gpu (tests/test_multi_gpu.py, then scripts/multi_gpu_bench.sh on every visible GPU, args
#   in MULTI_GPU_ARGS), tune (build the tuner and run the tuning sweep) and tune-select (make tune-select: the
#   generated table from every GPU's sweep, this one's included); SCAN_ZOO_COMMIT names the
#   commit in the timing.txt header, since the copy of the tree on the GPU machine has no .git.
#   Results are written to this GPU's folder, bench/<gpu>/ (<gpu>: scripts/gpu_slug.py, e.g.
#   h100), and copied to the same paths under $OUT ($OUT/bench/h100/timing.txt,
#   $OUT/include/scan_zoo/detail/tuned_table.cuh), so that copying $OUT's bench/ and include/ over the tree's
#   brings them home.
set -u
cd "$(dirname "$0")/.."
# The tables' headers name the commit from SCAN_ZOO_COMMIT, else from git; the GPU machine's copy
# of the tree has been seen carrying a stale .git, which then labels every table wrongly.
[ -n "${SCAN_ZOO_COMMIT:-}" ] ||
  echo "device_session.sh: warning: SCAN_ZOO_COMMIT is unset; the tables will name whatever commit this tree's git says" >&2
out=${OUT:-device_out}
mkdir -p "$out"
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(build test sanitize stress bench bench-hot)
export PYTHONUNBUFFERED=1
# The pure-Python packages the GPU machines lack go into /tmp/site from their wheels in .whl/ (the
# device README's recipe): expecttest, which torch's OpInfo database imports
# (tests/test_torch_switch.py), and accelerated-scan, the peer of `python3 -m scripts
# recurrence-bench`. The CUDA CCCL wheel there is headers for `make cccl-new`, not installed.
if compgen -G ".whl/*-py3-none-any.whl" >/dev/null; then
  "${PYTHON:-python3}" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    .whl/*-py3-none-any.whl && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/gpu.txt"

# This GPU's results folder, as bench.sh and tune.sh name it (asked after the build step).
gpu_dir() { echo "bench/$(bin/memcpy_baseline --device-info | "${PYTHON:-python3}" -m scripts gpu-slug)"; }
# Copies files to the same paths under $OUT.
keep() { for path in "$@"; do [ -e "$path" ] && mkdir -p "$out/$(dirname "$path")" && cp "$path" "$out/$path"; done; }
for step in "${steps[@]}"; do
  begin=$SECONDS
  case $step in
    # The newer CCCL's headers come from a wheel carried in .whl/ (scripts/cccl_new.sh): the GPU
    # machine reaches no package index. Everything `make test` builds first, so that the test
    # step that follows compiles nothing: the zoo, its test programs and examples, and beside
    # them the Python package (half the cores; BUILD_PACKAGE=0 leaves it out): on a fresh H200
    # either takes minutes, and together they fit one call (bench/NOTES.md, "The scan ops'
    # self-test in four programs").
    build) ( make cccl-new-if-reachable || exit 1
             package=
             if [ "${BUILD_PACKAGE:-1}" = 1 ]; then
               CMAKE_BUILD_PARALLEL_LEVEL=$(( $(nproc) / 2 )) timeout ${BUILD_LIMIT:-420} make python-package \
                 >"$out/package_build.log" 2>&1 &
               package=$!
             fi
             timeout ${BUILD_LIMIT:-420} make -j"$(nproc)" all test-programs examples; zoo=$?
             [ -z "$package" ] || wait "$package" || { echo "the package's build failed: $out/package_build.log"; exit 1; }
             exit $zoo ) >"$out/build.log" 2>&1
           status=$? ;;
    # -vv (against make's -q): a line per test as it ends, so that a run stopped at its limit
    # still says which tests passed, and where the next call should start. TEST_JOBS (default
    # 8) runs the tests in that many processes where pytest-xdist is installed (the GPU machines
    # have it): the GPU tests check results, never timings, and share the GPU well, except those
    # past 2^32 elements, which one worker runs one at a time (--dist loadgroup: conftest's
    # ONE_AT_A_TIME; with plain -n, two of them at once ran an H100 out of memory).
    test) parallel=""
          "${PYTHON:-python3}" -c "import xdist" 2>/dev/null && [ "${TEST_JOBS:-8}" -gt 1 ] &&
            parallel="-n ${TEST_JOBS:-8} --dist loadgroup"
          test_args=("TESTS=${TESTS:-tests} -vv $parallel")
          timeout ${TEST_LIMIT:-540} make test "${test_args[@]}" >"$out/test.log" 2>&1
          status=$?
          tail -n 15 "$out/test.log" ;;
    sanitize) timeout ${SANITIZE_LIMIT:-300} ./scripts/sanitize.sh ${SANITIZE_ARGS:-} >"$out/sanitize.log" 2>&1
              status=$?
              tail -n 20 "$out/sanitize.log" ;;
    stress) timeout ${STRESS_LIMIT:-300} ./scripts/stress.sh ${STRESS_ARGS:-} >"$out/stress.log" 2>&1
            status=$?
            cat "$out/stress.log" ;;
    # A device session refreshes the committed reference tables: bench/<gpu>/ (named, since a
    # sweep's default is results/, which git ignores).
    # The whole zoo sweeps in ~11 minutes on an H100, more than one 10-minute call: with
    # BENCH_PART=K/N the step runs that part (bench.sh --part) into results/parts/, and the call
    # that finds all N parts there (the machine kept between calls) joins them into the reference
    # (scripts/merge_tables.py).
    bench) if [ -n "${BENCH_PART:-}" ]; then
             parts_n=${BENCH_PART#*/} gpu=$(basename "$(gpu_dir)")
             timeout ${BENCH_LIMIT:-560} ./bench.sh --part "$BENCH_PART" \
               --out "results/parts/${gpu}_part${BENCH_PART%/*}of$parts_n.txt" ${BENCH_ARGS:-} 2>"$out/bench.log"
             status=$?
             keep results/parts/"${gpu}"_part*of"$parts_n".txt
             part_files=()
             for k in $(seq 1 "$parts_n"); do
               [ -e "results/parts/${gpu}_part${k}of$parts_n.txt" ] && part_files+=("results/parts/${gpu}_part${k}of$parts_n.txt")
             done
             if [ ${#part_files[@]} -eq "$parts_n" ]; then
               "${PYTHON:-python3}" -m scripts merge-tables "${part_files[@]}" -o "$(gpu_dir)/timing.txt" >>"$out/bench.log" 2>&1 ||
                 status=$?
               keep "$(gpu_dir)/timing.txt" "$(gpu_dir)/timing.json"
             fi
           else
             timeout ${BENCH_LIMIT:-480} ./bench.sh --out "$(gpu_dir)/timing.txt" ${BENCH_ARGS:-} 2>"$out/bench.log"
             status=$?
             keep "$(gpu_dir)/timing.txt"
           fi
           tail -n 2 "$out/bench.log" ;;
    bench-hot)  # the cache-regime chart's hot sweep: memcpy, CUB and the fastest variant of this GPU's cold sweep
           dir=$(gpu_dir)
           fastest=$("${PYTHON:-python3}" -c 'import sys; from scripts import plots, timing_table as t
_, rows = t.load(sys.argv[1]); rows = t.scan_rows(rows); ok = plots.passed(rows)
sizes = sorted(n for n in ok["n"].unique() if n & (n - 1) == 0)
print(plots.fastest(rows, [v for v in ok["variant"].unique() if v not in plots.REFERENCES], sizes)[0])' \
             "$dir/timing.txt")
           timeout 240 ./bench.sh --hot --variants "memcpy_baseline,cub_scan,$fastest" --out "$dir/timing_hot.txt" \
             2>"$out/bench_hot.log"
           status=$?
           keep "$dir/timing_hot.txt"
           tail -n 2 "$out/bench_hot.log" ;;
    tune) # A tuner built elsewhere for this GPU may come along (carry build/tune/scan_tuner).
          { [ -x build/tune/scan_tuner ] || timeout 240 make -j"$(nproc)" tuner >"$out/tuner_build.log" 2>&1; } &&
          timeout ${TUNE_LIMIT:-480} ./tune/tune.sh ${TUNE_ARGS:-} 2>"$out/tune.log"
          status=$?
          dir=$(gpu_dir)
          keep "$dir/tuning.txt" "$dir/tuning.txt.interrupted" "$dir/tuning_configs.txt"
          tail -n 3 "$out/tune.log" ;;
    tune-select)  # The selection reads every GPU's sweep, and each GPU's report names the fallback
          # chosen over all of them: every report and chart comes back with the table.
          make tune-select >"$out/tune_select.log" 2>&1
          status=$?
          keep include/scan_zoo/detail/tuned_table.cuh bench/*/TUNING.md bench/*/tuning_density.png bench/*/tuning_ideal_vs_single.png
          tail -n 3 "$out/tune_select.log" ;;
    multi-gpu)  # the scans across GPUs: their tests, then their sweep on every visible GPU
          timeout ${TEST_LIMIT:-540} make test TESTS=tests/test_multi_gpu.py >"$out/test_multi_gpu.log" 2>&1
          status=$?
          tail -n 6 "$out/test_multi_gpu.log"
          # Into the reference folder bench/multi_gpu/<gpu>_x<G>/: G as MULTI_GPU_ARGS' --gpus says, else every visible GPU.
          mg_gpus=$(echo " ${MULTI_GPU_ARGS:-} " | sed -n 's/.* --gpus \([0-9][0-9]*\) .*/\1/p')
          [ -n "$mg_gpus" ] || mg_gpus=$(nvidia-smi -L | grep -c '^GPU')
          mg_out="bench/multi_gpu/$(basename "$(gpu_dir)")_x$mg_gpus/timing.txt"
          timeout ${BENCH_LIMIT:-480} ./scripts/multi_gpu_bench.sh --out "$mg_out" ${MULTI_GPU_ARGS:-} 2>"$out/multi_gpu_bench.log" ||
            status=$?
          for table in bench/multi_gpu/*/timing.txt; do keep "$table"; done
          tail -n 2 "$out/multi_gpu_bench.log" ;;
    library)  # issue 32's evidence, after `build`: the library's self-tests (a PASS line per
          # configuration, type and operator), the determinism and mixed-types probes, and the tuned
          # scan beside CUB and memcpy: into tuned/timing.txt, or, with a binary of the commit in
          # BEFORE_COMMIT carried in .devcarry/before/, into tuned_before_after/ as after.txt and
          # before.txt, both sweeps of one call (a pair from two calls would not compare); all into
          # bench/<gpu>/library/, which comes back as one archive, $OUT/library_<gpu>.tgz (unpack
          # it at the tree's root).
          dir=$(gpu_dir)/library
          tuned_out=$dir/tuned/timing.txt
          [ -x .devcarry/before/single_pass_scan_tuned ] && tuned_out=$dir/tuned_before_after/after.txt
          mkdir -p "$dir/configs" "$dir/determinism" "$dir/mixed_types" "$(dirname "$tuned_out")"
          status=0
          timeout 300 make -j"$(nproc)" build/probes/determinism build/probes/mixed_types >"$out/library_build.log" 2>&1 || status=$?
          header() { echo "# $1"; echo "# gpu: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)"
                     echo "# git_commit: ${SCAN_ZOO_COMMIT:-unknown}"; echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; }
          { header "build/tests/api_selftest (every shipped configuration x type x operator)"
            timeout 240 build/tests/api_selftest; } >"$dir/configs/api_selftest.txt" 2>&1 || status=$?
          for forms in build/tests/api_forms_*_selftest; do
            { header "$forms (one of the five self-tests of the 1-D scan's forms)"
              timeout 240 "$forms"; } >"$dir/configs/$(basename "$forms").txt" 2>&1 || status=$?
          done
          { header "build/probes/determinism"; timeout 240 build/probes/determinism 2^24,2^28; } \
            >"$dir/determinism/timing.txt" 2>"$out/determinism.log" || status=$?
          { header "build/probes/mixed_types"; timeout 240 build/probes/mixed_types; } \
            >"$dir/mixed_types/timing.txt" 2>"$out/mixed_types.log" || status=$?
          timeout 240 ./bench.sh --variants memcpy_baseline,cub_scan,single_pass_scan_tuned \
            --out "$tuned_out" 2>"$out/tuned_after.log" || status=$?
          if [ -x .devcarry/before/single_pass_scan_tuned ]; then
            cp bin/memcpy_baseline bin/cub_scan .devcarry/before/
            SCAN_ZOO_COMMIT=${BEFORE_COMMIT:-before} timeout 240 ./bench.sh --bin-dir .devcarry/before \
              --variants memcpy_baseline,cub_scan,single_pass_scan_tuned \
              --out "$dir/tuned_before_after/before.txt" 2>"$out/tuned_before.log" || status=$?
          fi
          grep -h "failed$" "$dir"/configs/*.txt
          grep -h "^# repeats" "$dir/determinism/timing.txt"
          tar czf "$out/library_$(basename "$(gpu_dir)").tgz" "$dir" ;;
    axis)  # issue 33's sweep along an axis (scripts/axis_bench.sh) into bench/<gpu>/axis/, back as $OUT/axis_<gpu>.tgz
          dir=$(gpu_dir)/axis
          timeout ${BENCH_LIMIT:-540} scripts/axis_bench.sh --out-dir "$dir" ${AXIS_ARGS:-} 2>"$out/axis_bench.log"
          status=$?
          tail -n 3 "$out/axis_bench.log"
          tar czf "$out/axis_$(basename "$(gpu_dir)").tgz" "$dir" ;;
    # Issue 33's newer scans, each beside memcpy and CUB in one sweep, into bench/<gpu>/axis/ and
    # back in $OUT/axis_<gpu>.tgz: the segments given by offsets against the same segments as
    # labels (ours and CUB's scan-by-key; mean length 1024), and the linear recurrence along rows
    # of 131072 float32 beside the row scan of the same shape.
    segments) dir=$(gpu_dir)/axis
              mkdir -p "$dir"
              status=0
              # Mean length 1024 over three sizes, then 2^26 elements in about 1, 8, 1000 and
              # 10^6 random segments of uneven length (mean 2^27: one; 2^23, 67109, 67).
              for run in "2^20,2^24,2^28 1024" "2^26 134217728" "2^26 8388608" "2^26 67109" "2^26 67"; do
                read -r sizes length <<<"$run"
                timeout ${BENCH_LIMIT:-300} ./bench.sh --variants memcpy_baseline,cub_scan,segmented_scan,cub_segmented_scan,segmented_scan_offsets \
                  --sizes "$sizes" --segment-length "$length" --out "$dir/segments_int32_length$length.txt" 2>>"$out/segments_bench.log" ||
                  status=$?
              done
              tail -n 2 "$out/segments_bench.log"
              tar czf "$out/axis_$(basename "$(gpu_dir)").tgz" "$dir" ;;
    recurrence) dir=$(gpu_dir)/axis
                mkdir -p "$dir"
                timeout ${BENCH_LIMIT:-300} ./bench.sh --variants memcpy_baseline,cub_scan,row_scan,linear_recurrence \
                  --type float32 --row-length 131072 --sizes 2^20,2^23,2^26 --out "$dir/recurrence_float32_length131072.txt" \
                  2>"$out/recurrence_bench.log"
                status=$?
                tail -n 2 "$out/recurrence_bench.log"
                tar czf "$out/axis_$(basename "$(gpu_dir)").tgz" "$dir" ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
  echo "== step $step: exit $status, $((SECONDS - begin)) s"
done
