#!/usr/bin/env bash
# allreduce hier_sharded with pipeline=K on the emulated 4 x 4 cluster, links capped at
# 1 Gbit/s (issue 12's large-message bar), 2026-11-26. Run from the repository root
# after scripts/setup.sh; about 20 minutes. Writes run1..run4 beside this script.
set -eu
out=docs/results/hosts/pipeline
t=.venv/bin/trellis
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
$t testbed up --hosts 4 --slots 4 --bandwidth 1gbit
ar='allreduce hier_sharded'
$t bench --testbed --np 16 --sizes 1M --reps 10 --iters 10 --colls allreduce \
  --config ompi --config han --config builtin: --config "P2:rules=$ar world=rabenseifner pipeline=2" \
  --config "P4:rules=$ar world=rabenseifner pipeline=4" \
  --config "P8:rules=$ar world=rabenseifner pipeline=8" --out $out/run1
$t bench --testbed --np 16 --sizes 1M --reps 12 --iters 10 --colls allreduce \
  --config ompi --config builtin: --config "P2:rules=$ar world=rabenseifner pipeline=2" \
  --config "P4:rules=$ar world=rabenseifner pipeline=4" --config "R2:rules=$ar pipeline=2" \
  --config "R4:rules=$ar pipeline=4" --out $out/run2
$t bench --testbed --np 16 --sizes 64K,256K,1M,4M --reps 10 --iters 10 --colls allreduce \
  --config ompi --config builtin: --config "P2:rules=$ar world=rabenseifner pipeline=2" \
  --config "R2:rules=$ar pipeline=2" --config "R3:rules=$ar pipeline=3" --out $out/run3
$t bench --testbed --np 16 --sizes 512K,1M,2M,4M --reps 10 --iters 10 --colls allreduce \
  --config ompi --config builtin: --config "R3:rules=$ar pipeline=3" \
  --config "R4:rules=$ar pipeline=4" --out $out/run4
$t testbed down
