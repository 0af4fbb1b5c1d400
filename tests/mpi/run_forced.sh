#!/usr/bin/env bash
# Runs a checker program (coll_check, coll_check_move, coll_check_scan, ...)
# under the MPI's launcher (mpirun, mpiexec) with libtrellis.so preloaded and
# one rule forcing an algorithm, then checks that the program passed AND that
# Trellis really ran the forced algorithm (TRELLIS_VERBOSE=1 names the rule
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
# transport's settings (the tests that vary them), the progress mode, and the form of
# the checkers' calls (call_mode.h).
for v in TRELLIS_TOPOLOGY TRELLIS_SHM TRELLIS_SHM_SPIN TRELLIS_PROGRESS TRELLIS_TEST_MODE; do
  if [ -n "${!v:-}" ]; then opts+=(--env "$v=${!v}"); fi
done
mapfile -d '' -t launcher < <(mpi_impl launch "${opts[@]}")
mapfile -d '' -t launcher_env < <(mpi_impl env)
[ ${#launcher[@]} -gt 0 ] || { echo "FAILED: no launcher from trellis.mpi_impl" >&2; exit 1; }
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
env ${launcher_env[@]+"${launcher_env[@]}"} "${launcher[@]}" "$prog" ${prog_args[@]+"${prog_args[@]}"} >"$out" 2>"$err"
rc=$?
cat "$out"
grep -v '^trellis: ' "$err" >&2
if [ $rc -ne 0 ]; then
  echo "FAILED: ${launcher[0]} exited $rc" >&2
  grep '^trellis: ' "$err" | head -20 >&2
  exit 1
fi
grep -q ", 0 failed$" "$out" || { echo "FAILED: no clean summary line" >&2; exit 1; }
# The names verbose gives a collective's calls in each form the checker used.
forms() {
  case "${TRELLIS_TEST_MODE:-blocking}" in
    nonblocking) echo "i$1" ;;
    persistent) echo "${1}_init" ;;
    mixed) echo "$1 i$1 ${1}_init" ;;
    *) echo "$1" ;;
  esac
}
# ran NAME ALGO: whether Trellis reported running ALGO for NAME from the rules.
ran() {
  # No bytes= where ranks do not share a size (the v and w variants).
  grep -q "^trellis: $1 ranks=[0-9]*\( bytes=[0-9]*\)\?: $2 (" "$err"
}
# What to verify: "collective algorithm" pairs, one a line. --all: every rule of the
# rules file; otherwise the last rule's collective (of a rules file, its last line).
if [ "$expect" = --all ]; then
  pairs=$(grep -v '^[[:space:]]*\(#\|$\)' "$rule" | awk '{print $1, $2}')
elif [ -n "$expect" ]; then
  if [ -f "$rule" ]; then last=$(tail -n 1 "$rule"); else last=${rule##*;}; fi
  pairs="${last%% *} $expect"
else
  pairs=
fi
[ "$np" -gt 1 ] || pairs=
while read -r coll algo; do
  [ -n "$coll" ] || continue
  for name in $(forms "$coll"); do
    if ! ran "$name" "$algo"; then
      echo "FAILED: Trellis never reported running $name $algo from the rules; it said:" >&2
      grep '^trellis: ' "$err" | head -20 >&2
      exit 1
    fi
    echo "verified: $name $algo ran from the rules on $np ranks"
  done
done <<<"$pairs"
exit 0
