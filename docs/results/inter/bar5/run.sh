#!/usr/bin/env bash
# Issue 14's 8 + 8 rows across the emulated 4 x 4 with the built-in rules of inter_hosts (bcast up to 1 KiB too)
# (bcast, allreduce and barrier crossing leader to leader, host by host), 4 B to 4 MiB,
# eight launches.
# Summary: python3 docs/results/inter/summarize.py docs/results/inter/bar5/x builtin
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../../../.." && pwd)
T=$repo/.venv/bin/trellis
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
$T testbed up --hosts 4 --slots 4 | tail -1
for k in 1 2 3 4 5 6 7 8; do
  $T run --testbed -np 16 "$repo/build/bench/inter_latency" --min 4 --max 4M --step 4 \
    --iters 300 --min-iters 10 --scale 64K --csv "$here/x_builtin_$k.csv" > /dev/null
  echo "launch $k done"
done
$T testbed down
