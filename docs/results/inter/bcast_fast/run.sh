#!/usr/bin/env bash
# The intercommunicator bcast's contiguous path (the buffer as it is, no side opened)
# against the build before it (76224f0): bench/inter_latency, bcast, 1 + 1 ranks
# (one_*) and 2 + 2 oversubscribed (two_*), the builds alternating, 3 launches each.
# (The CSVs here came from the two mpirun lines in two separate loops, 1 + 1 first.)
# Summary: python3 docs/results/inter/summarize.py docs/results/inter/bcast_fast/one before after
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../../../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
BEFORE=${BEFORE:-/tmp/ib/libtrellis.so}
for k in 1 2 3; do
  for which in before after; do
    lib=$BEFORE; [ $which = after ] && lib=$repo/build/libtrellis.so
    mpirun -np 2 -x LD_PRELOAD="$lib" "$repo/build/bench/inter_latency" --colls bcast \
      --min 4 --max 1M --step 4 --iters 3000 --min-iters 50 --scale 1M \
      --csv "$here/one_${which}_$k.csv" > /dev/null
    mpirun --oversubscribe --mca mpi_yield_when_idle 1 -np 4 -x LD_PRELOAD="$lib" \
      "$repo/build/bench/inter_latency" --colls bcast --min 4 --max 1M --step 4 \
      --iters 1000 --min-iters 20 --scale 256K --csv "$here/two_${which}_$k.csv" > /dev/null
  done
done
