# sweep.sh -- the parts of a sweep into a table, said once (sourced, not run).
#
# Sourced by bench.sh and tune/tune.sh (stress.sh takes its ETA).
#   sweep_default_out HEADER DIR FILE
#                                   prints DIR/<gpu>/FILE, <gpu> the slug of HEADER's GPU
#                                   (python3 -m scripts gpu-slug); exit 4 when HEADER names none. Each
#                                   caller names its folder: bench.sh results/ (scratch, ignored
#                                   by git), tune.sh bench/ (the shipped tuning data)
#   sweep_start OUT HEADER NAME     begins the table in a temporary file, $sweep_tmp, with
#                                   HEADER; from then on an interrupt (INT, TERM) kills the
#                                   running child, calls the caller's sweep_on_interrupt if it
#                                   defines one, says OUT was left as it was, and exits 130
#   sweep_run [--append] OUT ERR CMD ...
#                                   runs CMD in the background, its stdout into OUT (appended
#                                   with --append) and its stderr into ERR, and waits for it,
#                                   calling the caller's sweep_on_progress (if it defines one)
#                                   every $sweep_poll_s seconds while CMD runs and once after it
#                                   ended, so that rows can be reported as they come; returns
#                                   CMD's exit code. (The redirections are the child's alone: on
#                                   the call, they would also take the interrupt's messages.)
#   sweep_finish OUT                renames the finished table over OUT
#   sweep_failure_row COLUMNS VARIANT TYPE OP MODE N STATUS GPUS
#                                   prints the row of a measurement that did not happen, in the
#                                   order of COLUMNS (the header's column line, as the binaries
#                                   state it): the label, 0 reps, STATUS, GPUS and nan for every
#                                   measured column, however many the binaries report
#   sweep_elements SIZE             the element count a size names (1000, 64K, 2^20, 2^24+1)
#   sweep_work N                    the work of one measurement at N, N + $sweep_fixed_work
#                                   (for the ETA, below)
#   sweep_eta ELAPSED DONE TOTAL    "ETA 4m10s": ELAPSED seconds scaled by the work left over
#                                   the work done ("ETA ?" before anything is done)
#   scripts_command COMMAND ARG ... python3 -m scripts COMMAND ARG ... ($PYTHON) from any folder:
#                                   the package beside this file, through PYTHONPATH
sweep_lib_dir=$(dirname "${BASH_SOURCE[0]}")
scripts_command() { PYTHONPATH="$sweep_lib_dir/..${PYTHONPATH:+:$PYTHONPATH}" "${PYTHON:-python3}" -m scripts "$@"; }
# How often sweep_run looks at a running child (an interrupt also waits at most this long).
sweep_poll_s=0.2

sweep_default_out() {
  local slug
  slug=$(printf '%s\n' "$1" | scripts_command gpu-slug) || exit 4
  echo "$2/$slug/$3"
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
  # Polled rather than waited for, so that progress can be reported while the child runs.
  while kill -0 "$sweep_child" 2>/dev/null; do
    declare -F sweep_on_progress >/dev/null && sweep_on_progress
    sleep "$sweep_poll_s"
  done
  wait "$sweep_child"
  local rc=$?
  sweep_child=""
  declare -F sweep_on_progress >/dev/null && sweep_on_progress
  return $rc
}

sweep_finish() {
  rm -f "$sweep_tmp".*
  mv -f "$sweep_tmp" "$1"
}

sweep_failure_row() {
  local columns=$1 column row=()
  local -A value=([variant]=$2 [type]=$3 [op]=$4 [mode]=$5 [n]=$6 [reps]=0 [status]=$7 [gpus]=$8)
  for column in $columns; do row+=("${value[$column]:-nan}"); done
  echo "${row[*]}"
}

sweep_elements() {
  [[ $1 =~ ^[0-9KMG^+-]+$ ]] || { echo "sweep.sh: bad size '$1'" >&2; return 2; }
  local expression=${1//^/**}
  expression=${expression//K/*1024}
  expression=${expression//M/*1048576}
  expression=${expression//G/*1073741824}
  echo $((expression))
}

# The ETA is the time so far scaled by the work left over the work done. A measurement at N
# counts as N + 2^25 elements of work: a part that grows with N (the input, the CPU reference and
# check, the timed runs) and a fixed part (process set-up, warm-up, at least ten timed reps with
# their L2 flushes), guessed to cost about what 2^25 elements do. A rough guess early in a sweep
# (when only small sizes are done), better as it goes.
sweep_fixed_work=$((1 << 25))
sweep_work() { echo $(($1 + sweep_fixed_work)); }

sweep_eta() {
  awk -v elapsed="$1" -v done="$2" -v total="$3" 'BEGIN {
    if (done <= 0) { print "ETA ?"; exit }
    left = elapsed * (total - done) / done
    if (left < 0) left = 0
    if (left >= 3600) printf "ETA %dh%02dm\n", left / 3600, (left % 3600) / 60
    else printf "ETA %dm%02ds\n", left / 60, left % 60
  }'
}
