"""bench/overlap --same-compute launches: per size and MPI_Test interval, the medians
over launches of the computation alone, of start + computation + wait for the MPI
library and for Trellis, what the collective added to the computation for each, and
each launch's Trellis-over-MPI ratio of the overlapped time (median, min..max)."""

import csv
import statistics
import sys
from pathlib import Path

folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
runs: dict[tuple[int, int], list[dict[str, dict[str, float]]]] = {}
for path in sorted(folder.glob("launch_*.csv")):
    launch: dict[tuple[int, int], dict[str, dict[str, float]]] = {}
    with path.open() as f:
        for r in csv.DictReader(f):
            key = (int(r["bytes"]), int(r["test_every"]))
            launch.setdefault(key, {})[r["impl"]] = {
                "pure": float(r["pure_median_us"]),
                "comp": float(r["compute_median_us"]),
                "ovl": float(r["overlapped_median_us"]),
            }
    for key, row in launch.items():
        runs.setdefault(key, []).append(row)

HEAD = (
    "| bytes | MPI_Test every | compute | MPI: overlapped (added) | Trellis: overlapped "
    "(added) | Trellis/MPI overlapped | MPI pure | Trellis pure |"
)
out = [HEAD, "|---:|---:|---:|---:|---:|---:|---:|---:|"]


def med(rows: list[dict[str, dict[str, float]]], impl: str, what: str) -> float:
    return statistics.median(r[impl][what] for r in rows)


for (size, test), rows in sorted(runs.items()):
    ratios = [r["trellis"]["ovl"] / r["mpi"]["ovl"] for r in rows]
    comp = med(rows, "mpi", "comp")
    mpi_ovl, trl_ovl = med(rows, "mpi", "ovl"), med(rows, "trellis", "ovl")
    out.append(
        f"| {size // 1024} KiB | {f'{test} us' if test else 'never'} | {comp:.0f} "
        f"| {mpi_ovl:.0f} ({mpi_ovl - comp:+.0f}) "
        f"| {trl_ovl:.0f} ({trl_ovl - med(rows, 'trellis', 'comp'):+.0f}) "
        f"| {statistics.median(ratios):.2f} ({min(ratios):.2f}..{max(ratios):.2f}) "
        f"| {med(rows, 'mpi', 'pure'):.0f} | {med(rows, 'trellis', 'pure'):.0f} |"
    )
sys.stdout.write("\n".join(out) + "\n")
