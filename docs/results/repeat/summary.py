"""Median over launches of each row's ratio (Trellis over MPI) and of Trellis' time,
before and after: python3 summary.py [FOLDER] > FOLDER/summary.md (FOLDER: where the
before_N.csv and after_N.csv files are; this script's own folder by default)."""

import csv
import statistics
import sys
from pathlib import Path

here = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
rows: dict[tuple[str, int], dict[str, list[tuple[float, float]]]] = {}
for which in ("before", "after"):
    for path in sorted(here.glob(f"{which}_*.csv")):
        with path.open() as f:
            for r in csv.DictReader(f):
                d = rows.setdefault((r["collective"], int(r["bytes"])), {"before": [], "after": []})
                d[which].append((float(r["ratio"]), float(r["trellis_median_us"])))

head = "| collective | bytes | before: Trellis/MPI | after: Trellis/MPI | Trellis us before |"
out = [head + " after |", "|---|---|---|---|---|---|"]
for (coll, size), d in rows.items():
    ratio = {w: statistics.median(x[0] for x in d[w]) for w in d}
    us = {w: statistics.median(x[1] for x in d[w]) for w in d}
    out.append(
        f"| {coll} | {size} | {ratio['before']:.2f} | {ratio['after']:.2f} "
        f"| {us['before']:.3f} | {us['after']:.3f} |"
    )
sys.stdout.write("\n".join(out) + "\n")
