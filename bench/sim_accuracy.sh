#!/usr/bin/env bash
# How well `trellis simulate` predicts seed 000's configurations on the emulated cluster
# (docs/notebook/simulate.md, "Simulate against the testbed"): calibrate the model on a testbed of
# 4 hosts x 4 ranks with capped links, then measure the configurations with
# `trellis bench --testbed` on 4 x 4, 8 x 2 and 2 x 8; bench/sim_accuracy.py then
# predicts the same and compares.
#
#   flock /tmp/trellis-testbed.lock bash bench/sim_accuracy.sh OUT BANDWIDTH [REPS] [SIZES]
#   python3 bench/sim_accuracy.py OUT
#
# BANDWIDTH as `trellis testbed up --bandwidth` takes it (100mbit, 1gbit). SIZES
# (1M,4M) are measured REPS times (2), FAST sizes (64K,256K: quicker, and noisier on a
# token-bucket link) FAST_REPS times (6), each repetition 3 timed iterations after 2 of
# warm-up; 4-byte calls REPS times with 300. Environment: FAST, FAST_REPS, FAST_DIR
# (the suffix of their directories, -fast); ONLY=fast
# measures only the FAST sizes (after a run with other SIZES, to add repetitions).
# As root, after scripts/setup.sh; brings its testbeds up and down itself.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:?usage: sim_accuracy.sh OUT BANDWIDTH [REPS] [SIZES]}"
BW="${2:?usage: sim_accuracy.sh OUT BANDWIDTH [REPS] [SIZES]}"
REPS="${3:-2}"
SIZES="${4:-1M,4M}"
FAST="${FAST:-64K,256K}"
FAST_REPS="${FAST_REPS:-6}"
FAST_DIR="${FAST_DIR:--fast}"
ONLY="${ONLY:-}"
T="$ROOT/.venv/bin/trellis"
mkdir -p "$OUT/plans"
OUT="$(cd "$OUT" && pwd)"

# Seed 000's schemes for 16 ranks: LAM-MPI's trees, linear, hierarchical scheme 1.
"$T" plan --hosts 1 --ranks-per-host 16 --scheme lam --name lam16 --out "$OUT/plans" >/dev/null
echo "allreduce ranks=16 tree file=lam16.tree" >"$OUT/plans/lam.rules"
CONFIGS=(
    "lam:rules=$OUT/plans/lam.rules"
    "linear:rules=allreduce reduce_bcast reduce=linear bcast=linear"
    "hier1:rules=allreduce hier levels=host,world host=linear world=reduce_bcast(reduce=linear,bcast=linear)"
)
printf '%s\n' "${CONFIGS[@]}" | sed "s|$OUT/||" >"$OUT/configs.txt"  # paths relative to OUT
ARGS=()
for c in "${CONFIGS[@]}"; do ARGS+=(--config "$c"); done

bench() { "$T" bench --testbed --colls allreduce --np 16 "${ARGS[@]}" --baseline hier1 "$@"; }
bed() { "$T" testbed down >/dev/null; "$T" testbed up --hosts "$1" --slots "$2" --bandwidth "$BW"; }
trap '"$T" testbed down >/dev/null' EXIT

bed 4 4
[[ $ONLY == fast ]] || "$T" calibrate --testbed --out "$OUT/model" --raw "$OUT/calibrate.jsonl"
for layout in 4x4 8x2 2x8; do
    [[ $layout == 4x4 ]] || bed "${layout%x*}" "${layout#*x}"
    bench --sizes "$FAST" --reps "$FAST_REPS" --iters 3 --out "$OUT/$layout$FAST_DIR"
    [[ $ONLY == fast ]] && continue
    bench --sizes "$SIZES" --reps "$REPS" --iters 3 --out "$OUT/$layout"
    bench --sizes 4 --reps "$REPS" --iters 300 --out "$OUT/$layout-4B"
done
