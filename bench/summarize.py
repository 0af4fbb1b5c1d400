#!/usr/bin/env python3
"""Turn latency CSVs (bench/latency --csv) into Markdown tables (docs/notebook/).

    bench/summarize.py FILE.csv [FILE.csv ...] [--bar]

One table per (collective, ranks): bytes, the MPI library's median, Trellis' median, the
ratio trellis/mpi and the difference in microseconds. With --bar, a last column checks the
performance bar: for bcast, reduce, allreduce and barrier the foundation's (at most 0.5 us
slower up to 1 KiB, within 1.15x from 64 KiB up); for the other collectives at most 1 us
slower below 1 KiB and within 1.2x from 64 KiB up.
"""

import csv
import sys
from collections import defaultdict
from pathlib import Path

SMALL = 1024  # bytes: at most the bar's microseconds slower up to here
LARGE = 64 * 1024  # bytes: within the bar's ratio of the MPI library from here up
FOUNDATION = {"bcast", "reduce", "allreduce", "barrier"}
FOUNDATION_BAR = (0.5, 1.15)  # (us slower when small, ratio when large)
COLLECTIVES_BAR = (1.0, 1.2)


def out(line: str = "") -> None:
    sys.stdout.write(line + "\n")


def human(n: int) -> str:
    for unit, size in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size}{unit}"
    return str(n)


def verdict(coll: str, bytes_: int, mpi: float, trl: float) -> str:
    slower_us, ratio = FOUNDATION_BAR if coll in FOUNDATION else COLLECTIVES_BAR
    if bytes_ <= SMALL:
        return "ok" if trl - mpi <= slower_us else "MISSED"
    if bytes_ >= LARGE:
        return "ok" if trl / mpi <= ratio else "MISSED"
    return ""


def main(argv: list[str]) -> int:
    bar = "--bar" in argv
    files = [a for a in argv if a != "--bar"]
    if not files:
        sys.stderr.write(__doc__)
        return 2
    rows = defaultdict(list)
    for name in files:
        with Path(name).open(newline="") as f:
            for r in csv.DictReader(f):
                rows[(r["collective"], int(r["ranks"]))].append(r)
    for (coll, ranks), rs in sorted(rows.items()):
        out(f"\n{coll}, {ranks} ranks\n")
        head = "| bytes | MPI median us | Trellis median us | ratio | Trellis - MPI us |"
        out(head + (" bar |" if bar else ""))
        out("|---:|---:|---:|---:|---:|" + ("---|" if bar else ""))
        for r in sorted(rs, key=lambda r: int(r["bytes"])):
            b = int(r["bytes"])
            mpi, trl = float(r["mpi_median_us"]), float(r["trellis_median_us"])
            line = f"| {human(b)} | {mpi:.2f} | {trl:.2f} | {trl / mpi:.2f} | {trl - mpi:+.2f} |"
            out(line + (f" {verdict(coll, b, mpi, trl)} |" if bar else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
