#!/usr/bin/env bash
# The pipelined form on 8 x 2 and 2 x 8 at 1 Gbit/s, 1 MiB (2026-11-26): about 6
# minutes. Run from the repository root after scripts/setup.sh.
set -eu
out=docs/results/hosts/pipeline
t=.venv/bin/trellis
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ar='allreduce hier_sharded'
$t testbed up --hosts 8 --slots 2 --bandwidth 1gbit
$t bench --testbed --np 16 --sizes 1M --reps 10 --iters 10 --colls allreduce \
  --config ompi --config builtin: --config "R3:rules=$ar pipeline=3" \
  --config "P3:rules=$ar world=rabenseifner pipeline=3" --out $out/s8x2
$t testbed down
$t testbed up --hosts 2 --slots 8 --bandwidth 1gbit
$t bench --testbed --np 16 --sizes 1M --reps 10 --iters 10 --colls allreduce \
  --config ompi --config builtin: --config "R3:rules=$ar pipeline=3" \
  --config "R2:rules=$ar pipeline=2" --out $out/s2x8
$t testbed down
