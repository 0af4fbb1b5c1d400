#!/usr/bin/env python3
"""What tracing costs when it is on (issue 15): per call and per step.

Runs bench/latency on 2 ranks with libtrellis.so preloaded, alternately with
TRELLIS_TRACE unset and set (a fresh directory each launch), --reps times.
Every launch times the MPI library's allreduce and Trellis' interleaved, so
each launch's own MPI column removes the machine's drift: a row's overhead
is (Trellis - MPI) traced minus (Trellis - MPI) untraced, medians over the
launches. The rule `allreduce ring segment=S` makes the number of steps grow
with the message (read from `trellis explain --json`), so the overhead per
step is the slope of the overhead against the steps, and the overhead per
call what is left at the fewest steps.

    python3 bench/trace_overhead.py [--reps 5] [--segment 64] [--out DIR]

Writes DIR/launch_{off,on}_N.csv and prints a Markdown table.
"""

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUILD = Path(os.environ.get("TRELLIS_BUILD", REPO / "build"))
TRELLIS = REPO / ".venv" / "bin" / "trellis"
MPIRUN = ["mpirun", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1", "-np", "2"]


def steps_per_call(rule: str, nbytes: int) -> int:
    """Steps of rank 0's schedule (a 2-rank ring treats both ranks alike)."""
    out = subprocess.run(
        [TRELLIS, "explain", "allreduce", "--ranks", "2", "--bytes", str(nbytes),
         "--rules", rule, "--json"],
        check=True, capture_output=True, text=True).stdout  # fmt: skip
    return json.loads(out)["schedules"][0]["nsteps"]


def launch(rule: str, csv_path: Path, args: argparse.Namespace, *, traced: bool) -> None:
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = [*MPIRUN, "-x", f"LD_PRELOAD={BUILD / 'libtrellis.so'}", "-x", f"TRELLIS_RULES={rule}"]
    with tempfile.TemporaryDirectory(prefix="trellis-trace-") as tdir:
        if traced:
            cmd += ["-x", f"TRELLIS_TRACE={tdir}"]
        cmd += [str(BUILD / "bench" / "latency"), "--colls", "allreduce", "--min", "8",
                "--max", args.max, "--step", "4", "--iters", str(args.iters), "--scale", "1M",
                "--min-iters", "100", "--csv", str(csv_path)]  # fmt: skip
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
        if traced and not any(Path(tdir).glob("rank-*")):
            sys.exit(f"trace_overhead: {tdir} holds no trace: was tracing on?")


def gaps_of(path: Path) -> dict[int, float]:
    """Trellis' median minus the MPI library's, per size, in microseconds."""
    with path.open() as f:
        return {int(r["bytes"]): float(r["trellis_median_us"]) - float(r["mpi_median_us"])
                for r in csv.DictReader(f)}  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--segment", type=int, default=64)
    p.add_argument("--iters", type=int, default=2000)
    p.add_argument("--max", default="256K")
    p.add_argument("--out", type=Path, default=REPO / "results" / "trace_overhead")
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rule = f"allreduce ring segment={args.segment}"
    gaps: dict[bool, list[dict[int, float]]] = {False: [], True: []}
    for rep in range(args.reps):
        for traced in (False, True) if rep % 2 == 0 else (True, False):
            path = args.out / f"launch_{'on' if traced else 'off'}_{rep}.csv"
            launch(rule, path, args, traced=traced)
            gaps[traced].append(gaps_of(path))
            sys.stderr.write(f"trace_overhead: launch {rep + 1}/{args.reps} tracing "
                             f"{'on' if traced else 'off'} done\n")  # fmt: skip
    out = [
        (
            f"rule `{rule}`, 2 ranks, {args.reps} launches each way; overhead = median over "
            "launches of (Trellis - MPI), traced minus untraced"
        ),
        "",
        "| bytes | steps a call | Trellis-MPI off (us) | on (us) | overhead (us) | per step (ns) |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for n in sorted(gaps[False][0]):
        off = statistics.median(g[n] for g in gaps[False])
        on = statistics.median(g[n] for g in gaps[True])
        steps = steps_per_call(rule, n)
        out.append(f"| {n} | {steps} | {off:.3f} | {on:.3f} | {on - off:.3f} "
                   f"| {1000 * (on - off) / steps:.1f} |")  # fmt: skip
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
