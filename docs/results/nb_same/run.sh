#!/usr/bin/env bash
# Issue 13's overlap bar from the program's side: bench/overlap --same-compute, so the
# MPI library's Iallreduce and Trellis' run behind one computation (the library's pure
# time long), MPI_Test every 4 us or none; 2 ranks, 64 KiB-4 MiB, 5 launches.
# Summary: python3 docs/results/nb_same/summary.py docs/results/nb_same
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for launch in 1 2 3 4 5; do
  mpirun -np 2 -x LD_PRELOAD="$repo/build/libtrellis.so" "$repo/build/bench/overlap" \
    --colls iallreduce --min 64K --max 4M --step 4 --iters 100 --min-iters 40 \
    --test-every 0,4 --same-compute --csv "$here/launch_$launch.csv" > /dev/null
done
