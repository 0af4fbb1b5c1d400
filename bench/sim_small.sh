#!/usr/bin/env bash
# 4-byte allreduce on the emulated cluster with 1, 2 and 4 ranks per host (4 hosts,
# round-robin placement, capped links), to set simulate's error on small calls against
# how many ranks share the machine's 2 cores (docs/notebook/simulate.md, "Simulate against
# the testbed"). bench/sim_accuracy.py-style comparison: python3 bench/sim_small.py OUT.
#
#   flock /tmp/trellis-testbed.lock bash bench/sim_small.sh OUT BANDWIDTH [REPS]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:?usage: sim_small.sh OUT BANDWIDTH [REPS]}"
BW="${2:?usage: sim_small.sh OUT BANDWIDTH [REPS]}"
REPS="${3:-4}"
T="$ROOT/.venv/bin/trellis"
mkdir -p "$OUT"
trap '"$T" testbed down >/dev/null' EXIT
"$T" testbed down >/dev/null
"$T" testbed up --hosts 4 --slots 4 --bandwidth "$BW"
"$T" bench --testbed --map-by node --colls allreduce --sizes 4 --np 4,8,16 --reps "$REPS" \
    --iters 300 --baseline hier1 \
    --config "linear:rules=allreduce reduce_bcast reduce=linear bcast=linear" \
    --config "hier1:rules=allreduce hier levels=host,world host=linear world=reduce_bcast(reduce=linear,bcast=linear)" \
    --out "$OUT"
echo "load average after: $(cat /proc/loadavg)" >"$OUT/load.txt"
