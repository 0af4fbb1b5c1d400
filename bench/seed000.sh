#!/usr/bin/env bash
# Seed 000's experiments on the emulated cluster (docs/notebook/seed000.md): 4-byte allreduce
# over 1..16 processes on 4 hosts x 4 ranks, by block and round-robin, under Open MPI's
# default, han, and Trellis with LAM-MPI's trees, linear, hierarchical scheme 1, the
# split-host scheme and the best configuration found; the 16-process bar; 8 x 2 and
# 2 x 8; and the scaling of section 5.4 (1..8 hosts of 2 ranks).
#
#   bash bench/seed000.sh [OUT] [REPS]      (as root; REPS=2 took 28 minutes here)
#
# Every configuration is aligned by the benchmark's own barrier (trellis bench --sync
# p2p); SYNC=mpi uses each library's MPI_Barrier instead, as the first runs in
# docs/notebook/seed000.md did (han then brings its own barrier, which flatters it).
# Needs the build and .venv (scripts/setup.sh). Brings testbeds up and down itself.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/docs/results/seed000-p2p}"
REPS="${2:-3}"
T="$ROOT/.venv/bin/trellis"
SYNC="${SYNC:-p2p}"
mkdir -p "$OUT"
PLANS="$OUT/plans"

# LAM-MPI's trees for every process count: `trellis plan` writes one size a file; the
# rules pick the file by ranks=.
lam_rules() {
    mkdir -p "$PLANS"
    : >"$PLANS/lam-all.rules"
    for n in $(seq 1 16); do
        "$T" plan --hosts 1 --ranks-per-host "$n" --scheme lam --name "lam$n" --out "$PLANS" >/dev/null
        echo "allreduce ranks=$n tree file=lam$n.tree" >>"$PLANS/lam-all.rules"
    done
}

RB="reduce_bcast(reduce=linear,bcast=linear)"
CONFIGS=(
    --config ompi
    --config han
    --config "lam:rules=$PLANS/lam-all.rules"
    --config "linear:rules=allreduce reduce_bcast reduce=linear bcast=linear"
    --config "hier1:rules=allreduce hier levels=host,world host=linear world=$RB"
    --config "split2:rules=allreduce hier levels=group:2,world group=linear world=$RB"
    --config "hier-rd:rules=allreduce hier levels=host,world host=linear world=recursive_doubling"
)

bed() { "$T" testbed down >/dev/null; "$T" testbed up --hosts "$1" --slots "$2"; }
trap '"$T" testbed down >/dev/null' EXIT

lam_rules
bed 4 4
"$T" bench --sync "$SYNC" --testbed --colls allreduce --sizes 4 --np 1-16 --reps "$REPS" "${CONFIGS[@]}" \
    --out "$OUT/4x4-block"
"$T" bench --sync "$SYNC" --testbed --map-by node --colls allreduce --sizes 4 --np 1-16 --reps "$REPS" \
    "${CONFIGS[@]}" --out "$OUT/4x4-rr"
# The bar: 16 processes, more repetitions.
"$T" bench --sync "$SYNC" --testbed --colls allreduce --sizes 4 --np 16 --reps $((REPS * 4)) "${CONFIGS[@]}" \
    --out "$OUT/4x4-16"
bed 8 2
"$T" bench --sync "$SYNC" --testbed --colls allreduce --sizes 4 --np 16 --reps "$REPS" "${CONFIGS[@]}" \
    --out "$OUT/8x2-16"
# Section 5.4: hosts 1..8 of 2 ranks each.
"$T" bench --sync "$SYNC" --testbed --colls allreduce --sizes 4 --np 2,4,6,8,10,12,14,16 --reps "$REPS" \
    "${CONFIGS[@]}" --out "$OUT/scaling-2way"
bed 2 8
"$T" bench --sync "$SYNC" --testbed --colls allreduce --sizes 4 --np 16 --reps "$REPS" "${CONFIGS[@]}" \
    --out "$OUT/2x8-16"
