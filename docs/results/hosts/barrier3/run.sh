#!/usr/bin/env bash
# Barrier on the emulated 4 x 4 (uncapped links) against Open MPI's default and han,
# 2026-11-27: the built-in hier barrier (leaders: linear) against the leaders signalling
# each other in one round (world=direct). Run from the repository root after
# scripts/setup.sh; REPS repetitions (40) of 500 calls; then paired.py for the
# per-repetition ratios.
set -eu
out=docs/results/hosts/barrier3
t=.venv/bin/trellis
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
$t testbed up --hosts 4 --slots 4
$t bench --testbed --np 16 --sizes 4 --reps "${REPS:-40}" --iters 500 --colls barrier \
  --config ompi --config han --config builtin: \
  --config "direct:rules=barrier hier host=knomial(radix=4) world=direct" --out $out/run1
$t testbed down
python3 docs/results/hosts/barrier2/paired.py $out
