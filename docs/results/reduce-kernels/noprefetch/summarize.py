"""Per size: each build's median and minimum ratio over all pairs (median of
its runs per pair), pairs below 0.95, and the control's; then 8-bit PROD.
A build is a CSV name up to its last '-' (prefetch-1.csv: prefetch);
control.csv (the library against itself) comes last.

python3 docs/results/reduce-kernels/noprefetch/summarize.py DIR
"""

import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

LOW = 0.95  # a row below this counts as slower than the library
EIGHT_BIT = ("MPI_SIGNED_CHAR", "MPI_UNSIGNED_CHAR", "MPI_INT8_T", "MPI_UINT8_T")


def main() -> None:
    d = defaultdict(list)  # (build, type, op, bytes) -> ratios over runs
    for path in Path(sys.argv[1]).glob("*.csv"):
        build = path.stem.rsplit("-", 1)[0]
        with path.open() as f:
            for r in csv.DictReader(f):
                d[build, r["type"], r["op"], int(r["bytes"])].append(float(r["ratio"]))
    sizes = sorted({k[3] for k in d})
    builds = sorted({k[0] for k in d}, key=lambda b: (b == "control", b))
    timed = [b for b in builds if b != "control"]
    out = ["| size | " + " | ".join(f"{b} median | {b} min | {b} < {LOW}" for b in builds)
           + " |",
           "|---:|" + "---:|---:|---:|" * len(builds)]
    for size in sizes:
        cells = []
        for b in builds:
            rows = [statistics.median(v) for k, v in d.items() if k[0] == b and k[3] == size]
            cells += [f"{statistics.median(rows):.2f}", f"{min(rows):.2f}",
                      str(sum(x < LOW for x in rows))]
        out.append(f"| {size} | " + " | ".join(cells) + " |")
    out += ["", "8-bit PROD (" + ", ".join(EIGHT_BIT) + "): median (min..max) over the four "
            "types", "| size | " + " | ".join(timed) + " |", "|---:|" + "---:|" * len(timed)]
    for size in sizes:
        cells = []
        for b in timed:
            rows = [statistics.median(d[b, t, "PROD", size]) for t in EIGHT_BIT]
            cells.append(f"{statistics.median(rows):.2f} ({min(rows):.2f}..{max(rows):.2f})")
        out.append(f"| {size} | " + " | ".join(cells) + " |")
    print("\n".join(out))  # noqa: T201


if __name__ == "__main__":
    main()
