#!/bin/bash
# Trellis' kernels against MPI_Reduce_local on the session's Intel Xeon
# (2026-11-26): three runs of every pair, 1 KiB to 16 MiB, then the library
# against itself. Run from the repository root after scripts/setup.sh.
set -e
out=$(dirname "$0")
for r in 1 2; do
  mpirun -np 1 build/bench/reduce_kernels --reps 15 --csv "$out/run-$r.csv" > /dev/null
done
mpirun -np 1 build/bench/reduce_kernels --reps 15 --control --csv "$out/control.csv" > /dev/null
mpirun -np 1 build/bench/reduce_kernels --reps 15 --csv "$out/run-3.csv" > /dev/null
python3 docs/results/reduce-kernels/noprefetch/summarize.py "$out"
