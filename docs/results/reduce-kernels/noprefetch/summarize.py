"""Per size: each build's median and minimum ratio over all pairs (median of
its runs per pair), pairs below 0.95, and the control's; then 8-bit PROD.

python3 docs/results/reduce-kernels/noprefetch/summarize.py docs/results/reduce-kernels/noprefetch
"""
import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

d = defaultdict(list)  # (build, type, op, bytes) -> ratios over runs
for path in Path(sys.argv[1]).glob("*.csv"):
    build = path.stem.rsplit("-", 1)[0]
    for r in csv.DictReader(path.open()):
        d[build, r["type"], r["op"], int(r["bytes"])].append(float(r["ratio"]))
builds = ["prefetch", "noprefetch", "control"]
sizes = sorted({k[3] for k in d})
print("| size | " + " | ".join(f"{b} median | {b} min | {b} < 0.95" for b in builds) + " |")
print("|---:|" + "---:|---:|---:|" * len(builds))
for size in sizes:
    cells = []
    for b in builds:
        rows = [statistics.median(v) for k, v in d.items() if k[0] == b and k[3] == size]
        cells += [f"{statistics.median(rows):.2f}", f"{min(rows):.2f}", str(sum(x < 0.95 for x in rows))]
    print(f"| {size} | " + " | ".join(cells) + " |")
print()
print("8-bit PROD (MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_INT8_T, MPI_UINT8_T): median (min..max) over the four types")
print("| size | prefetch | noprefetch |")
print("|---:|---:|---:|")
eight = ("MPI_SIGNED_CHAR", "MPI_UNSIGNED_CHAR", "MPI_INT8_T", "MPI_UINT8_T")
for size in sizes:
    cells = []
    for b in builds[:2]:
        rows = [statistics.median(d[b, t, "PROD", size]) for t in eight]
        cells.append(f"{statistics.median(rows):.2f} ({min(rows):.2f}..{max(rows):.2f})")
    print(f"| {size} | " + " | ".join(cells) + " |")
