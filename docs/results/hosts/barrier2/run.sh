#!/usr/bin/env bash
# Barrier on the emulated 4 x 4 (uncapped links) against Open MPI's default and han,
# 2026-11-26: issue 12's "no slower than han". Run from the repository root after
# scripts/setup.sh; about 11 minutes; then paired.py for the per-repetition ratios.
set -eu
out=docs/results/hosts/barrier2
t=.venv/bin/trellis
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
$t testbed up --hosts 4 --slots 4
$t bench --testbed --np 16 --sizes 4 --reps 20 --iters 500 --colls barrier \
  --config ompi --config han --config builtin: \
  --config "sp:rules=barrier hier host=knomial(radix=4) world=linear" \
  --config "dis:rules=barrier hier host=knomial(radix=4) world=dissemination" --out $out/run1
$t bench --testbed --np 16 --sizes 4 --reps 40 --iters 500 --colls barrier \
  --config ompi --config han --config builtin: --out $out/run2
$t bench --testbed --np 16 --sizes 4 --reps 60 --iters 500 --colls barrier \
  --config ompi --config han --config builtin: --out $out/run3
$t testbed down
python3 $out/paired.py $out
