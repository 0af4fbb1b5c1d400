#!/usr/bin/env bash
# The 4 x 4 barrier with waiting ranks put to sleep sooner (2026-11-27): the built-in
# rules with TRELLIS_SHM_SPIN (polls before a rank waiting on shared memory sleeps on a
# futex; default 65536) at 0, 64 and 1024, against Open MPI's default and han, 20
# repetitions of 500 calls. Run from the repository root after scripts/setup.sh; 3 minutes.
set -eu
out=docs/results/hosts/barrier4/sleep
t=.venv/bin/trellis
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
$t testbed up --hosts 4 --slots 4
$t bench --testbed --np 16 --sizes 4 --reps "${REPS:-20}" --iters 500 --colls barrier \
  --config ompi --config han --config builtin: --config "s0:TRELLIS_SHM_SPIN=0" \
  --config "s64:TRELLIS_SHM_SPIN=64" --config "s1k:TRELLIS_SHM_SPIN=1024" --out $out
$t testbed down
