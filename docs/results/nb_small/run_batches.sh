#!/usr/bin/env bash
# Batches of non-blocking, blocking and request-wrapped blocking 8-byte
# allreduces alternated within each launch (batches.c); six launches. Run from
# the repository root after scripts/setup.sh; prints what batches.txt holds.
set -eu
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bin=$(mktemp -d)/batches
mpicc -O2 -o "$bin" docs/results/nb_small/batches.c
for k in 1 2 3 4 5 6; do
  SEGMENTS=1 mpirun -np 2 -x SEGMENTS -x LD_PRELOAD=build/libtrellis.so "$bin" 500
done
