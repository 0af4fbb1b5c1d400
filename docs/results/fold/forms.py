"""Each form's median over launches of Trellis' time and of its ratio to the MPI
library's, per size: python3 forms.py FOLDER (FOLDER holds FORM_N.csv)."""

import csv
import statistics
import sys
from pathlib import Path

folder = Path(sys.argv[1])
forms = ("ring", "direct")
rows: dict[int, dict[str, list[tuple[float, float]]]] = {}
for form in forms:
    for path in sorted(folder.glob(f"{form}_*.csv")):
        with path.open() as f:
            for r in csv.DictReader(f):
                cell = rows.setdefault(int(r["bytes"]), {}).setdefault(form, [])
                cell.append((float(r["trellis_median_us"]), float(r["ratio"])))

out = ["| bytes | ring us | ring/MPI | direct us | direct/MPI |", "|---:|---:|---:|---:|---:|"]
for size, d in sorted(rows.items()):
    cells = []
    for form in forms:
        cells.append(f"{statistics.median(x[0] for x in d[form]):.1f}")
        cells.append(f"{statistics.median(x[1] for x in d[form]):.2f}")
    out.append(f"| {size} | " + " | ".join(cells) + " |")
sys.stdout.write("\n".join(out) + "\n")
