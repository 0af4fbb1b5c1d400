#!/usr/bin/env bash
# The main benchmark job: the MPI library's own collectives against Trellis
# on this machine.
#
#   1. The latency sweep (bench/latency) on 2 ranks, all 17 collectives
#      Trellis serves, with libtrellis.so preloaded: in each row the MPI
#      library's own collective (PMPI_*) and Trellis (MPI_*) are timed
#      alternately in the same run. Two launches, so that the job stays
#      within a few minutes:
#        a. bcast, reduce, allreduce, barrier: 8 B .. 16 MiB by powers of 2,
#           2000 iterations per variant up to 2 MiB (250 at 16 MiB), at most
#           4 s a row, as before (about 1-2 minutes);
#        b. the 13 others (gather, gatherv, scatter, scatterv, allgather,
#           allgatherv, alltoall, alltoallv, alltoallw, reduce_scatter,
#           reduce_scatter_block, scan, exscan): 8 B .. 4 MiB by powers of 4
#           (11 rows each), 1000 iterations per variant up to 1 MiB (250 at
#           4 MiB), at most 2 s a row (about 40 s). The largest size stops at
#           4 MiB because for the block collectives the size is one rank's
#           block (each rank sends or receives ranks x that), and the coarser
#           step keeps 13 x 11 rows to the time of the four in (a).
#      Both launches go to the same table and CSV (latency_np2.txt, .csv).
#   2. The global reduction benchmark of seed 000, Figure 4
#      (bench/global_reduction) for 1, 2 and 4 ranks, without and with
#      libtrellis.so preloaded, the two launches alternated and repeated.
#
# The builds are done by the set-up (build/ at the repository root, against
# Open MPI; build-mpich/ against MPICH, with --mpi mpich). The tables go to
# standard output; the raw outputs and CSV go to the results folder. Takes about 3 minutes on the 2-core machine, 5 at most under load
# (--quick: 20-40 seconds). Exits non-zero if any run failed, any
# result was wrong, or Trellis was not loaded where it was preloaded.
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mpi="${TRELLIS_MPI:-openmpi}"
build="${TRELLIS_BUILD:-}"
out="$repo/results/run_main"
quick=0
ranks_list="1 2 4"
lat_np=2

usage() {
    cat <<EOF
usage: bench/run_main.sh [--quick] [--mpi openmpi|mpich] [--build DIR] [--out DIR] [--ranks "1 2 4"]
  --quick        a short run (coarser size steps, fewer iterations)
  --mpi NAME     the MPI: openmpi (mpirun, build/; the default) or mpich (mpiexec,
                 build-mpich/); also TRELLIS_MPI
  --build DIR    the build folder with libtrellis.so and bench/ (default: the MPI's)
  --out DIR      where raw outputs and CSV go (default: $repo/results/run_main)
  --ranks LIST   process counts for the global reduction benchmark (default: "1 2 4")
Environment: TRELLIS_* variables are passed to the ranks; MPIRUN_ARGS adds
arguments to every launch (e.g. a hostfile).
EOF
}

while [ $# -gt 0 ]; do
    case "$1" in
    --quick) quick=1 ;;
    --mpi) mpi="$2"; shift ;;
    --build) build="$2"; shift ;;
    --out) out="$2"; shift ;;
    --ranks) ranks_list="$2"; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "run_main.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

# The launcher for this MPI comes from the trellis command's python/trellis/mpi_impl.py.
mpi_impl() { PYTHONPATH="$repo/python" python3 -m trellis.mpi_impl "$@" --mpi "$mpi"; }
case "$mpi" in
openmpi) build="${build:-$repo/build}" ;;
mpich) build="${build:-$repo/build-mpich}" ;;
*) echo "run_main.sh: unknown MPI: $mpi (openmpi or mpich)" >&2; exit 2 ;;
esac
lib="$build/libtrellis.so"
lat_bin="$build/bench/latency"
gr_bin="$build/bench/global_reduction"
for f in "$lib" "$lat_bin" "$gr_bin"; do
    if [ ! -e "$f" ]; then
        echo "run_main.sh: missing $f; build first:" >&2
        echo "  cmake -S $repo -B $build && make -C $build -j2" >&2
        exit 2
    fi
