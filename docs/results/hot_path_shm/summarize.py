"""Trellis minus MPI at 8 bytes, per build: median over launches (min..max).

python3 docs/results/hot_path_shm/summarize.py docs/results/hot_path_shm
reads BUILD-N.csv (bench/latency --csv) and prints a markdown table.
"""

import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

ORDER = ["bcast", "reduce", "allreduce", "barrier"]


def main() -> None:
    rows = defaultdict(list)  # (collective, build) -> [(mpi, trellis)]
    for path in sorted(Path(sys.argv[1]).glob("*-*.csv")):
        build = path.stem.rsplit("-", 1)[0]
        with path.open() as f:
            for r in csv.DictReader(f):
                rows[r["collective"], build].append(
                    (float(r["mpi_median_us"]), float(r["trellis_median_us"])))
    out = [("| collective | build | launches | MPI median (us) | Trellis median (us) "
            "| Trellis - MPI (us), median (min..max) | ratio |"),
           "|---|---|---:|---:|---:|---:|---:|"]
    for (coll, build), runs in sorted(
            rows.items(), key=lambda kv: (ORDER.index(kv[0][0]), kv[0][1] != "before")):
        mpi = statistics.median(m for m, _ in runs)
        trl = statistics.median(t for _, t in runs)
        diff = [t - m for m, t in runs]
        out.append(f"| {coll} | {build} | {len(runs)} | {mpi:.3f} | {trl:.3f} | "
                   f"{statistics.median(diff):+.3f} ({min(diff):+.3f}..{max(diff):+.3f}) | "
                   f"{trl / mpi:.2f} |")
    print("\n".join(out))  # noqa: T201


if __name__ == "__main__":
    main()
