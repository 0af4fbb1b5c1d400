"""ns per step of bench/exec_steps, the build before the tag chain (old-*) and with it
(new-*), per shared-memory setting and schedule length: every launch, then the ratio of
the medians. Usage: python3 summary.py (from anywhere)."""

import collections
import statistics
import sys
from pathlib import Path

runs: dict[tuple[str, int, str], list[float]] = collections.defaultdict(list)
for path in Path(__file__).resolve().parent.glob("*-shm*-*.txt"):
    build, shm, _ = path.stem.split("-")
    for line in path.open():
        if "WRONG" in line:
            sys.exit(f"{path}: wrong results")
        cells = line.split()
        if cells and cells[0].isdigit():
            runs[shm, int(cells[1]), build].append(float(cells[4]))
for shm, steps in sorted({(k[0], k[1]) for k in runs}, key=lambda k: (k[0] == "shm0", k[1])):
    old, new = sorted(runs[shm, steps, "old"]), sorted(runs[shm, steps, "new"])
    sys.stdout.write(
        f"{shm} {steps:>7} steps: old {', '.join(f'{x:.0f}' for x in old)}; "
        f"new {', '.join(f'{x:.0f}' for x in new)}; "
        f"new/old {statistics.median(new) / statistics.median(old):.2f}\n"
    )
