"""Median over launches of each row's ratio (Trellis/MPI) and of Trellis' time, before and
after: python3 summary.py > summary.md"""
import csv
import glob
import statistics as st

rows = {}
for which in ("before", "after"):
    for f in sorted(glob.glob(f"{which}_*.csv")):
        for r in csv.DictReader(open(f)):
            key = (r["collective"], int(r["bytes"]))
            d = rows.setdefault(key, {"before": [], "after": []})
            d[which].append((float(r["ratio"]), float(r["trellis_median_us"]),
                             float(r["mpi_median_us"])))
print("| collective | bytes | before: Trellis/MPI | after: Trellis/MPI | Trellis us before | after |")
print("|---|---|---|---|---|---|")
for (coll, b), d in rows.items():
    med = {w: [st.median(x[i] for x in d[w]) for i in range(3)] for w in d}
    print(f"| {coll} | {b} | {med['before'][0]:.2f} | {med['after'][0]:.2f} | "
          f"{med['before'][1]:.3f} | {med['after'][1]:.3f} |")
