#!/usr/bin/env bash
# Regenerate the tuned built-in rules (src/select/tuned.rules, embedded in the library
# ahead of the rules written by hand): `trellis tune` on reference layouts (each run in
# build/tune/, its rules file, with its measurements, machine, MPI and command in its
# comments, copied to docs/results/tune/LAYOUT.rules to be committed), then tuned.rules
# made anew from bench/tune_amendments.rules (rules changed by hand after a run, each
# citing its measurements: they go first and win) and the runs in docs/results/tune/.
#
#   bench/tune_builtin.sh one-host 4x4     # tune these layouts, then assemble
#   bench/tune_builtin.sh --assemble       # only assemble, from the layouts tuned.rules holds
#   bench/tune_builtin.sh --assemble [--to FILE] RUN.rules...   # from these runs
#
# Assembling takes the layouts the committed file holds (its sections), and those just
# tuned, each from docs/results/tune/LAYOUT.rules: a fresh clone assembles the committed
# file byte for byte (tests/cli/test_tune_builtin.py checks it).
# Layouts: one-host (2, 4 and 8 ranks on this machine, those it has cores for), HxS (H emulated hosts of S ranks:
# 4x4, 8x2, 2x8), HxS-RATE (links capped: 4x4-1gbit). The emulated ones need root
# (trellis testbed). TUNE_BUDGET (15m) is each run's budget; TUNE_SIZES the sizes.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TRELLIS="$ROOT/.venv/bin/trellis"
OUT="$ROOT/build/tune"
RUNS="$ROOT/docs/results/tune"
TARGET="$ROOT/src/select/tuned.rules"
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
        cp "$OUT/$name.rules" "$RUNS/$name.rules"
        return
    fi
    [[ $name =~ ^([0-9]+)x([0-9]+)(-(.+))?$ ]] || { echo "unknown layout $name" >&2; exit 2; }
    local hosts=${BASH_REMATCH[1]} slots=${BASH_REMATCH[2]} rate=${BASH_REMATCH[4]}
    "$TRELLIS" testbed down >/dev/null 2>&1 || true
    "$TRELLIS" testbed up --hosts "$hosts" --slots "$slots" ${rate:+--bandwidth "$rate"}
    "$TRELLIS" tune --np $((hosts * slots)) --testbed --colls "$COLLS" --sizes "$SIZES" \
        --budget "$BUDGET" --out "$OUT/$name.rules"
    "$TRELLIS" testbed down
    cp "$OUT/$name.rules" "$RUNS/$name.rules"
}

# The runs to assemble: the layouts the committed file holds and those named, sorted,
# each from docs/results/tune/.
default_runs() {
    local name
    {
        [[ -f $TARGET ]] && sed -n 's/^# ---- \(.*\) ----$/\1/p' "$TARGET" | grep -vx amendments
        for name in "$@"; do echo "$name"; done
    } | sort -u | while read -r name; do echo "$RUNS/$name.rules"; done
}

# assemble TARGET RUN...: the header, the amendments, then each run as a section named
# after its file.
assemble() {
    local target=$1 f
    shift
    (($#)) || { echo "tune_builtin.sh: no runs to assemble" >&2; exit 2; }
    for f in "$@"; do
        [[ -f $f ]] || { echo "tune_builtin.sh: no such run: $f" >&2; exit 2; }
    done
    {
        echo "# Built-in rules measured by \`trellis tune\` on reference layouts (docs/tune.md),"
        echo "# made by bench/tune_builtin.sh: first the amendments (bench/tune_amendments.rules,"
        echo "# rules changed by hand after a run, each citing its measurements), then its runs,"
        echo "# each run's header giving its date, machine, MPI library and command, each rule the"
        echo "# measurements behind it. They name their layout exactly; the first rule that"
        echo "# matches wins, and the rules written by hand follow. Do not edit: change the"
        echo "# amendments or tune again, then assemble."
        echo
        echo "# ---- amendments ----"
        cat "$ROOT/bench/tune_amendments.rules"
        for f in "$@"; do
            echo
            echo "# ---- $(basename "$f" .rules) ----"
            cat "$f"
        done
        echo
    } >"$target"
    echo "wrote $target"
}

if [[ ${1:-} == --assemble ]]; then
    shift
    target=$TARGET
    if [[ ${1:-} == --to ]]; then
        target=${2:?--to needs a file}
        shift 2
    fi
    if (($#)); then
        runs=("$@")
    else
        mapfile -t runs < <(default_runs)
    fi
    assemble "$target" "${runs[@]}"
    exit 0
fi
(($#)) || { echo "usage: $0 LAYOUT... | --assemble [--to FILE] [RUN.rules...]" >&2; exit 2; }
for layout in "$@"; do
    tune_layout "$layout"
done
mapfile -t runs < <(default_runs "$@")
assemble "$TARGET" "${runs[@]}"
