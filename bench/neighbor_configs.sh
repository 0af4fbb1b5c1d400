#!/usr/bin/env bash
# The neighbourhood algorithms side by side (issue 33): launches of
# bench/neighbor_bar.sh (one launch each), one per configuration in turn,
# then a table of the library's time over each configuration's (the two
# timed interleaved in the same launch), medians over the launches. What
# the built-in rules for the neighbourhood collectives were chosen from.
#
#   bench/neighbor_configs.sh [--reps N] [--out DIR] [--testbed]
#                             [--config NAME=ALGORITHM]...
#                             [-- neighbor_bar options...]
#
# Configurations: linear, locality (one leader a host), locality lanes=4
# (named lanes4), or those of --config instead (NAME a word, ALGORITHM
# the rest of a rule: --config lanes2='locality lanes=2'), in that order,
# each forced on all five neighbourhood collectives with TRELLIS_RULES
# (neighbor_bar's graphs: --graphs cart2d_ag,cart3d_ag for allgather,
# random_agv and random_w for allgatherv and alltoallw).
# --reps: launches per configuration (default 4), taken in turn so that a
# slow stretch of the machine touches them all. --testbed: across the
# emulated cluster that is up (trellis testbed up), as the bar is defined.
# Writes DIR/<config>_<k>/launch_1.csv and DIR/compare.md (default DIR
# results/neighbor_configs). Exits non-zero if a launch failed.
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out="$repo/results/neighbor_configs"
reps=4
names=()
declare -A algos=()
bar=()
while [ $# -gt 0 ]; do
    case "$1" in
    --reps) reps="$2"; shift ;;
    --out) out="$2"; shift ;;
    --testbed) bar+=(--testbed) ;;
    --config)
        name=${2%%=*}
        if [[ ! "$name" =~ ^[A-Za-z0-9_]+$ || "$2" != *=?* ]]; then
            echo "neighbor_configs.sh: --config NAME=ALGORITHM, got '$2'" >&2
            exit 2
        fi
        names+=("$name")
        algos[$name]=${2#*=}
        shift
        ;;
    --) shift; break ;;
    -h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "neighbor_configs.sh: unknown argument: $1" >&2; exit 2 ;;
    esac
    shift
done
colls="neighbor_allgather neighbor_allgatherv neighbor_alltoall neighbor_alltoallv neighbor_alltoallw"
if [ ${#names[@]} -eq 0 ]; then
    names=(locality lanes4 linear)
    algos=([locality]=locality [lanes4]="locality lanes=4" [linear]=linear)
fi
declare -A rules=()
for config in "${names[@]}"; do
    for coll in $colls; do
        rules[$config]+="$coll ${algos[$config]}; "
    done
done
mkdir -p "$out" || exit 2
for config in "${names[@]}"; do rm -rf "$out/${config}_"[0-9]*; done
rm -f "$out/compare.md"
failed=0
for k in $(seq 1 "$reps"); do
    for config in "${names[@]}"; do
        echo "neighbor_configs.sh: launch $k of $reps, $config" >&2
        TRELLIS_RULES="${rules[$config]}" bash "$repo/bench/neighbor_bar.sh" \
            ${bar[@]+"${bar[@]}"} --reps 1 --out "$out/${config}_$k" -- "$@" >/dev/null ||
            failed=1
    done
done

python3 - "$out" "${names[@]}" >"$out/compare.md" <<'EOF'
import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

out = Path(sys.argv[1])
configs = sys.argv[2:]
ratio = defaultdict(list)  # (graph, bytes, config) -> mpi/trellis of each launch
trellis = defaultdict(list)
for config in configs:
    for f in sorted(out.glob(f"{config}_*/launch_*.csv")):
        rows = {(r["graph"], int(r["bytes"]), r["variant"]): float(r["median_us"])
                for r in csv.DictReader(f.open())}
        for (g, n, v), us in rows.items():
            if v == "trellis" and (g, n, "mpi") in rows:
                ratio[g, n, config].append(rows[g, n, "mpi"] / us)
                trellis[g, n, config].append(us)
print("# Neighbourhood algorithms side by side: MPI library's time / Trellis' "
      "(above 1: Trellis faster), medians over launches\n")
print("| graph | bytes | " + " | ".join(f"{c} (us)" for c in configs) + " |")
print("|---|---|" + "---|" * len(configs))
for g, n in sorted({(g, n) for g, n, _ in ratio}):
    row = []
    for c in configs:
        r, t = ratio.get((g, n, c)), trellis.get((g, n, c))
        row.append(f"{statistics.median(r):.2f} ({statistics.median(t):.0f})" if r else "-")
    print(f"| {g} | {n} | " + " | ".join(row) + " |")
EOF
cat "$out/compare.md"
exit "$failed"
