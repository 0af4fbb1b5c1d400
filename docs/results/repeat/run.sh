#!/usr/bin/env bash
# The repeat memo of the data movers (trl_move_repeat), against the build before it:
# bench/latency on 2 ranks, gather, scatter, allgather, alltoall, 8 B-64 KiB, the two
# builds alternating launch by launch (3 launches each). BEFORE: libtrellis.so of
# 0ca558d (git worktree add /tmp/wt 0ca558d; cmake -S /tmp/wt -B /tmp/wt/build3
# -DCMAKE_BUILD_TYPE=Release; make -C /tmp/wt/build3 trellis).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
BEFORE=${BEFORE:-/tmp/wt/build3/libtrellis.so}
AFTER=$repo/build/libtrellis.so
for launch in 1 2 3; do
  for which in before after; do
    lib=$BEFORE; [ $which = after ] && lib=$AFTER
    mpirun -np 2 -x LD_PRELOAD="$lib" "$repo/build/bench/latency" \
      --colls gather,scatter,allgather,alltoall --min 8 --max 64K --step 8 --iters 3000 \
      --csv "$here/${which}_$launch.csv" > /dev/null
  done
done
