"""Summary of docs/results/comm_switch/run.sh: per build (old, new), warm or cold, the
median over launches of each row's ratio (Trellis' time over the MPI library's,
interleaved in one run), with its range, as a markdown table.

    python3 summary.py [DIR]    # DIR: run.sh's output (default: this folder)
"""

import csv
import statistics as st
import sys
from pathlib import Path

SWITCH_FIELDS = 4  # comms, mpi_us, trellis_us, ratio


def cell(v: list) -> str:
    return f"{st.median(v):.2f} ({min(v):.2f}-{max(v):.2f})" if v else "-"


def main() -> None:
    d = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
    rows: dict = {}
    for path in d.glob("switch_*.txt"):
        _, build, cold, _ = path.stem.split("_")
        with path.open() as f:
            for line in f:
                v = line.split()
                if len(v) == SWITCH_FIELDS and v[0].isdigit():
                    key = (cold, "allreduce, K communicators", int(v[0]))
                    rows.setdefault(key, {}).setdefault(build, []).append(float(v[3]))
    for path in d.glob("inter_*.csv"):
        _, build, cold, _ = path.stem.split("_")
        with path.open() as f:
            for r in csv.DictReader(f):
                key = (cold, f"inter {r['collective']} (1 + 1), bytes", int(r["bytes"]))
                rows.setdefault(key, {}).setdefault(build, []).append(float(r["ratio"]))
    print("| caches | call | K or bytes | before | after |")  # noqa: T201
    print("|---|---|---:|---:|---:|")  # noqa: T201
    for cold, call, size in sorted(rows):
        v = rows[(cold, call, size)]
        caches = "warm" if cold == "cold0" else "cold (8 MiB)"
        before, after = cell(v.get("old", [])), cell(v.get("new", []))
        print(f"| {caches} | {call} | {size} | {before} | {after} |")  # noqa: T201


if __name__ == "__main__":
    main()
