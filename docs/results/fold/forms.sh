#!/usr/bin/env bash
# 2 ranks: allreduce direct against ring, each forced, 4 KiB-2 MiB (bench/latency),
# the two forms alternating launch by launch, 3 launches each; the folded copy in both.
# Summary: python3 docs/results/fold/forms.py docs/results/fold/forms
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$here/forms"
for launch in 1 2 3; do
  for form in ring direct; do
    mpirun -np 2 -x LD_PRELOAD="$repo/build/libtrellis.so" -x TRELLIS_RULES="allreduce $form" \
      "$repo/build/bench/latency" --colls allreduce --min 4K --max 2M --step 2 --iters 600 \
      --csv "$here/forms/${form}_$launch.csv" > /dev/null
  done
done
