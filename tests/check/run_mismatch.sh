#!/usr/bin/env bash
# One erroneous program (mismatch.c, one case) under TRELLIS_CHECK=1: it
# must end by itself within the time limit, with a non-zero status, and its
# output must hold every pattern given (grep -E; % stands for ;).
#   run_mismatch.sh <nprocs> <libtrellis.so> <program> <case> <mode> <pattern>...
# mode: blocking, nonblocking or persistent (TRELLIS_TEST_MODE, call_mode.h).
set -uo pipefail
np=$1 lib=$2 prog=$3 case=$4 mode=$5
shift 5
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mpi_impl() { PYTHONPATH="$repo/python" python3 -m trellis.mpi_impl "$@" --mpi "${TRELLIS_MPI:-openmpi}"; }
# TRELLIS_RULES, where the test sets one, reaches every rank (a case run under an
# algorithm the built-in rules do not choose there).
rules=()
[ -n "${TRELLIS_RULES:-}" ] && rules=(--env "TRELLIS_RULES=$TRELLIS_RULES")
mapfile -d '' -t launcher < <(mpi_impl launch --np "$np" --share-cores --preload "$lib" \
    --env TRELLIS_CHECK=1 --env TRELLIS_CHECK_TIMEOUT=1 --env "TRELLIS_TEST_MODE=$mode" \
    ${rules[@]+"${rules[@]}"})
mapfile -d '' -t launcher_env < <(mpi_impl env)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$SECONDS
env ${launcher_env[@]+"${launcher_env[@]}"} timeout 60 "${launcher[@]}" "$prog" "$case" >"$out" 2>&1
rc=$?
took=$((SECONDS - start))
cat "$out"
fail() { echo "FAILED ($case, $mode): $*" >&2; exit 1; }
[ $rc -eq 124 ] && fail "still running after 60 s"
[ $rc -eq 0 ] && fail "ended with status 0"
for pattern in "$@"; do
  pattern=${pattern//%/;}
  grep -Eq -- "$pattern" "$out" || fail "no line matches: $pattern"
done
# A case the watchdog reports (a rank waiting for a call that never comes, or a
# collective in flight that never finishes) has no mismatch report; every other case
# must have one.
if ! printf '%s\n' "$@" | grep -Eq "has waited|has run"; then
  grep -q "mismatched collective" "$out" || fail "no report"
fi
echo "ok: $case ($mode) reported and ended in ${took} s with status $rc"
