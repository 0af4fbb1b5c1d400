#!/bin/bash
# The tracer's hooks when tracing is off: build/ (hooks compiled in) against
# build-notrace/ (cmake -DTRELLIS_TRACING=OFF), tracing off in both; 9 rounds, each
# one launch of each build in turn. Run from the repository root after
# scripts/setup.sh; writes OUT (default results/trace_off) as in this folder.
set -euo pipefail
out=${1:-results/trace_off}
cmake -S . -B build-notrace -DCMAKE_BUILD_TYPE=Release -DTRELLIS_TRACING=OFF >/dev/null
cmake --build build-notrace -j2 --target trellis latency exec_steps >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$out"; mkdir -p "$out"
for k in 1 2 3 4 5 6 7 8 9; do
  for b in in out; do
    [ $b = in ] && B=build || B=build-notrace
    mpirun -np 2 $B/bench/exec_steps --max-steps 700000 --shm 1 > "$out/steps_${b}_$k.txt" 2>&1
    mpirun -np 2 -x LD_PRELOAD=$B/libtrellis.so $B/bench/latency --colls bcast,reduce,allreduce,barrier \
      --min 8 --max 1K --step 4 --iters 4000 --csv "$out/lat_${b}_$k.csv" > /dev/null 2>&1
    echo "round $k, hooks $b: done"
  done
done
