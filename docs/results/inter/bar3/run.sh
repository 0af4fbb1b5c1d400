#!/usr/bin/env bash
# Issue 14's 4-16 byte rows on 8 + 8 across the emulated 4 x 4 again, the build before
# the intercommunicator bcast's contiguous path (76224f0, BEFORE) and after it
# alternating, 4 launches each, built-in rules.
# Summary: python3 docs/results/inter/summarize.py docs/results/inter/bar3/x before after
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../../../.." && pwd)
T=$repo/.venv/bin/trellis
BEFORE=${BEFORE:-/tmp/ib/libtrellis.so}
$T testbed up --hosts 4 --slots 4 | tail -1
for k in 1 2 3 4; do
  for which in before after; do
    lib=$BEFORE; [ $which = after ] && lib=$repo/build/libtrellis.so
    TRELLIS_LIB=$lib $T run --testbed -np 16 "$repo/build/bench/inter_latency" --min 4 \
      --max 16 --step 4 --iters 300 --min-iters 10 --csv "$here/x_${which}_$k.csv" > /dev/null
  done
done
$T testbed down
