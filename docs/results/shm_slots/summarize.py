"""Medians over launches of the MPI library's and Trellis' time per row, for
the build with 256-byte slots (head) and the one with larger slots (new).

python3 docs/results/shm_slots/summarize.py docs/results/shm_slots/two
"""

import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path


def main() -> None:
    d = defaultdict(list)  # (collective, bytes, build) -> [(mpi, trellis)]
    for path in Path(sys.argv[1]).glob("r*_*.csv"):
        build = path.stem.rsplit("_", 1)[1]
        with path.open() as f:
            for r in csv.DictReader(f):
                d[r["collective"], int(r["bytes"]), build].append(
                    (float(r["mpi_median_us"]), float(r["trellis_median_us"]))
                )
    head = "| collective | bytes | 256 B slots: MPI | Trellis | diff | larger slots: MPI "
    rows = [head + "| Trellis | diff |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for coll, size in sorted({k[:2] for k in d}):
        cells = []
        for build in ("head", "new"):
            runs = d[coll, size, build]
            mpi = statistics.median(x[0] for x in runs)
            trl = statistics.median(x[1] for x in runs)
            cells += [f"{mpi:.2f}", f"{trl:.2f}", f"{trl - mpi:+.2f}"]
        rows.append(f"| {coll} | {size} | " + " | ".join(cells) + " |")
    print("\n".join(rows))  # noqa: T201


if __name__ == "__main__":
    main()
