#!/usr/bin/env python3
"""What TRELLIS_CHECK costs a call (issue 34's bar; docs/check.md).

    python3 bench/check_cost.py [--np N] [--testbed] [--reps R] [--iters I] [--out DIR]
                                [--old LIB]

Launches `latency` (8 and 16 bytes, the 17 blocking collectives) through `trellis run`,
with `--check` ("on") and without ("off"), alternated R times each (the order swapped
every pair), and prints per collective the median over launches of Trellis' per-call
median at 8 bytes, off and on, the time the check adds, and that time over one 16-byte
allreduce of the same communicator (off), which the bar holds at or below 1. The MPI
library's own column (PMPI, which the check never sees, timed in the same launches) shows
how much the launches drifted: "added" is Trellis' difference less the library's.
--testbed runs on the emulated cluster (`trellis testbed up`), -np 16 by default there.
--old LIB compares, with the check off, the library LIB (a build from before the check)
("off") with this tree's ("on"): what the check costs when it is off.
Writes each launch's CSV to DIR/launches/{off,on}-N.csv, and the record to keep: DIR/table.md
(the table printed) and DIR/rows.csv (every launch's rows that the table reads: variant,
launch, collective, bytes, both medians).
"""

import argparse
import csv
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMALL, REF = 8, 16  # the rows compared; the reference allreduce's size


def launch(args: argparse.Namespace, variant: str, csv_path: Path) -> None:
    cmd = [str(ROOT / ".venv" / "bin" / "trellis"), "run", "-np", str(args.np)]
    env = dict(os.environ)
    if args.testbed:
        cmd.append("--testbed")
    if args.old is not None:
        env["TRELLIS_LIB"] = str(args.old if variant == "off" else ROOT / "build" / "libtrellis.so")
    elif variant == "on":
        cmd.append("--check")
    cmd += [str(ROOT / "build" / "bench" / "latency"), "--colls", "all", "--min", str(SMALL),
            "--max", str(REF), "--iters", str(args.iters), "--csv", str(csv_path)]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    if proc.returncode != 0:
        sys.exit(f"check_cost: {' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")


def rows(path: Path) -> dict[tuple[str, int], dict[str, str]]:
    with path.open() as f:
        return {(r["collective"], int(r["bytes"])): r for r in csv.DictReader(f)}


def table(args: argparse.Namespace, runs: dict[str, list[dict]]) -> list[str]:
    def med(variant: str, coll: str, size: int, col: str) -> float:
        return statistics.median(float(r[(coll, size)][col]) for r in runs[variant])

    ref = med("off", "allreduce", REF, "trellis_median_us")
    what = (f"off = {args.old}, on = this tree's library, both unchecked" if args.old
            else "off = no check, on = trellis run --check")  # fmt: skip
    head = (f"{args.np} ranks{' on the testbed' if args.testbed else ''}, {args.reps} launches "
            f"each ({what}), medians of per-call medians (us); one {REF}-byte allreduce, off: "
            f"{ref:.2f} us")  # fmt: skip
    columns = (f"| collective ({SMALL} B) | MPI off | MPI on | Trellis off | Trellis on | added "
               f"| added / allreduce {REF} B |")  # fmt: skip
    # added: Trellis' on - off, less the library's (the launches' drift)
    out = [head, "", columns, "|---|---|---|---|---|---|---|"]
    worst = 0.0
    for coll in [c for (c, size) in runs["off"][0] if size == SMALL]:
        off, on = (med(v, coll, SMALL, "trellis_median_us") for v in ("off", "on"))
        mpi_off, mpi_on = (med(v, coll, SMALL, "mpi_median_us") for v in ("off", "on"))
        added = (on - off) - (mpi_on - mpi_off)
        worst = max(worst, added / ref)
        out.append(f"| {coll} | {mpi_off:.2f} | {mpi_on:.2f} | {off:.2f} | {on:.2f} "
                   f"| {added:+.2f} | {added / ref:+.2f} |")  # fmt: skip
    out += ["", f"largest added / allreduce {REF} B: {worst:.2f} (bar: at most 1)"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--np", type=int, default=None)
    ap.add_argument("--testbed", action="store_true")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--iters", type=int, default=1000)
    ap.add_argument("--out", type=Path, default=Path("check-cost"))
    ap.add_argument("--old", type=Path, default=None, help="the library before the check")
    args = ap.parse_args()
    if args.np is None:
        args.np = 16 if args.testbed else 2
    (args.out / "launches").mkdir(parents=True, exist_ok=True)
    runs: dict[str, list[dict]] = {"off": [], "on": []}
    for rep in range(args.reps):
        for variant in ("off", "on") if rep % 2 == 0 else ("on", "off"):
            sys.stderr.write(f"check_cost: launch {rep + 1}/{args.reps}, {variant}\n")
            path = args.out / "launches" / f"{variant}-{rep}.csv"
            launch(args, variant, path)
            runs[variant].append(rows(path))
    text = "\n".join(table(args, runs)) + "\n"
    sys.stdout.write(text)
    (args.out / "table.md").write_text(text)
    keep = ["collective", "bytes", "trellis_median_us", "mpi_median_us"]
    with (args.out / "rows.csv").open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["variant", "launch", *keep])
        for variant, launches in runs.items():
            for n, by_key in enumerate(launches):
                for r in by_key.values():
                    out.writerow([variant, n, *(r[k] for k in keep)])


if __name__ == "__main__":
    main()
