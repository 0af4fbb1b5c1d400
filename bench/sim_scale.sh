#!/usr/bin/env bash
# The scale bars of `trellis simulate` (docs/results.md, "Simulate at scale"): a
# 49,152-rank allreduce over a 3-level hierarchy (2 sockets x 24 cores x 1024 hosts)
# and a 1,000,000-rank binomial bcast, each timed whole (the Python command, the C
# simulation, the analysis) with GNU time, REPS times (default 3).
#
#   bash bench/sim_scale.sh [REPS]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
T="$ROOT/.venv/bin/trellis"
REPS="${1:-3}"
TIME=(/usr/bin/time -f "wall %e s, user %U s, sys %S s, max RSS %M KB")

one() {
    echo "\$ trellis simulate $*"
    for _ in $(seq "$REPS"); do
        echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
        "${TIME[@]}" "$T" simulate "$@" --json >/tmp/trellis-sim-scale.json
        python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))[0]
print(f"predicted {r[\"predicted_ns\"] / 1e3:.1f} us, {r[\"steps\"]} steps, {r[\"messages\"]} messages, "
      f"simulation alone {r[\"seconds\"]:.2f} s")' /tmp/trellis-sim-scale.json
    done
}

one allreduce --ranks 49152 --bytes 64K --topology "hosts=1024 ranks_per_host=48 sockets_per_host=2" \
    --rules "allreduce hier levels=socket,host,world"
one bcast --ranks 1000000 --bytes 64K --topology "hosts=20000 ranks_per_host=50" \
    --rules "bcast binomial"
