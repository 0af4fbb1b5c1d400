#!/usr/bin/env bash
# Regenerate the tuned built-in rules (src/select/tuned.rules, embedded in the library
# ahead of the rules written by hand): `trellis tune` on reference layouts, each run's
# rules file (with its measurements, machine, MPI and command in its comments) kept in
# build/tune/, and tuned.rules made anew from all the runs there.
#
#   bench/tune_builtin.sh one-host 4x4            # tune these layouts, then assemble
#   bench/tune_builtin.sh --assemble              # only assemble from build/tune/
#
# Layouts: one-host (2, 4 and 8 ranks on this machine, those it has cores for), HxS (H emulated hosts of S ranks:
# 4x4, 8x2, 2x8), HxS-RATE (links capped: 4x4-1gbit). The emulated ones need root
# (trellis testbed). TUNE_BUDGET (15m) is each run's budget; TUNE_SIZES the sizes.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TRELLIS="$ROOT/.venv/bin/trellis"
OUT="$ROOT/build/tune"
BUDGET="${TUNE_BUDGET:-15m}"
SIZES="${TUNE_SIZES:-4,256,4K,64K,256K,1M}"
COLLS=allreduce,bcast,reduce,allgather,alltoall,barrier,gather,scatter,reduce_scatter
mkdir -p "$OUT"
# Each run measures against the rules written by hand ("built-in" in its comments), not
# against the tuned rules of an earlier run.
export TRELLIS_TUNED=0

tune_layout() {
    local name=$1
    if [[ $name == one-host ]]; then
        # 2, 4 and 8 ranks where the machine has a core for each: rules measured with
        # ranks sharing cores would carry that sharing's costs to every program run
        # with a core a rank.
        local np="" n
        for n in 2 4 8; do
            ((n <= $(nproc))) && np+="${np:+,}$n"
        done
        "$TRELLIS" tune --np "${np:-2}" --colls "$COLLS" --sizes "$SIZES" --budget "$BUDGET" \
            --out "$OUT/$name.rules"
        return
    fi
    [[ $name =~ ^([0-9]+)x([0-9]+)(-(.+))?$ ]] || { echo "unknown layout $name" >&2; exit 2; }
    local hosts=${BASH_REMATCH[1]} slots=${BASH_REMATCH[2]} rate=${BASH_REMATCH[4]}
    "$TRELLIS" testbed down >/dev/null 2>&1 || true
    "$TRELLIS" testbed up --hosts "$hosts" --slots "$slots" ${rate:+--bandwidth "$rate"}
    "$TRELLIS" tune --np $((hosts * slots)) --testbed --colls "$COLLS" --sizes "$SIZES" \
        --budget "$BUDGET" --out "$OUT/$name.rules"
    "$TRELLIS" testbed down
}

assemble() {
    local target="$ROOT/src/select/tuned.rules"
    {
        echo "# Built-in rules measured by \`trellis tune\` on reference layouts (docs/tune.md),"
        echo "# made by bench/tune_builtin.sh from its runs in build/tune/: each run's header"
        echo "# gives its date, machine, MPI library and command, each rule the measurements"
        echo "# behind it. They name their layout exactly; the rules written by hand follow."
        echo "# Where two quiet measurements on both link classes disagreed with a run, a rule was"
        echo "# changed afterwards by hand: its comment is dated and cites those measurements, and"
        echo "# assembling anew from build/tune/ drops it (carry it over, or measure it again)."
        for f in "$OUT"/*.rules; do
            [[ -e $f ]] || continue
            echo
            echo "# ---- $(basename "$f" .rules) ----"
            cat "$f"
        done
        echo
    } >"$target"
    echo "wrote $target"
}

if [[ ${1:-} == --assemble ]]; then
    assemble
    exit 0
fi
(($#)) || { echo "usage: $0 LAYOUT... | --assemble" >&2; exit 2; }
for layout in "$@"; do
    tune_layout "$layout"
done
assemble
