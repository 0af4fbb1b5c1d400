#!/usr/bin/env python3
"""Non-blocking collectives: Markdown tables of several launches of bench/latency and
bench/overlap, and issue 13's bar.

    bench/nb_bar.py latency FILE.csv ... [--bar]
    bench/nb_bar.py overlap FILE.csv ... [--bar]

latency: the non-blocking rows (collective `i...`) of bench/latency CSVs, one table per
(collective, ranks): for each size the median over launches of each variant's median (the
MPI library's PMPI_Ix + PMPI_Wait, Trellis' MPI_Ix + MPI_Wait, Trellis' blocking MPI_X),
their spread (the fastest and slowest launch) and the ratios of those medians. --bar
checks iallreduce against the bar: start + wait within 1.2x of the blocking call at every
size, within 1.15x of the MPI library's from 64 KiB.

overlap: bench/overlap CSVs, one table per (collective, ranks, hosts): for each size the
median over launches of each overlap % (and its spread), for the MPI library's call and
Trellis' in each progress mode (TRELLIS_PROGRESS) and --test-every value found, with the
three median times behind them. --bar compares Trellis' best progress mode with the MPI
library's own overlap measured with the same --test-every value: from 64 KiB at least
its overlap, from 1 MiB at least 1.5x it, or 100 %. The MPI library's is its best over
the runs' modes: its call does not use Trellis' thread, but runs at each run's thread
level.
"""

import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from summarize import human, out  # bench/, beside this script

LARGE = 64 * 1024  # from here: within 1.15x of the MPI library; overlap at least its own
HUGE = 1 << 20  # from here: overlap at least 1.5x the MPI library's
TO_BLOCKING, TO_MPI, OVERLAP_FACTOR = 1.2, 1.15, 1.5


def rows_of(files: list[str]) -> list[dict]:
    rows = []
    for name in files:
        with Path(name).open(newline="") as f:
            rows += list(csv.DictReader(f))
    return rows


def spread(values: list[float]) -> str:
    """The median, and the fastest and slowest launch."""
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def latency(files: list[str], *, bar: bool) -> tuple[int, int]:
    cells: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows_of(files):
        if r["collective"].startswith("i") and r.get("blocking_median_us"):
            cells[(r["collective"], int(r["ranks"]), int(r["bytes"]))].append(r)
    missed = 0
    for coll, ranks in sorted({k[:2] for k in cells}):
        sizes = sorted(k[2] for k in cells if k[:2] == (coll, ranks))
        launches = len(cells[(coll, ranks, sizes[0])])
        out(f"\n{coll}, {ranks} ranks, {launches} launches: median us (fastest-slowest launch)\n")
        head = "| bytes | MPI Ix+Wait | Trellis Ix+Wait | Trellis blocking | nb/blocking | nb/MPI |"
        out(head + (" bar |" if bar else ""))
        out("|---:|---:|---:|---:|---:|---:|" + ("---|" if bar else ""))
        for b in sizes:
            rs = cells[(coll, ranks, b)]
            mpi = [float(r["mpi_median_us"]) for r in rs]
            trl = [float(r["trellis_median_us"]) for r in rs]
            blk = [float(r["blocking_median_us"]) for r in rs]
            to_blk = statistics.median(trl) / statistics.median(blk)
            to_mpi = statistics.median(trl) / statistics.median(mpi)
            line = (f"| {human(b)} | {spread(mpi)} | {spread(trl)} | {spread(blk)} | "
                    f"{to_blk:.2f} | {to_mpi:.2f} |")  # fmt: skip
            if bar:
                ok = to_blk <= TO_BLOCKING and (b < LARGE or to_mpi <= TO_MPI)
                missed += not ok
                line += " ok |" if ok else " MISSED |"
            out(line)
    return missed, 0


