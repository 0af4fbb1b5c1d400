"""Per size: each build's median and minimum ratio over all pairs (median of
its runs per pair), pairs below 0.95, and the control's; then 8-bit PROD.

python3 docs/results/reduce-kernels/noprefetch/summarize.py docs/results/reduce-kernels/noprefetch
"""

import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

BUILDS = ["prefetch", "noprefetch", "control"]
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
    out = ["| size | " + " | ".join(f"{b} median | {b} min | {b} < {LOW}" for b in BUILDS)
           + " |",
           "|---:|" + "---:|---:|---:|" * len(BUILDS)]
    for size in sizes:
        cells = []
        for b in BUILDS:
            rows = [statistics.median(v) for k, v in d.items() if k[0] == b and k[3] == size]
            cells += [f"{statistics.median(rows):.2f}", f"{min(rows):.2f}",
                      str(sum(x < LOW for x in rows))]
        out.append(f"| {size} | " + " | ".join(cells) + " |")
    out += ["", "8-bit PROD (" + ", ".join(EIGHT_BIT) + "): median (min..max) over the four "
            "types", "| size | prefetch | noprefetch |", "|---:|---:|---:|"]
    for size in sizes:
        cells = []
        for b in BUILDS[:2]:
            rows = [statistics.median(d[b, t, "PROD", size]) for t in EIGHT_BIT]
            cells.append(f"{statistics.median(rows):.2f} ({min(rows):.2f}..{max(rows):.2f})")
        out.append(f"| {size} | " + " | ".join(cells) + " |")
    print("\n".join(out))  # noqa: T201


if __name__ == "__main__":
    main()
