#!/usr/bin/env bash
# Issue 13's bar for non-blocking collectives, measured: repeated launches
# of bench/latency (iallreduce: start + wait against the MPI library's and
# against Trellis' blocking call) and bench/overlap (iallreduce with
# progress only in MPI calls and with TRELLIS_PROGRESS=thread, each with
# and without MPI_Test in the computation), then the tables and the bar
# (bench/nb_bar.py).
#
#   bench/run_nb_bar.sh [--reps N] [--np N] [--out DIR] [--build DIR]
#                       [--only latency|overlap] [--testbed] [--max SIZE]
#                       [--progress "unset thread"] [--quick]
#
# Every launch alternates its variants itself (bench/README.md); launches
# are repeated --reps times (default 7), the overlap modes alternating
# (unset, thread; then thread, unset; ...), so the machine's drift hits all
# alike, and the tables give the median over launches with the fastest and
# slowest launch. --testbed runs the overlap launches across the emulated
# cluster that is up (trellis testbed up; its mpirun options), with --np
# ranks (default 2; 16 for 4 x 4). --max ends the overlap sweep below its
# 16M (on the testbed's slow links the large sizes take minutes a launch);
# --progress the overlap launches' modes (default both).
# TRELLIS_* variables of the calling
# shell go to every rank. Writes DIR/latency_rN.csv,
# DIR/overlap_MODE_rN.csv, their standard output and error, and
# DIR/bar.md (the files of an earlier run there go first). Meant to take
# at most about 5 minutes on 2 idle cores with the defaults; --quick
# (one repetition, a few sizes, few iterations: seconds) only shows that
# the whole chain runs, its figures mean nothing.
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="${TRELLIS_BUILD:-$repo/build}"
out="$repo/results/nb_bar"
reps=7
np=2
only=""
testbed=0
quick=0
max=16M
progress="unset thread"
while [ $# -gt 0 ]; do
    case "$1" in
    --reps) reps="$2"; shift ;;
    --np) np="$2"; shift ;;
    --out) out="$2"; shift ;;
    --build) build="$2"; shift ;;
    --only) only="$2"; shift ;;
    --testbed) testbed=1 ;;
    --max) max="$2"; shift ;;
    --progress) progress="$2"; shift ;;
    --quick) quick=1 ;;
    -h | --help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_nb_bar.sh: unknown argument: $1" >&2; exit 2 ;;
    esac
    shift
done
lib="$build/libtrellis.so"
for f in "$lib" "$build/bench/latency" "$build/bench/overlap"; do
    [ -e "$f" ] || { echo "run_nb_bar.sh: missing $f (build first)" >&2; exit 2; }
done
mkdir -p "$out" || exit 2
# An earlier run's launches would count in this one's medians.
rm -f "$out"/latency_r*.* "$out"/overlap_*_r*.* "$out"/bar.md
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

launcher=(mpirun --oversubscribe -np "$np" -x "LD_PRELOAD=$lib")
if [ "$testbed" = 1 ]; then
    # The options trellis run --testbed adds (docs/testbed.md).
    mapfile -t tb < <(cd "$repo" && .venv/bin/python -c \
        'from pathlib import Path; from trellis import testbed
print("\n".join(testbed.mpirun_options(Path("/run/trellis-testbed"))))') || exit 2
    launcher+=("${tb[@]}" --mca mpi_yield_when_idle 1)
elif [ "$np" -gt "$(nproc)" ]; then
    launcher+=(--mca mpi_yield_when_idle 1)
fi
for name in $(env | sed -n 's/^\(TRELLIS_[A-Z_]*\)=.*/\1/p'); do
    [ "$name" = TRELLIS_BUILD ] || [ "$name" = TRELLIS_PROGRESS ] || launcher+=(-x "$name")
done

# The sweeps: the issue's sizes, or --quick's few.
lat_sizes=(--min 8 --max 16M --step 2 --iters 1000 --scale 256K --min-iters 40 --row-seconds 4)
ovl_sizes=(--min 64K --max "$max" --step 2 --iters 100 --min-iters 40)
if [ "$quick" = 1 ]; then
    reps=1
    lat_sizes=(--min 8 --max 64K --step 64 --iters 20 --min-iters 5)
    ovl_sizes=(--min 64K --max 128K --step 2 --iters 5 --min-iters 5 --warmup 1)
fi
start=$SECONDS
load0=$(uptime | grep -o 'load average.*')

failed=0
run() { # name, then the command
    local name="$1"; shift
    echo "\$ $*" | tee "$out/$name.txt"
    echo "# $(uptime)" >>"$out/$name.txt"
    if ! timeout --foreground 1800 "$@" >>"$out/$name.txt" 2>"$out/$name.stderr"; then
        echo "run_nb_bar.sh: $name failed (see $out/$name.stderr)" >&2
        failed=1
    fi
    grep -v '^#' "$out/$name.txt" | tail -n +2
}

for r in $(seq 1 "$reps"); do
    echo "== repetition $r of $reps ($(uptime))"
    if [ "$only" != overlap ] && [ "$testbed" = 0 ]; then
        run "latency_r$r" "${launcher[@]}" "$build/bench/latency" --colls iallreduce \
            "${lat_sizes[@]}" --csv "$out/latency_r$r.csv"
    fi
    if [ "$only" != latency ]; then
        read -ra modes <<<"$progress"
        if [ $((r % 2)) = 0 ]; then # alternate the order
            for ((i = 0, j = ${#modes[@]} - 1; i < j; i++, j--)); do
                t=${modes[i]} modes[i]=${modes[j]} modes[j]=$t
            done
        fi
        for mode in "${modes[@]}"; do
            env=()
            [ "$mode" = thread ] && env=(-x TRELLIS_PROGRESS=thread)
            run "overlap_${mode}_r$r" "${launcher[@]}" "${env[@]}" "$build/bench/overlap" \
                --colls iallreduce "${ovl_sizes[@]}" --test-every 0,4 --csv "$out/overlap_${mode}_r$r.csv"
        done
    fi
done

{
    echo "# Non-blocking bar, $(date -u +%F), $reps repetitions, $np ranks$([ "$testbed" = 1 ] && echo ', testbed')$([ "$quick" = 1 ] && echo ', --quick: figures meaningless')"
    echo
    echo "Launches took $((SECONDS - start)) s; before them, $load0; after, $(uptime | grep -o 'load average.*')"
    ls "$out"/latency_r*.csv >/dev/null 2>&1 && python3 "$repo/bench/nb_bar.py" latency "$out"/latency_r*.csv --bar
    ls "$out"/overlap_*_r*.csv >/dev/null 2>&1 && python3 "$repo/bench/nb_bar.py" overlap "$out"/overlap_*_r*.csv --bar
} | tee "$out/bar.md"
exit "$failed"
