#!/bin/bash
# Shared-memory slots of 256 bytes (OLD: a build of 2e6e1b6) against slots
# as large as a 1 MiB segment allows (NEW: a build of the commit that added
# this file), alternated launch by launch. Run from the repository root.
set -e
out=$(dirname "$0")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for r in 1 2 3 4; do
  for v in head new; do
    lib=$([ $v = head ] && echo "$OLD" || echo "$NEW")/libtrellis.so
    mpirun -np 2 -x LD_PRELOAD="$lib" build/bench/latency \
      --colls bcast,reduce,allreduce,barrier,gather,scatter,allgather,alltoall,scan,reduce_scatter_block \
      --min 8 --max 4K --step 2 --iters 2000 --row-seconds 2 --csv "$out/two/x_${v}_$r.csv" > /dev/null
  done
done
for r in 1 2 3 4 5 6 7 8; do
  for v in head new; do
    lib=$([ $v = head ] && echo "$OLD" || echo "$NEW")/libtrellis.so
    mpirun -np 2 -x LD_PRELOAD="$lib" build/bench/latency --colls allgather,alltoall,gather,barrier,allreduce,bcast \
      --min 8 --max 8 --iters 20000 --row-seconds 3 --csv "$out/eight/x_${v}_$r.csv" > /dev/null
  done
done
for r in 1 2 3 4; do
  for v in head new; do
    lib=$([ $v = head ] && echo "$OLD" || echo "$NEW")/libtrellis.so
    mpirun --oversubscribe --mca mpi_yield_when_idle 1 -np 4 -x LD_PRELOAD="$lib" build/bench/inter_latency \
      --min 4 --max 4K --step 4 --iters 1000 --min-iters 20 --scale 256K --csv "$out/inter/x_${v}_$r.csv" > /dev/null
  done
done
# Medians over launches per build (head, new); the tables in docs/results.md
# give trellis minus mpi of these.
for part in two eight inter; do
  python3 docs/results/inter/summarize.py "$out/$part/x" head new
done
