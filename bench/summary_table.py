"""A `trellis bench` summary.csv as a Markdown table: a row per process count (or, with
--rows coll, per collective and size), a column per configuration, each cell "median us
(ratio to the baseline)"; the fastest of a row in bold.

    python3 bench/summary_table.py docs/results/seed000/4x4-block/summary.csv
    python3 bench/summary_table.py --rows coll docs/results/hosts/4x4-small/summary.csv
"""

import csv
import sys
from pathlib import Path

TWO_DECIMALS_BELOW = 10.0  # microseconds


def table(path: Path, *, by_coll: bool = False) -> str:
    with path.open() as f:
        rows = list(csv.DictReader(f))
    configs = list(dict.fromkeys(r["config"] for r in rows))
    by_key: dict[tuple, dict[str, dict]] = {}
    for r in rows:
        key = (r["collective"], int(r["bytes"])) if by_coll else (int(r["ranks"]),)
        by_key.setdefault(key, {})[r["config"]] = r
    head = "| collective | bytes | " if by_coll else "| ranks | hosts | "
    out = [head + " | ".join(configs) + " |",
           ("|---|---:|" if by_coll else "|---:|---:|") + "---:|" * len(configs)]  # fmt: skip
    for key in sorted(by_key):
        cells = by_key[key]
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
        first = key if by_coll else (key[0], next(iter(cells.values()))["hosts"])
        out.append(f"| {first[0]} | {first[1]} | " + " | ".join(parts) + " |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    args = sys.argv[1:]
    by_coll = args[:2] == ["--rows", "coll"]
    for name in args[2:] if by_coll else args:
        sys.stdout.write(table(Path(name), by_coll=by_coll))
