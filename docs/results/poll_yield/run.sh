#!/usr/bin/env bash
# Completion calls that yield when idle (2026-11-26): coll_check, 5 ranks on the 2
# cores, each form of call, with the library of the commit before the change and
# after it, alternated, three launches each. BEFORE and AFTER name the two
# libtrellis.so files (a worktree of d6131d9 built with cmake, and build/).
#   BEFORE=/tmp/wt_before/build/libtrellis.so AFTER=build/libtrellis.so \
#     bash docs/results/poll_yield/run.sh > docs/results/poll_yield/times.txt
set -u
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
for k in 1 2 3; do
  for mode in blocking nonblocking persistent mixed; do
    for lib in "$BEFORE" "$AFTER"; do
      name=$([ "$lib" = "$BEFORE" ] && echo before || echo after)
      /usr/bin/time -f %e -o /tmp/poll_yield.time env TRELLIS_TEST_MODE=$mode TRELLIS_MPI=openmpi \
        "$repo/tests/mpi/run_forced.sh" 5 "$lib" "$repo/build/tests/mpi/coll_check" \
        "bcast binomial" binomial -- --quick >/dev/null 2>&1 || echo "$k $mode $name FAILED"
      echo "$k $mode $name $(cat /tmp/poll_yield.time) s"
    done
  done
done
