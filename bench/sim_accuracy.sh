#!/usr/bin/env bash
# How well `trellis simulate` predicts seed 000's configurations on the emulated cluster
# (docs/results.md, "Simulate against the testbed"): calibrate the model on a testbed of
# 4 hosts x 4 ranks with capped links, then measure the configurations with
# `trellis bench --testbed` on 4 x 4, 8 x 2 and 2 x 8; bench/sim_accuracy.py then
# predicts the same and compares.
#
#   flock /tmp/trellis-testbed.lock bash bench/sim_accuracy.sh OUT BANDWIDTH [REPS] [SIZES]
#   python3 bench/sim_accuracy.py OUT
#
# BANDWIDTH as `trellis testbed up --bandwidth` takes it (100mbit, 1gbit); REPS
# repetitions (2); SIZES the large sizes (64K,256K,1M,4M), each measured with 3 timed
# iterations per repetition (plus 2 of warm-up); 4-byte calls are measured too, with
# 300. As root, after scripts/setup.sh; brings its testbeds up and down itself.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:?usage: sim_accuracy.sh OUT BANDWIDTH [REPS] [SIZES]}"
BW="${2:?usage: sim_accuracy.sh OUT BANDWIDTH [REPS] [SIZES]}"
REPS="${3:-2}"
SIZES="${4:-64K,256K,1M,4M}"
T="$ROOT/.venv/bin/trellis"
mkdir -p "$OUT/plans"
OUT="$(cd "$OUT" && pwd)"

# Seed 000's schemes for 16 ranks: LAM-MPI's trees, linear, hierarchical scheme 1.
"$T" plan --hosts 1 --ranks-per-host 16 --scheme lam --name lam16 --out "$OUT/plans" >/dev/null
echo "allreduce ranks=16 tree file=lam16.tree" >"$OUT/plans/lam.rules"
CONFIGS=(
    --config "lam:rules=$OUT/plans/lam.rules"
    --config "linear:rules=allreduce reduce_bcast reduce=linear bcast=linear"
    --config "hier1:rules=allreduce hier levels=host,world host=linear world=reduce_bcast(reduce=linear,bcast=linear)"
)

bed() { "$T" testbed down >/dev/null; "$T" testbed up --hosts "$1" --slots "$2" --bandwidth "$BW"; }
trap '"$T" testbed down >/dev/null' EXIT

bed 4 4
"$T" calibrate --testbed --out "$OUT/model" --raw "$OUT/calibrate.jsonl"
for layout in 4x4 8x2 2x8; do
    [[ $layout == 4x4 ]] || bed "${layout%x*}" "${layout#*x}"
    "$T" bench --testbed --colls allreduce --sizes "$SIZES" --np 16 --reps "$REPS" --iters 3 \
        "${CONFIGS[@]}" --baseline hier1 --out "$OUT/$layout"
    "$T" bench --testbed --colls allreduce --sizes 4 --np 16 --reps "$REPS" --iters 300 \
        "${CONFIGS[@]}" --baseline hier1 --out "$OUT/$layout-4B"
done