def overlap(files: list[str], *, bar: bool) -> tuple[int, int]:
    cells: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows_of(files):
        key = (r["collective"], int(r["ranks"]), int(r["hosts"]), int(r["bytes"]),
               r["impl"], r["progress"], int(r["test_every"]))  # fmt: skip
        cells[key].append(r)
    missed = vacuous = 0
    for coll, ranks, hosts in sorted({k[:3] for k in cells}):
        mine = {k: v for k, v in cells.items() if k[:3] == (coll, ranks, hosts)}
        sizes = sorted({k[3] for k in mine})
        # One column per (implementation, progress mode, --test-every).
        columns = sorted({k[4:] for k in mine}, key=lambda c: (c[0] != "mpi", c[1], c[2]))
        out(f"\n{coll}, {ranks} ranks on {hosts} hosts: overlap %, median over launches "
            "(lowest-highest launch); under each, the median times pure / compute / "
            "overlapped in us\n")  # fmt: skip
        names = [f"{impl} {progress} test={test}" for impl, progress, test in columns]
        out("| bytes | " + " | ".join(names) + " |" + (" bar |" if bar else ""))
        out("|---:|" + "---:|" * len(columns) + ("---|" if bar else ""))
        for b in sizes:
            pct: dict[tuple, float] = {}
            parts = []
            for col in columns:
                rs = mine.get((coll, ranks, hosts, b, *col), [])
                if not rs:
                    parts.append("-")
                    continue
                p = [float(r["overlap_pct"]) for r in rs]
                pct[col] = statistics.median(p)
                times = "/".join(
                    f"{statistics.median(float(r[f'{t}_median_us']) for r in rs):.0f}"
                    for t in ("pure", "compute", "overlapped")
                )
                parts.append(f"{pct[col]:.0f} ({min(p):.0f}-{max(p):.0f}) {times}")
            line = f"| {human(b)} | " + " | ".join(parts) + " |"
            if bar:
                verdict = overlap_verdict(b, pct)
                missed += verdict.startswith("MISSED")
                vacuous += verdict.startswith("VACUOUS")
                line += f" {verdict} |"
            out(line)
    return missed, vacuous


def overlap_verdict(nbytes: int, pct: dict[tuple, float]) -> str:
    """Trellis' best progress mode against the MPI library's best overlap, for each
    --test-every value measured for both."""
    if nbytes < LARGE:
        return ""
    words = []
    for test in sorted({c[2] for c in pct}):
        mpi = [v for c, v in pct.items() if c[0] == "mpi" and c[2] == test]
        trl = {c[1]: v for c, v in pct.items() if c[0] == "trellis" and c[2] == test}
        if not mpi or not trl:
            continue
        best_mode = max(trl, key=lambda m: trl[m])
        best, theirs = trl[best_mode], max(mpi)
        need = min(100.0, theirs * (OVERLAP_FACTOR if nbytes >= HUGE else 1.0))
        ok = best >= need
        ratio = f"{best / theirs:.2f}x" if theirs > 0 else "-"
        # Nothing hidden on either side proves nothing: say so, not "ok".
        verdict = "VACUOUS" if round(best) == 0 and round(theirs) == 0 else "ok" if ok else "MISSED"
        words.append(f"test={test}: {best_mode} {best:.0f} / mpi {theirs:.0f} = {ratio}, "
                     f"needs {need:.0f}: {verdict}")  # fmt: skip
    missed = any(w.endswith("MISSED") for w in words)
    vacuous = all(w.endswith("VACUOUS") for w in words) and words
    return ("MISSED: " if missed else "VACUOUS: " if vacuous else "") + "; ".join(words)


def main(argv: list[str]) -> int:
    bar = "--bar" in argv
    args = [a for a in argv if a != "--bar"]
    if not args[1:] or args[0] not in {"latency", "overlap"}:
        sys.stderr.write(__doc__ or "")
        return 2
    missed, empty = (latency if args[0] == "latency" else overlap)(args[1:], bar=bar)
    if bar:
        verdict = "met" if missed == 0 else f"missed in {missed} rows"
        if empty:
            verdict += f"; {empty} rows prove nothing (neither side overlaps at all)"
        out(f"\nbar: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
