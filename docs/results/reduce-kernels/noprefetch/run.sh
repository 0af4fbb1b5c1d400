#!/bin/bash
# The kernels before and after (no software prefetch; 8-bit PROD below
# 64 KiB 32 bytes a turn), alternated: PREFETCH and NOPREFETCH are
# bench/reduce_kernels built from d924836 and from the commit that added
# this file; then the library against itself.
set -e
out=$(dirname "$0")
for r in 1 2; do
  mpirun -np 1 "$PREFETCH" --reps 15 --csv "$out/prefetch-$r.csv" > /dev/null
  mpirun -np 1 "$NOPREFETCH" --reps 15 --csv "$out/noprefetch-$r.csv" > /dev/null
done
mpirun -np 1 "$NOPREFETCH" --reps 15 --control --csv "$out/control.csv" > /dev/null
