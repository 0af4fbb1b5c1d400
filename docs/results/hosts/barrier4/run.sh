#!/usr/bin/env bash
# Barrier on the emulated 4 x 4 (uncapped links), 2026-11-27: the built-in rules (no
# TRELLIS_RULES) against Open MPI's default and han, REPS repetitions (100) of 500 calls,
# configurations alternating; then pooled.py for the per-repetition ratios over han, with
# this run and the earlier ones (barrier2, barrier3) pooled. Run from the repository root
# after scripts/setup.sh; about 8 minutes.
set -eu
out=docs/results/hosts/barrier4
t=.venv/bin/trellis
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
$t testbed up --hosts 4 --slots 4
$t bench --testbed --np 16 --sizes 4 --reps "${REPS:-100}" --iters 500 --colls barrier \
  --config ompi --config han --config builtin: --out $out/run1
$t testbed down
python3 $out/pooled.py
