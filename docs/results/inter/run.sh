#!/bin/bash
# issue 14's bar: intercommunicator allreduce, bcast, barrier; 8+8 across 4x4, and 2+2 on one host
cd "$(dirname "$0")/../../.."
T=.venv/bin/trellis
out=${1:-results/inter}; mkdir -p "$out"  # the CSVs of an earlier run there are overwritten
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
$T testbed up --hosts 4 --slots 4 | tail -1
for k in 1 2 3 4 5; do
  $T run --testbed -np 16 build/bench/inter_latency --min 4 --max 4M --step 4 --iters 300 \
    --min-iters 10 --scale 64K --csv $out/4x4_$k.csv > $out/4x4_$k.txt 2>&1; echo "4x4 $k rc=$?"
done
$T testbed down
for k in 1 2 3 4 5; do
  mpirun --oversubscribe --mca mpi_yield_when_idle 1 -np 4 -x LD_PRELOAD=build/libtrellis.so \
    build/bench/inter_latency --min 4 --max 4M --step 4 --iters 1000 --min-iters 20 --scale 256K \
    --csv $out/one_$k.csv > $out/one_$k.txt 2>&1; echo "one $k rc=$?"
done
