#!/usr/bin/env bash
# Issue 14's 4-byte rows, 8 + 8 across the emulated 4 x 4, built-in rules: the build
# before Trellis found communicators by handle (OLD, a libtrellis.so) and this one
# alternating launch by launch, K launches each (8).
#   OLD=/path/to/old/libtrellis.so bash docs/results/inter/bar6/run.sh
# Summary: python3 docs/results/inter/summarize.py docs/results/inter/bar6/x old new
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../../../.." && pwd)
T=$repo/.venv/bin/trellis
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
$T testbed up --hosts 4 --slots 4 | tail -1
for k in $(seq 1 "${K:-8}"); do for b in old new; do
  lib=$([ $b = old ] && echo "$OLD" || echo "$repo/build/libtrellis.so")
  TRELLIS_LIB=$lib $T run --testbed -np 16 "$repo/build/bench/inter_latency" --min 4 --max 16 \
    --step 4 --iters 1000 --csv "$here/x_${b}_$k.csv" > /dev/null
done; echo "launch $k done"; done
$T testbed down
