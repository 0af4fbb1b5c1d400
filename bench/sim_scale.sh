#!/usr/bin/env bash
# The scale bars of `trellis simulate` (docs/notebook/simulate.md, "Simulate at scale"): a
# 49,152-rank allreduce over a 3-level hierarchy (2 sockets x 24 cores x 1024 hosts)
# and a 1,000,000-rank binomial bcast. Each is timed with GNU time REPS times (default
# 3) whole (`trellis simulate`: the C simulation, then the Python analysis and
# printing), and in its two parts: trellis-info simulate, and the analysis of the
# timeline it wrote. The machine's load average is printed before each run: CPU time
# (user + sys) is what the machine's other work does not inflate.
#
#   bash bench/sim_scale.sh [REPS]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
T="$ROOT/.venv/bin/trellis"
REPS="${1:-3}"
MODEL="$ROOT/python/trellis/models/default.model"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
TIME=(/usr/bin/time -f "wall %e s, user %U s, sys %S s, max RSS %M KB")

one() {
    local coll="$1" ranks="$2" topology="$3" rules="$4"
    echo "\$ trellis simulate $coll --ranks $ranks --bytes 64K --topology '$topology' --rules '$rules'"
    for _ in $(seq "$REPS"); do
        echo "  load average: $(cut -d' ' -f1-3 /proc/loadavg)"
        echo -n "  whole command: "
        "${TIME[@]}" "$T" simulate "$coll" --ranks "$ranks" --bytes 64K --topology "$topology" \
            --rules "$rules" >"$WORK/out.txt" 2>"$WORK/time.txt" || { cat "$WORK/time.txt"; exit 1; }
        tail -1 "$WORK/time.txt"
        echo -n "  trellis-info simulate: "
        "${TIME[@]}" "$ROOT/build/trellis-info" simulate "$coll" --ranks "$ranks" --bytes 64K \
            --topology "$topology" --rules "$rules" --model "$MODEL" --out "$WORK/tl" \
            >"$WORK/meta.json" 2>"$WORK/time.txt"
        tail -1 "$WORK/time.txt"
        echo -n "  analysis: "
        "${TIME[@]}" "$ROOT/.venv/bin/python" -c "
import sys
from pathlib import Path
from trellis import timeline
tl, meta = timeline.load_simulation(Path(sys.argv[1]))
timeline.format_report(timeline.analyze_call(tl, 0))
print('predicted %.1f us, %d steps, %d messages; at most %d ranks held schedules (%d bytes)'
      % (meta['predicted_ns'] / 1e3, meta['steps'], meta['messages'], meta['peak_ranks'],
         meta['peak_bytes']), file=sys.stderr)
" "$WORK/tl" 2>"$WORK/time.txt"
        tail -1 "$WORK/time.txt"
        echo "  $(head -1 "$WORK/time.txt")"
    done
}

one allreduce 49152 "hosts=1024 ranks_per_host=48 sockets_per_host=2" \
    "allreduce hier levels=socket,host,world"
one bcast 1000000 "hosts=20000 ranks_per_host=50" "bcast binomial"
