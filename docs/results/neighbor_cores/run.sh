#!/usr/bin/env bash
# Which ranks share a core, and the neighbourhood bar's spread over launches
# (docs/notebook/neighbor.md, "Where the launches' spread came from"). On the
# emulated 4 x 4 with shared cores (trellis testbed up --hosts 4 --slots 4),
# 3 rounds of 3 launches of bench/neighbor_bar (2D grid and the random graph's
# allgatherv, 8 B-1 KiB), each launch's ranks started by pin.sh: none (the
# kernel places them), spread (a host's ranks over both cores: local rank mod
# 2), packed (a host's ranks on one core: host mod 2, as --cores split does).
#
#   docs/results/neighbor_cores/run.sh OUT [BUILD]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:?usage: run.sh OUT [BUILD]}
build=${2:-$repo/build}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mapfile -t tb < <(cd "$repo" && .venv/bin/python -c \
    'from pathlib import Path; from trellis import testbed
print("\n".join(testbed.mpirun_options(Path("/run/trellis-testbed"))))')
for i in 1 2 3; do
    for pin in none spread packed; do
        mpirun --oversubscribe -np 16 -x "LD_PRELOAD=$build/libtrellis.so" "${tb[@]}" \
            --mca mpi_yield_when_idle 1 -x PIN=$pin "$repo/docs/results/neighbor_cores/pin.sh" \
            "$build/bench/neighbor_bar" --graphs cart2d,random_agv --iters 30 --rounds 5 \
            --max 1024 >"$out/pin_${pin}_$i.csv"
    done
done