done
mapfile -d '' -t probe < <(mpi_impl launch --np 1)
command -v "${probe[0]}" >/dev/null || { echo "run_main.sh: ${probe[0]} not found" >&2; exit 2; }
mkdir -p "$out" || exit 2

# What the launcher itself needs (Open MPI refuses to run as root unless told it may).
while IFS= read -r -d '' setting; do
    export "${setting?}"
done < <(mpi_impl env)

# The latency launches: the collectives, then the arguments of each.
lat_colls=(bcast,reduce,allreduce,barrier
    gather,gatherv,scatter,scatterv,allgather,allgatherv,alltoall,alltoallv,alltoallw,reduce_scatter,reduce_scatter_block,scan,exscan)
if [ "$quick" = 1 ]; then
    lat_args=("--step 4 --iters 500 --scale 256K --min-iters 40 --row-seconds 1"
        "--step 8 --max 4M --iters 300 --scale 256K --min-iters 20 --row-seconds 0.5")
    gr_reps=1
    gr_runs=3
    lat_timeout=(300 300)
else
    lat_args=("--step 2 --iters 2000 --scale 2M --min-iters 250 --row-seconds 4"
        "--step 4 --max 4M --iters 1000 --scale 1M --min-iters 250 --row-seconds 2")
    gr_reps=5
    gr_runs=5
    lat_timeout=(900 600)
fi

cores=$(nproc 2>/dev/null || echo 1)
read -r -a extra_mpirun <<<"${MPIRUN_ARGS:-}"
# The TRELLIS_* settings of this shell reach every rank, also remote ones.
trellis_env=()
while IFS= read -r setting; do
    case "$setting" in TRELLIS_BUILD=* | TRELLIS_LIB=* | TRELLIS_MPI=*) continue ;; esac
    trellis_env+=(--env "$setting")
done < <(env | grep -E '^TRELLIS_[A-Za-z0-9_]*=' || true)

# mpirun_cmd NP [LIB]: the launcher and its options for NP ranks on this machine,
# with LIB preloaded, one argument a line. More ranks than cores needs
# oversubscribing, and yielding when idle (Open MPI), or busy-polling ranks
# starve each other.
mpirun_cmd() {
    local np=$1 preload=()
    [ -n "${2:-}" ] && preload=(--preload "$2")
    mapfile -d '' -t cmd < <(mpi_impl launch --np "$np" "${preload[@]}" "${trellis_env[@]}")
    printf '%s\n' "${cmd[@]}" "${extra_mpirun[@]}"
}

failed=()
start=$(date +%s)

echo "== Trellis main benchmark: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(hostname), $cores cores"
echo "== $("${probe[0]}" --version 2>/dev/null | grep -m 1 -E 'Open MPI|Version:' | tr -s ' '); library $lib"
echo "== results in $out"
echo

# 1. Latency sweep on $lat_np ranks with Trellis preloaded. --------------------
echo "== 1. latency sweep, $lat_np ranks, MPI library (PMPI_*) vs Trellis (MPI_*), alternated"
mapfile -t launcher < <(mpirun_cmd "$lat_np" "$lib")
lat_txt="$out/latency_np$lat_np.txt"
lat_err="$out/latency_np$lat_np.stderr"
lat_csv="$out/latency_np$lat_np.csv"
: >"$lat_txt"
: >"$lat_err"
rm -f "$lat_csv"
for i in "${!lat_colls[@]}"; do
    read -r -a args <<<"${lat_args[$i]}"
    part_csv="$out/latency_np$lat_np.part$i.csv"
    echo "\$ ${launcher[*]} $lat_bin --colls ${lat_colls[$i]} ${args[*]} --csv $part_csv"
    timeout "${lat_timeout[$i]}" "${launcher[@]}" "$lat_bin" \
        --colls "${lat_colls[$i]}" "${args[@]}" --csv "$part_csv" 2>>"$lat_err" | tee -a "$lat_txt"
    rc=${PIPESTATUS[0]}
    if [ "$rc" != 0 ]; then
        failed+=("latency np=$lat_np ${lat_colls[$i]} (exit $rc$([ "$rc" = 124 ] && echo ', timed out'))")
    fi
    # One CSV for both launches: the first one's header, then every row.
    if [ -s "$part_csv" ]; then
        if [ -s "$lat_csv" ]; then tail -n +2 "$part_csv" >>"$lat_csv"; else cat "$part_csv" >"$lat_csv"; fi
    fi
    rm -f "$part_csv"
    echo
