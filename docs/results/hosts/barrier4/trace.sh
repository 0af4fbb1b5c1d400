#!/usr/bin/env bash
# Where the 4 x 4 barrier's time goes (2026-11-27): the built-in barrier traced on the
# testbed, then the breakdown of the last two calls (trace.txt). Run from the repository
# root after scripts/setup.sh; 1 minute.
set -eu
t=.venv/bin/trellis
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
dir=$(mktemp -d)
$t testbed up --hosts 4 --slots 4
$t run --testbed -np 16 --trace "$dir" build/bench/latency --colls barrier --min 4 --max 4 \
  --iters 500 --sync p2p
$t testbed down
$t trace "$dir" --calls 2 > docs/results/hosts/barrier4/trace.txt
rm -rf "$dir"
