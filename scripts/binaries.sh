# binaries.sh -- which binaries the sweeps and checks run, said once (sourced, not run).
#
# Sourced by the scripts that run every zoo binary (bench.sh, stress.sh, sanitize.sh, large_n.sh).
#   zoo_binaries DIR [--single-gpu]   the name of every executable file in DIR, one per line, in
#                                     order; --single-gpu leaves out the multi_gpu_* binaries,
#                                     whose rows spread one N over several GPUs and whose NCCL
#                                     does not belong under compute-sanitizer
#   takes_option BINARY OPTION        whether BINARY takes a problem's OPTION (--row-length,
#                                     --columns, --segment-length), as the first line of its --help says
#                                     (src/harness/harness.cuh, print_help)
#   hands_over_across_tiles BINARY    whether BINARY's tiles hand state to each other through the
#                                     zoo's own chain or look-back, as that line says
#                                     (src/core/variant.cuh, kHandsOverAcrossTiles)
zoo_binaries() {
  local dir=$1 single_gpu=${2:-} path name
  for path in "$dir"/*; do
    [ -f "$path" ] && [ -x "$path" ] || continue
    name=$(basename "$path")
    [ "$single_gpu" = --single-gpu ] && [[ $name == multi_gpu_* ]] && continue
    echo "$name"
  done
}

takes_option() {
  "$1" --help 2>/dev/null | head -n 1 | grep -q -- "takes $2)"
}

hands_over_across_tiles() {
  "$1" --help 2>/dev/null | head -n 1 | grep -q -- "; hands over across tiles"
}
