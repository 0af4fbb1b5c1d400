"""Per repetition (each launch of each configuration, alternated), a configuration's
median over han's in the same repetition; then the median and quartiles of those ratios
and how many repetitions were faster than han. Usage: paired.py DIR (with run1, run2)."""

import collections
import csv
import statistics
import sys
from pathlib import Path

for run in sorted(p for p in Path(sys.argv[1]).glob("run*") if p.is_dir()):
    reps: dict[int, dict[str, float]] = collections.defaultdict(dict)
    for row in csv.DictReader((run / "raw.csv").open()):
        reps[int(row["rep"])][row["config"]] = float(row["median_us"])
    configs = sorted({c for r in reps.values() for c in r} - {"han", "ompi"})
    for config in configs:
        ratios = sorted(r[config] / r["han"] for r in reps.values())
        n = len(ratios)
        faster = sum(x < 1 for x in ratios)
        sys.stdout.write(
            f"{run.name} {config}: over han median {statistics.median(ratios):.3f}, "
            f"quartiles {ratios[n // 4]:.3f}-{ratios[3 * n // 4]:.3f}, "
            f"faster than han in {faster}/{n} repetitions\n"
        )
