#!/bin/bash
# The intercommunicator 2 + 2 on one host, 2-64 KiB, each form forced (the built-in
# rules; inter_linear; inter_leader; inter_pairwise for allreduce), three launches of
# each alternating. Ran on the build before shared-memory slots of 8 KiB (d00213d);
# again on 2026-11-27 with MIN=1K MAX=4M (one_forms2/). MIN, MAX: the sizes (2K, 64K);
# K launches (3), CFGS the forms (builtin linear leader pairwise), COLLS (allreduce,bcast).
# Summary: python3 docs/results/inter/summarize.py <out>/x builtin linear leader pairwise
cd "$(dirname "$0")/../../../.."
out=${1:-results/inter-one-forms}; mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for k in $(seq 1 "${K:-3}"); do for cfg in ${CFGS:-builtin linear leader pairwise}; do
  case $cfg in
    linear) R="bcast inter=yes inter_linear; allreduce inter=yes inter_linear";;
    leader) R="bcast inter=yes inter_leader; allreduce inter=yes inter_leader";;
    pairwise) R="bcast inter=yes inter_leader; allreduce inter=yes inter_pairwise";;
    *) R="";;
  esac
  mpirun --oversubscribe --mca mpi_yield_when_idle 1 -np 4 -x LD_PRELOAD=build/libtrellis.so \
    -x TRELLIS_RULES="$R" build/bench/inter_latency --colls "${COLLS:-allreduce,bcast}" \
    --min "${MIN:-2K}" --max "${MAX:-64K}" --step 2 --iters 1000 --min-iters 20 --scale 256K \
    --csv "$out/x_${cfg}_$k.csv" > /dev/null
done; done
