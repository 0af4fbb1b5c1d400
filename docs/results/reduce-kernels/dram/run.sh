#!/bin/bash
# Trellis' kernels against MPI_Reduce_local where both are bound by memory on this
# Intel Xeon (2026-11-27): 256 MiB a buffer, so the two operands (512 MiB) overflow its
# 300 MiB L3 as 16 MiB overflowed Zen 4's 32 MiB. Two runs of every pair, the library
# against itself between them. Run from the repository root after scripts/setup.sh;
# about 17 minutes; prints the table.
set -e
out=$(dirname "$0")
run() { mpirun -np 1 build/bench/reduce_kernels --reps 7 --min-bytes 268435456 \
          --max-bytes 268435456 "$@" > /dev/null; }
run --csv "$out/run-1.csv"
run --control --csv "$out/control.csv"
run --csv "$out/run-2.csv"
python3 docs/results/reduce-kernels/noprefetch/summarize.py "$out"
