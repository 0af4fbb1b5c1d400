#!/bin/bash
# Trellis' communicator lookup by handle (src/mpi/context/recent.c) against the build
# before it: bench/comm_switch (allreduce of one int on 1, 2, 4, 8
# communicators in turn) and bench/inter_latency (intercommunicator 1 + 1),
# warm and with --cold 8M, the two builds alternating launch by launch.
#   OLD=<libtrellis.so of the build before> bash docs/results/comm_switch/run.sh [OUT]
# K launches of each (default 5).
cd "$(dirname "$0")/../../.."
out=${1:-docs/results/comm_switch}; mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for k in $(seq 1 "${K:-5}"); do for b in old new; do
  lib=$([ $b = old ] && echo "$OLD" || echo build/libtrellis.so)
  for cold in 0 8M; do
    mpirun --mca mpi_yield_when_idle 1 -np 2 -x LD_PRELOAD="$lib" build/bench/comm_switch \
      --rounds 2000 --cold $cold > "$out/switch_${b}_cold${cold}_$k.txt"
    mpirun --mca mpi_yield_when_idle 1 -np 2 -x LD_PRELOAD="$lib" build/bench/inter_latency \
      --colls allreduce,bcast,barrier --min 4 --max 64K --step 16 --iters 2000 --cold $cold \
      --csv "$out/inter_${b}_cold${cold}_$k.csv" > /dev/null
  done
done; done
