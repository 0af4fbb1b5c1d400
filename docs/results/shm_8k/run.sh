#!/bin/bash
# Shared-memory slots of at most 2 KiB (OLD: a build of the commit before this file's)
# against at most 8 KiB (NEW: a build of the commit that added this file), alternated
# launch by launch: 2 ranks (1 KiB-32 KiB and 8 bytes), 4 ranks (1-32 KiB), and the
# intercommunicator 2 + 2 of issue 14 (1-64 KiB). Run from the repository root.
set -e
out=$(dirname "$0")
mkdir -p "$out/two" "$out/eight" "$out/four" "$out/inter"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
lib() { echo "$([ "$1" = head ] && echo "$OLD" || echo "$NEW")/libtrellis.so"; }
for r in 1 2 3; do
  for v in head new; do
    mpirun -np 2 -x LD_PRELOAD="$(lib $v)" build/bench/latency \
      --colls bcast,reduce,allreduce,gather,scatter,allgather,alltoall,scan,reduce_scatter_block \
      --min 1K --max 32K --step 2 --iters 2000 --row-seconds 2 --csv "$out/two/x_${v}_$r.csv" > /dev/null
    mpirun -np 2 -x LD_PRELOAD="$(lib $v)" build/bench/latency --colls allreduce,bcast,barrier \
      --min 8 --max 8 --iters 20000 --row-seconds 3 --csv "$out/eight/x_${v}_$r.csv" > /dev/null
    mpirun --oversubscribe --mca mpi_yield_when_idle 1 -np 4 -x LD_PRELOAD="$(lib $v)" \
      build/bench/latency --colls bcast,allreduce,allgather,alltoall --min 1K --max 32K --step 2 \
      --iters 1000 --row-seconds 2 --csv "$out/four/x_${v}_$r.csv" > /dev/null
    mpirun --oversubscribe --mca mpi_yield_when_idle 1 -np 4 -x LD_PRELOAD="$(lib $v)" \
      build/bench/inter_latency --min 1K --max 64K --step 2 --iters 1000 --min-iters 20 \
      --scale 256K --csv "$out/inter/x_${v}_$r.csv" > /dev/null
  done
done
# Medians over launches per build (head, new).
for part in two eight four inter; do
  python3 docs/results/inter/summarize.py "$out/$part/x" head new
done
