"""A `trellis bench` summary.csv as a Markdown table: a row per process count, a column
per configuration, each cell "median us (ratio to the baseline)"; the fastest of a row
in bold.

    python3 bench/summary_table.py docs/results/seed000/4x4-block/summary.csv
"""

import csv
import sys
from pathlib import Path

TWO_DECIMALS_BELOW = 10.0  # microseconds


def table(path: Path) -> str:
    with path.open() as f:
        rows = list(csv.DictReader(f))
    configs = list(dict.fromkeys(r["config"] for r in rows))
    by_ranks: dict[int, dict[str, dict]] = {}
    for r in rows:
        by_ranks.setdefault(int(r["ranks"]), {})[r["config"]] = r
    out = ["| ranks | hosts | " + " | ".join(configs) + " |",
           "|---:|---:|" + "---:|" * len(configs)]  # fmt: skip
    for ranks in sorted(by_ranks):
        cells = by_ranks[ranks]
        best = min(cells.values(), key=lambda r: float(r["median_us"]))["config"]
        parts = []
        for c in configs:
            r = cells.get(c)
            if r is None:
                parts.append("-")
                continue
            us = float(r["median_us"])
            digits = 2 if us < TWO_DECIMALS_BELOW else 1
            text = f"{us:.{digits}f} ({float(r['ratio_to_baseline']):.2f})"
            parts.append(f"**{text}**" if c == best else text)
        hosts = next(iter(cells.values()))["hosts"]
        out.append(f"| {ranks} | {hosts} | " + " | ".join(parts) + " |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    for name in sys.argv[1:]:
        sys.stdout.write(table(Path(name)))
