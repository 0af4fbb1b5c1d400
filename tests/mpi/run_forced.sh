#!/usr/bin/env bash
# Runs a checker program (coll_check, coll_check_move, coll_check_scan,
# inter_check, ...) under the MPI's launcher (mpirun, mpiexec) with
# libtrellis.so preloaded and rules forcing algorithms, then checks that the
# program passed AND that Trellis really ran the forced algorithm of the last
# rule, or with --all as expected-algorithm (or TRELLIS_TEST_CHECK_ALL=1) of
# every rule (TRELLIS_VERBOSE=1 names the rule
# that chose it), so a silent fall-back to the MPI library cannot pass.
#
#   run_forced.sh <nprocs> <libtrellis.so|none|linked> <program> "<rule>"|<rules file>
#                 [expected-algorithm|--all] [-- program-arguments...]
#
# "linked": the program is linked against libtrellis.so; nothing is preloaded.
# Everything after "--" goes to the program (pass "" as expected-algorithm
# to check none; --all checks every rule of a rules file, one a line).
set -uo pipefail
np=$1 lib=$2 prog=$3 rule=$4
shift 4
expect=
if [ $# -gt 0 ] && [ "$1" != -- ]; then expect=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" = -- ]; then shift; fi
prog_args=("$@")
# The launcher and its options come from the trellis command's python/trellis/mpi_impl.py:
# TRELLIS_MPI (openmpi, the default, or mpich) names the MPI the build is for.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mpi_impl() { PYTHONPATH="$repo/python" python3 -m trellis.mpi_impl "$@" --mpi "${TRELLIS_MPI:-openmpi}"; }
# Ranks share cores with each other and with the other tests running alongside.
opts=(--np "$np" --share-cores)
if [ "$lib" != none ]; then
  [ "$lib" != linked ] && opts+=(--preload "$lib")
  opts+=(--env TRELLIS_VERBOSE=1 --env "TRELLIS_RULES=$rule")
fi
# A described layout (the hierarchy tests) reaches every rank; so do the shared-memory
# transport's settings (the tests that vary them), the progress mode, the form of
# the checkers' calls (call_mode.h), the schedule cache's size, and TRELLIS_CHECK (the
# correctness tier run with the check on must pass without a report: docs/check.md).
for v in TRELLIS_TOPOLOGY TRELLIS_SHM TRELLIS_SHM_SPIN TRELLIS_PROGRESS TRELLIS_TEST_MODE TRELLIS_EXEC_WINDOW TRELLIS_CHECK \
         TRELLIS_CACHE_SIZE; do
  if [ -n "${!v:-}" ]; then opts+=(--env "$v=${!v}"); fi
done
mapfile -d '' -t launcher < <(mpi_impl launch "${opts[@]}")
mapfile -d '' -t launcher_env < <(mpi_impl env)
[ ${#launcher[@]} -gt 0 ] || { echo "FAILED: no launcher from trellis.mpi_impl" >&2; exit 1; }
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
launch() {
  env ${launcher_env[@]+"${launcher_env[@]}"} "${launcher[@]}" "$prog" ${prog_args[@]+"${prog_args[@]}"} >"$out" 2>"$err"
}
launch
rc=$?
# Open MPI 4.x's runtime now and then reports a rank that finished cleanly as
# "rank N with PID 0 ... exiting improperly" (a race at job end, also with a
# plain hello world: open-mpi/ompi#7833). A rank that really died shows its
# PID; only this exact report, after a clean summary, runs the job once more.
if [ $rc -ne 0 ] && grep -q ", 0 failed$" "$out" && grep -q "with PID 0 on" "$err" &&
  grep -q "exiting improperly" "$err"; then
  echo "run_forced.sh: mpirun reported a clean rank as exiting improperly with PID 0 (open-mpi/ompi#7833); running once more" >&2
  launch
  rc=$?
fi
cat "$out"
grep -v '^trellis: ' "$err" >&2
if [ $rc -ne 0 ]; then
  echo "FAILED: ${launcher[0]} exited $rc" >&2
  grep '^trellis: ' "$err" | head -20 >&2
  exit 1
fi
grep -q ", 0 failed$" "$out" || { echo "FAILED: no clean summary line" >&2; exit 1; }
# Every intracommunicator a test makes is set up in its constructor (C's and
# the Fortran bindings'): a non-blocking or persistent call that found one
# not set up went to the MPI library unseen by the checks below.
if grep -q "that Trellis has not set up" "$err"; then
  echo "FAILED: a call went to the MPI library on a communicator Trellis had not set up:" >&2
  grep "that Trellis has not set up" "$err" | head -1 >&2
  exit 1
fi
# The rules to verify: the last one (of a rules file, its last line), or
# with TRELLIS_TEST_CHECK_ALL=1 every one, each with its own algorithm.
if [ -f "$rule" ]; then text=$(cat "$rule"); else text=$rule; fi
check_all=${TRELLIS_TEST_CHECK_ALL:-}
if [ "$expect" = --all ]; then check_all=1; expect=; fi
if [ -n "$check_all" ]; then
  mapfile -t checked < <(printf '%s\n' "$text" | tr ';' '\n' | sed 's/#.*//' | grep -v '^ *$')
else
  checked=("${text##*[;$'\n']}")
fi
verified=()
for one in "${checked[@]}"; do
  read -r coll first _ <<<"$one"
  want=$expect
  if [ -n "$check_all" ]; then
    # The algorithm: the first word after the collective with no '='.
    want=$(printf '%s\n' "$one" | tr -s ' \t' '\n' | tail -n +2 | grep -v = | head -n 1)
  fi
  # The names verbose gives the call in each form the checker used.
  case "${TRELLIS_TEST_MODE:-blocking}" in
    nonblocking) names=("i$coll") ;;
    persistent) names=("${coll}_init") ;;
    mixed) names=("$coll" "i$coll" "${coll}_init") ;;
    *) names=("$coll") ;;
  esac
  if [ -n "$want" ] && [ "$np" -gt 1 ]; then
    for name in "${names[@]}"; do
      # No bytes= where ranks do not share a size (the v and w variants); an
      # intercommunicator's call says inter and both groups' sizes.
      said="^trellis: $name \(inter \)\?ranks=[0-9]*\( remote_ranks=[0-9]*\)\?\( bytes=[0-9]*\)\?: "
      # A non-blocking or persistent call may not take an algorithm that
      # exchanges counts first (TRL_NEEDS_ALL_COUNTS): Trellis must say so.
      skipped="passed over $want (.*) because it needs every rank's counts"
      if [ "$name" != "$coll" ] && grep -q "$said.*$skipped" "$err"; then
        continue
      fi
      if ! grep -q "$said$want (" "$err"; then
        echo "FAILED: Trellis never reported running $name $want from the rule; it said:" >&2
        grep '^trellis: ' "$err" | head -20 >&2
        exit 1
      fi
    done
    verified+=("${names[*]} $want")
  fi
done
[ ${#verified[@]} -gt 0 ] && echo "verified: ${verified[*]} ran from the rules on $np ranks"
exit 0
