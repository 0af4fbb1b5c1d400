#!/bin/bash
# Issue 14's one-host rows once more: intercommunicator bcast 2 + 2 (4 ranks on the 2
# cores), 16-256 KiB, built-in rules, the build before communicators were found by
# handle (OLD, a libtrellis.so) and this one alternating launch by launch, K each (15).
#   OLD=/path/to/old/libtrellis.so bash docs/results/comm_switch/one_host.sh [OUT]
# Summary: python3 docs/results/inter/summarize.py OUT/x old new
cd "$(dirname "$0")/../../.."
out=${1:-docs/results/comm_switch/one_host}; mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for k in $(seq 1 "${K:-15}"); do for b in old new; do
  lib=$([ $b = old ] && echo "$OLD" || echo build/libtrellis.so)
  mpirun --oversubscribe --mca mpi_yield_when_idle 1 -np 4 -x LD_PRELOAD="$lib" \
    build/bench/inter_latency --colls bcast --min 16K --max 256K --step 2 --iters 1000 \
    --min-iters 20 --scale 256K --csv "$out/x_${b}_$k.csv" > /dev/null
done; done
