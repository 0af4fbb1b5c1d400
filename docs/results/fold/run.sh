#!/usr/bin/env bash
# A copy folded into the reduce after it (trl_sched_finish), Rabenseifner's first round
# sent from SEND and 2 ranks' direct rule (4-256 KiB), against the build before them:
# bench/latency, built-in rules, allreduce 4 KiB to 16 MiB on 2 ranks (direct, then
# ring) and on 4 (Rabenseifner from 32 KiB; oversubscribed, 2 cores), the
# two builds alternating launch by launch, 6 launches each. BEFORE: libtrellis.so of
# 81cf35e (git worktree add /tmp/before 81cf35e; cmake -S /tmp/before -B
# /tmp/before/build -DCMAKE_BUILD_TYPE=Release; make -C /tmp/before/build trellis).
# Summary: python3 docs/results/repeat/summary.py docs/results/fold/npN
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
BEFORE=${BEFORE:-/tmp/before/build/libtrellis.so}
AFTER=$repo/build/libtrellis.so
for np in 2 4; do
  mkdir -p "$here/np$np"
  for launch in 1 2 3 4 5 6; do
    for which in before after; do
      lib=$BEFORE; [ $which = after ] && lib=$AFTER
      mpirun --oversubscribe --mca mpi_yield_when_idle $((np > 2)) -np $np \
        -x LD_PRELOAD="$lib" "$repo/build/bench/latency" --colls allreduce \
        --min 4K --max 16M --step 4 --iters 400 --csv "$here/np$np/${which}_$launch.csv" \
        > /dev/null
    done
  done
done
