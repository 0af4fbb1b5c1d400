#!/usr/bin/env bash
# What chaining messages a tag period apart (trl_sched_finish, 8ac24d1) costs the
# executor: bench/exec_steps (allreduce ring segment=4 on 2 ranks, 161 to 655,361 steps)
# with the build before it (OLD=<that build dir>, e.g. a worktree of 714ed93) and this
# one, alternating, three launches each, shared memory on and off. 2026-11-27. Run from
# the repository root after scripts/setup.sh; about 2 minutes.
set -eu
out=docs/results/tag_chain
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for k in 1 2 3; do for b in "old:$OLD" new:build; do for shm in 1 0; do
  mpirun -np 2 "${b#*:}/bench/exec_steps" --max-steps 3000000 --shm $shm \
    > "$out/${b%%:*}-shm$shm-$k.txt"
done; done; done
python3 "$out/summary.py"
