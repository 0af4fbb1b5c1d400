#!/bin/bash
# inter_pairwise (allreduce, barrier) against the built-in rules' forms (inter_leader with
# hierarchical parts), 8 + 8 ranks across the emulated 4 x 4, launches alternating.
# Summary: python3 docs/results/inter/summarize.py <out>/t44 builtin pw_hier pw_flat
cd "$(dirname "$0")/../../../.."
T=.venv/bin/trellis
out=${1:-results/inter-pairwise}; mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
PW_HIER="allreduce inter=yes inter_pairwise allreduce=hier; barrier inter=yes inter_pairwise barrier=hier"
PW_FLAT="allreduce inter=yes inter_pairwise; barrier inter=yes inter_pairwise"
$T testbed up --hosts 4 --slots 4 | tail -1
for k in 1 2 3; do for cfg in builtin pw_hier pw_flat; do
  case $cfg in pw_hier) R=$PW_HIER;; pw_flat) R=$PW_FLAT;; *) R=;; esac
  TRELLIS_RULES="$R" $T run --testbed -np 16 build/bench/inter_latency --colls allreduce,barrier \
    --min 4 --max 64K --step 4 --iters 300 --min-iters 10 --scale 64K \
    --csv "$out/t44_${cfg}_$k.csv" > /dev/null; echo "$cfg $k rc=$?"
done; done
$T testbed down
