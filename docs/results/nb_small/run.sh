#!/usr/bin/env bash
# Issue 13's small-message bar and what a request costs (2026-11-26): three
# launches of bench/latency (iallreduce start + wait against Trellis' blocking
# call, 8 B to 2 KiB, 2 ranks) and three of bench/request_cost (the MPI
# library alone). Run from the repository root after scripts/setup.sh.
set -eu
out=docs/results/nb_small
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for k in 1 2 3; do
  mpirun -np 2 -x LD_PRELOAD=build/libtrellis.so build/bench/latency --colls iallreduce \
    --min 8 --max 2K --step 4 --iters 20000 --csv $out/latency_$k.csv > $out/latency_$k.txt
  mpirun -np 1 build/bench/request_cost > $out/request_cost_$k.txt
done
python3 bench/nb_bar.py latency $out/latency_*.csv --bar > $out/bar.md
