#!/usr/bin/env python3
"""Turn latency CSVs (bench/latency --csv) into Markdown tables for docs/results.md.

    bench/summarize.py FILE.csv [FILE.csv ...] [--bar]

One table per (collective, ranks): bytes, the MPI library's median, Trellis' median, the
ratio trellis/mpi and the difference in microseconds. With --bar, a last column checks the
foundation issue's bar: at most 0.5 us slower up to 1 KiB, within 1.15x from 64 KiB up.
"""

import csv
import sys
from collections import defaultdict
from pathlib import Path

SMALL = 1024  # bytes: at most SMALL_SLOWER_US slower up to here
SMALL_SLOWER_US = 0.5
LARGE = 64 * 1024  # bytes: within LARGE_RATIO of the MPI library from here up
LARGE_RATIO = 1.15


def out(line: str = "") -> None:
    sys.stdout.write(line + "\n")


def human(n: int) -> str:
    for unit, size in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size}{unit}"
    return str(n)


def verdict(bytes_: int, mpi: float, trl: float) -> str:
    if bytes_ <= SMALL:
        return "ok" if trl - mpi <= SMALL_SLOWER_US else "MISSED"
    if bytes_ >= LARGE:
        return "ok" if trl / mpi <= LARGE_RATIO else "MISSED"
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
            out(line + (f" {verdict(b, mpi, trl)} |" if bar else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