done
if grep -q 'WARNING: Trellis is NOT loaded' "$lat_txt"; then
    failed+=("latency np=$lat_np: Trellis was not loaded under LD_PRELOAD=$lib")
fi
if [ -s "$lat_err" ]; then
    # Wrong results are shown in full; anything else (Trellis's notes on
    # fallbacks, for instance) only as a count and a sample.
    grep -E 'WRONG|FAIL|error|abort' "$lat_err" || true
    n=$(wc -l <"$lat_err")
    echo "-- $n lines on stderr (all in $lat_err); the first 5:"
    head -n 5 "$lat_err" | sed 's/^/   /'
fi
echo "-- CSV of both launches: $lat_csv (Markdown tables: bench/summarize.py $lat_csv)"
echo

# 2. Global reduction, Figure 4 of seed 000. --------------------------------
echo "== 2. global reduction (seed 000, Figure 4): 1000 x MPI_Allreduce(1 int), $gr_runs runs" \
    "per launch, $gr_reps launch(es) per cell, MPI and Trellis launches alternated"
gr_log="$out/global_reduction.txt"
gr_lines="$out/global_reduction.lines"
: >"$gr_log"
: >"$gr_lines"
: >"$out/global_reduction.stderr"
for rep in $(seq 1 "$gr_reps"); do
    for np in $ranks_list; do
        for variant in mpi trellis; do
            mapfile -t launcher < <(mpirun_cmd "$np" "$([ "$variant" = trellis ] && echo "$lib")")
            line=$(timeout 120 "${launcher[@]}" "$gr_bin" --runs "$gr_runs" \
                2>>"$out/global_reduction.stderr" | tee -a "$gr_log" | grep '^global_reduction ')
            rc=$?
            if [ -n "$line" ]; then
                echo "$variant rep=$rep $line" >>"$gr_lines"
                echo "   [$variant] $line"
            fi
            if [ "$variant" = trellis ] && [[ "$line" == *" trellis=none"* ]]; then
                failed+=("global_reduction np=$np: Trellis was not loaded under LD_PRELOAD=$lib")
            fi
            if [ "$rc" != 0 ] || [ -z "$line" ]; then
                failed+=("global_reduction np=$np $variant (exit $rc)")
                echo "   [$variant] np=$np FAILED (exit $rc; see $gr_log)"
            fi
        done
    done
done
echo
# Per process count: the median over launches of avg_us, per variant.
if [ -s "$gr_lines" ]; then
    awk '
    function kv(key,   i, a) {
        for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == key) return a[2] }
        return ""
    }
    function median(list,   n, v, i, j, t) {
        n = split(list, v, " ")
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    {
        np = kv("ranks"); var = $1
        vals[var, np] = vals[var, np] " " kv("avg_us")
        errs[var, np] += kv("errors")
        if (!(np in seen)) { seen[np] = 1; order[++k] = np }
    }
    END {
        printf "%-6s %14s %14s %8s %7s\n", "ranks", "mpi_avg_us", "trellis_avg_us", "ratio", "errors"
        for (i = 1; i <= k; i++) {
            np = order[i]
            m = vals["mpi", np] == "" ? "" : median(vals["mpi", np])
            t = vals["trellis", np] == "" ? "" : median(vals["trellis", np])
            r = (m != "" && t != "" && m > 0) ? sprintf("%.3f", t / m) : "-"
            printf "%-6s %14s %14s %8s %7d\n", np, m, t, r, errs["mpi", np] + errs["trellis", np]
        }
        print "# avg_us: per-call time of the slowest rank, mean of the runs of a launch;" \
              " median over launches. ratio = trellis/mpi (< 1: Trellis faster)."
    }' "$gr_lines" | tee "$out/global_reduction_summary.txt"
fi
if grep -q 'oops' "$gr_log" "$out/global_reduction.stderr" 2>/dev/null; then
    failed+=("global_reduction: wrong results (see $gr_log)")
fi

echo
echo "== done in $(($(date +%s) - start)) s"
if [ ${#failed[@]} -gt 0 ]; then
    echo "== FAILED:"
    printf '   %s\n' "${failed[@]}"
    exit 1
fi
echo "== all runs completed, all checked results correct"
