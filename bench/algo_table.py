#!/usr/bin/env python3
"""Tables of the per-algorithm sweeps (bench/sweep_algos.sh): for each (collective, ranks)
one row per size, one column per algorithm, each cell the ratio of that algorithm's
median to the MPI library's median measured in the same run (below 1: Trellis faster),
and the best algorithm per row.

    bench/algo_table.py DIR_OR_CSV [...]

A CSV may also hold many algorithms' rows with an "algorithm" column (docs/results/).
"""

import csv
import sys
from collections import defaultdict
from pathlib import Path


def human(n: int) -> str:
    for unit, size in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size}{unit}"
    return str(n)


def load(paths: list[Path]) -> dict:
    """(collective, ranks) -> bytes -> algorithm -> ratio."""
    table: dict = defaultdict(lambda: defaultdict(dict))
    for path in paths:
        files = sorted(path.glob("algo_np*.csv")) if path.is_dir() else [path]
        for f in files:
            # algo_np<N>_<collective>_<algorithm>.csv (names hold '_' too), or
            # one CSV of many with an "algorithm" column.
            rest = f.stem.split("_", 2)[-1]
            with f.open() as fh:
                for row in csv.DictReader(fh):
                    coll = row["collective"]
                    algo_name = row.get("algorithm") or (
                        rest[len(coll) + 1 :] if rest.startswith(coll + "_") else rest
                    )
                    key = (coll, int(row["ranks"]))
                    table[key][int(row["bytes"])][algo_name] = float(row["ratio"])
    return table


def main(argv: list[str]) -> int:
    if not argv:
        sys.stderr.write(__doc__)
        return 2
    table = load([Path(a) for a in argv])
    for (coll, ranks), rows in sorted(table.items()):
        algos = sorted({a for r in rows.values() for a in r})
        sys.stdout.write(f"\n{coll}, {ranks} ranks: ratio Trellis/MPI per algorithm\n\n")
        sys.stdout.write("| bytes | " + " | ".join(algos) + " | best |\n")
        sys.stdout.write("|---:|" + "---:|" * len(algos) + "---|\n")
        for nbytes in sorted(rows):
            r = rows[nbytes]
            cells = [f"{r[a]:.2f}" if a in r else "" for a in algos]
            best = min(r, key=r.get)
            sys.stdout.write(f"| {human(nbytes)} | " + " | ".join(cells) + f" | {best} |\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
