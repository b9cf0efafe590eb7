# sweep.sh -- sourced by bench.sh and tune/tune.sh: the parts of a sweep into a table that
# both need, said once.
#   sweep_default_out HEADER FILE   prints bench/<gpu>/FILE, <gpu> the slug of HEADER's GPU
#                                   (scripts/gpu_slug.py); exit 4 when HEADER names none
#   sweep_start OUT HEADER NAME     begins the table in a temporary file, $sweep_tmp, with
#                                   HEADER; from then on an interrupt (INT, TERM) kills the
#                                   running child, calls the caller's sweep_on_interrupt if it
#                                   defines one, says OUT was left as it was, and exits 130
#   sweep_run [--append] OUT ERR CMD ...
#                                   runs CMD in the background, its stdout into OUT (appended
#                                   with --append) and its stderr into ERR, and waits for it, so
#                                   that an interrupt is handled at once, not after the child;
#                                   returns CMD's exit code. (The redirections are the child's
#                                   alone: on the call, they would also take the interrupt's
#                                   messages.)
#   sweep_finish OUT                renames the finished table over OUT
sweep_lib_dir=$(dirname "${BASH_SOURCE[0]}")

sweep_default_out() {
  local slug
  slug=$(printf '%s\n' "$1" | python3 "$sweep_lib_dir/gpu_slug.py") || exit 4
  echo "bench/$slug/$2"
}

sweep_start() {
  sweep_out=$1 sweep_name=$3 sweep_tmp="$1.partial.$$" sweep_child=""
  mkdir -p "$(dirname "$sweep_out")"
  trap sweep_interrupted INT TERM
  printf '%s\n' "$2" >"$sweep_tmp"
}

sweep_interrupted() {
  [ -n "$sweep_child" ] && kill "$sweep_child" 2>/dev/null
  declare -F sweep_on_interrupt >/dev/null && sweep_on_interrupt
  rm -f "$sweep_tmp" "$sweep_tmp".*
  echo "$sweep_name: interrupted; $sweep_out left as it was" >&2
  exit 130
}

sweep_run() {
  # (Names of their own: bash scopes locals dynamically, and the interrupt's handler, which runs
  # inside this function, reads the caller's variables.)
  local sweep_append="" sweep_stdout sweep_stderr
  [ "$1" = --append ] && { sweep_append=1; shift; }
  sweep_stdout=$1 sweep_stderr=$2
  shift 2
  if [ -n "$sweep_append" ]; then "$@" >>"$sweep_stdout" 2>"$sweep_stderr" &
  else "$@" >"$sweep_stdout" 2>"$sweep_stderr" &
  fi
  sweep_child=$!
  wait "$sweep_child"
  local rc=$?
  sweep_child=""
  return $rc
}

sweep_finish() {
  rm -f "$sweep_tmp".*
  mv -f "$sweep_tmp" "$1"
}
