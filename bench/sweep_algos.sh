#!/usr/bin/env bash
# Every algorithm of some collectives forced in turn (TRELLIS_RULES), each
# timed against the MPI library's own in one run of bench/latency: the
# measurements behind the built-in rules (docs/notebook/builtin-rules-one-host.md). One CSV per
# (ranks, collective, algorithm); bench/algo_table.py turns them into tables.
#
#   bench/sweep_algos.sh --np N --colls "gather scatter" [--out DIR] [latency options...]
#
# More than 2 ranks run oversubscribed on this 2-core machine. Exits
# non-zero if a run failed or a result was wrong.
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="${TRELLIS_BUILD:-$repo/build}"
out="$repo/results/sweep_algos"
np=2 colls="" extra=()
while [ $# -gt 0 ]; do
    case "$1" in
    --np) np="$2"; shift ;;
    --colls) colls="$2"; shift ;;
    --out) out="$2"; shift ;;
    -h | --help) sed -n 2,11p "$0"; exit 0 ;;
    *) extra+=("$1") ;;
    esac
    shift
done
[ -n "$colls" ] || { echo "sweep_algos.sh: --colls is required" >&2; exit 2; }
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
args=(-np "$np")
[ "$np" -gt 2 ] && args+=(--oversubscribe --mca mpi_yield_when_idle 1)

# Trellis' own algorithms of a collective, from the table.
algorithms() {
    "$build/trellis-info" algorithms | python3 -c '
import json, sys
for a in json.load(sys.stdin):
    if a["collective"] == sys.argv[1] and a["name"] != "mpi":
        print(a["name"])' "$1"
}

failed=0
for coll in $colls; do
    for algo in $(algorithms "$coll"); do
        csv="$out/algo_np${np}_${coll}_${algo}.csv"
        echo "== $coll $algo, $np ranks -> $csv" >&2
        if ! mpirun "${args[@]}" -x LD_PRELOAD="$build/libtrellis.so" \
            -x TRELLIS_RULES="$coll $algo" "$build/bench/latency" --colls "$coll" \
            --csv "$csv" "${extra[@]}" >"$out/algo_np${np}_${coll}_${algo}.txt"; then
            echo "sweep_algos.sh: $coll $algo on $np ranks failed" >&2
            failed=1
        fi
    done
done
exit $failed
