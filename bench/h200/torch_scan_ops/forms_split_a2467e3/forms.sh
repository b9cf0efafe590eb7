# One call on a fresh machine: the GPU-only test programs built side by side, each compile timed,
# with the forms' self-test as one program (as at bf8916d) compiled beside them; then tests/test_api.py.
source .devcarry/common.sh
: > "$OUT/compile_times.txt"
mkdir -p build/before
( timeout 420 .devcarry/timed_nvcc -O1 -std=c++17 -lineinfo -gencode arch=compute_90,code=sm_90 -Xcompiler -Wall,-Wextra \
    -Werror all-warnings --extended-lambda -Isrc -Iinclude -Itests/cuda -o build/before/api_forms_selftest_one_program \
    .devcarry/api_forms_selftest_before.cu -lpthread; echo "one program: rc $? at ${SECONDS}s" ) > "$OUT/before_build.log" 2>&1 &
{ time timeout 330 make -j15 GPU_TESTS=1 NVCC="$PWD/.devcarry/timed_nvcc" PYTHON=python3 test-programs examples bin/memcpy_baseline; } > "$OUT/build.log" 2>&1
echo "build rc $? at ${SECONDS}s"; tail -n 5 "$OUT/build.log"; sort -rn "$OUT/compile_times.txt" | head -n 20
left=$((425 - SECONDS))
timeout $left python3 -m pytest -q -rs --durations=8 tests/test_api.py -n 8 --dist loadgroup -vv > "$OUT/test_api.txt" 2>&1
echo "test_api rc $? at ${SECONDS}s"; grep -E "PASSED|FAILED|ERROR|SKIPPED" "$OUT/test_api.txt" | sed 's/^\[gw[0-9]*\] //' | cut -c1-160 | tail -n 30; tail -n 4 "$OUT/test_api.txt"
wait; cat "$OUT/before_build.log"; cat "$OUT/compile_times.txt" | grep one_program
