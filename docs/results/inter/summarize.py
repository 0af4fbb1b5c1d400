"""Summarise bench/inter_latency CSVs: per collective and size, for each form, the
median over launches of the library's and Trellis' medians (us) and of the ratio
(min..max).

    python3 summarize.py PREFIX FORM [FORM ...]    # reads PREFIX_FORM_*.csv
"""

import csv
import statistics as st
import sys
from pathlib import Path


def main() -> None:
    prefix, forms = sys.argv[1], sys.argv[2:]
    rows: dict = {}
    for form in forms:
        for path in sorted(Path(prefix).parent.glob(f"{Path(prefix).name}_{form}_*.csv")):
            with path.open() as f:
                for r in csv.DictReader(f):
                    key = (r["collective"], int(r["bytes"]))
                    sample = (
                        float(r["mpi_median_us"]),
                        float(r["trellis_median_us"]),
                        float(r["ratio"]),
                    )
                    rows.setdefault(key, {}).setdefault(form, []).append(sample)
    print("collective bytes " + " ".join(f"{f}:mpi/trellis/ratio(min..max)" for f in forms))  # noqa: T201
    for key in sorted(rows):
        line = f"{key[0]:10s} {key[1]:8d}"
        for form in forms:
            v = rows[key].get(form, [])
            if not v:
                line += "  -"
                continue
            ratios = [x[2] for x in v]
            line += (
                f"  {st.median(x[0] for x in v):9.2f} {st.median(x[1] for x in v):9.2f}"
                f" {st.median(ratios):5.2f} ({min(ratios):.2f}..{max(ratios):.2f})"
            )
        print(line)  # noqa: T201


if __name__ == "__main__":
    main()
