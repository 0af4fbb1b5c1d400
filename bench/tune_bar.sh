#!/usr/bin/env bash
# Issue 31's bar on one emulated-cluster shape: Open MPI's default (twice: the second,
# `again`, measures the noise between jobs), han, Trellis with
# the tuned built-in rules and with the hand rules alone (TRELLIS_TUNED=0), and, if
# given, a rules file of `trellis tune`, interleaved by `trellis bench`, at 4 B, 64 KiB
# and 1 MiB for the nine collectives of the bar.
#
#   bench/tune_bar.sh 4x4 [RULES]        # H x S: H emulated hosts of S ranks
#   bench/tune_bar.sh 4x4-1gbit [RULES]  # links capped
#   bench/tune_bar.sh 4x4-50us [RULES]   # each message between hosts delayed (--delay)
#
# Needs root (trellis testbed). Writes results/tune_bar/SHAPE/SIZE/ (bench's CSVs, plot)
# and prints each size's table (bench/tune_bar_table.py makes the bar's table of them).
# REPS (3) repetitions; the iterations per run shrink with
# the size so that a shape takes about 12 minutes on a 2-core machine.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TRELLIS="$ROOT/.venv/bin/trellis"
shape=${1:?usage: $0 HxS[-RATE][-DELAY] [RULES]}
rules=${2:-}
[[ $shape =~ ^([0-9]+)x([0-9]+)(-([0-9.]+[kmg]?bit))?(-([0-9.]+(us|ms)))?$ ]] ||
    { echo "bad shape $shape (HxS, HxS-1gbit, HxS-50us, HxS-1gbit-50us)" >&2; exit 2; }
hosts=${BASH_REMATCH[1]} slots=${BASH_REMATCH[2]} rate=${BASH_REMATCH[4]}
delay=${BASH_REMATCH[6]}
colls=allreduce,bcast,reduce,allgather,alltoall,barrier,gather,scatter,reduce_scatter
# `again`: Open MPI's default a second time (its tuned component at its default
# priority), the control that measures how far apart two jobs of the same
# configuration land (bench/tune_bar_table.py's noise).
configs=(--config ompi --config han --config "tuned:TRELLIS_TUNED=1"
         --config "hand:TRELLIS_TUNED=0" --config "again:OMPI_MCA_coll_tuned_priority=30")
# The file over the hand rules alone, as `trellis tune` measured it: a run made with the
# tuned rules in force (TRELLIS_TUNED on) left its sizes to other choices, and its bar
# would measure the hand rules' there; its JSON says which (cmd_tune.builtin_rules_id).
if [[ -n $rules ]]; then
    TRELLIS_TUNED=0 "$ROOT/.venv/bin/python" - "$rules" <<'PY' || exit 2
import sys
from pathlib import Path
from trellis import cmd_tune
rules = Path(sys.argv[1])
if cmd_tune.recorded_builtin_rules(rules) not in (None, cmd_tune.builtin_rules_id()):
    sys.exit(f"tune_bar.sh: {rules.name} was tuned against other built-in rules than the "
             "hand rules alone (TRELLIS_TUNED on, or another library): tune it again with "
             "TRELLIS_TUNED=0, as bench/tune_builtin.sh does")
PY
    configs+=(--config "file:rules=$(realpath "$rules");TRELLIS_TUNED=0")
fi
"$TRELLIS" testbed down >/dev/null 2>&1 || true
"$TRELLIS" testbed up --hosts "$hosts" --slots "$slots" ${rate:+--bandwidth "$rate"} \
    ${delay:+--delay "$delay"}
trap '"$TRELLIS" testbed down >/dev/null 2>&1 || true' EXIT
for pair in 4:200 64K:40 1M:8; do
    size=${pair%%:*} iters=${pair##*:}
    echo "== $shape, $size, $iters iterations a run, ${REPS:-3} repetitions"
    "$TRELLIS" bench --testbed --np $((hosts * slots)) --colls "$colls" --sizes "$size" \
        --iters "$iters" --reps "${REPS:-3}" "${configs[@]}" \
        --out "$ROOT/results/tune_bar/$shape/$size"
done
