#!/usr/bin/env bash
# test_no_memory.c on <nprocs> ranks, rank 1's large allocations failing
# (fail_alloc.c, preloaded ahead of libtrellis.so): the job must end by
# itself within the time limit, with a non-zero status, and its output must
# hold every pattern given (grep -E).
#   run_no_memory.sh <nprocs> <libtrellis.so> <fail_alloc.so> <program> <mode> <handler> <pattern>...
# mode: blocking, nonblocking or persistent (TRELLIS_TEST_MODE, call_mode.h);
# handler: fatal (the default) or returns (MPI_ERRORS_RETURN).
set -uo pipefail
np=$1 lib=$2 shim=$3 prog=$4 mode=$5 handler=$6
shift 6
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mpi_impl() { PYTHONPATH="$repo/python" python3 -m trellis.mpi_impl "$@" --mpi "${TRELLIS_MPI:-openmpi}"; }
# A bcast Trellis serves at any size (the built-in rules may leave a large one to the
# library), packed into 16 MiB that rank 1 cannot get.
mapfile -d '' -t launcher < <(mpi_impl launch --np "$np" --share-cores --preload "$shim:$lib" \
    --env "TRELLIS_TEST_MODE=$mode" --env "TRELLIS_RULES=bcast binomial" \
    --env TRL_TEST_FAIL_RANK=1 --env TRL_TEST_FAIL_BYTES=8388608)
mapfile -d '' -t launcher_env < <(mpi_impl env)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
env ${launcher_env[@]+"${launcher_env[@]}"} timeout 60 "${launcher[@]}" "$prog" "$handler" \
    >"$out" 2>&1
rc=$?
cat "$out"
fail() { echo "FAILED ($mode, $handler): $*" >&2; exit 1; }
[ $rc -eq 124 ] && fail "still running after 60 s: the ranks wait for the one out of memory"
[ $rc -eq 0 ] && fail "ended with status 0: no rank ran out of memory"
for pattern in "$@"; do
  grep -Eq -- "$pattern" "$out" || fail "no line matches: $pattern"
done
echo "ok: $mode, $handler: ended with status $rc"
