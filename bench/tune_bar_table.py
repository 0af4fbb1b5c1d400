"""Issue 31's bar from bench/tune_bar.sh's output: a Markdown table per shape.

    python3 bench/tune_bar_table.py [--trellis hand] results/tune_bar/4x4 [.../8x2 ...]

For each collective and size: the median us of Open MPI's default, han and Trellis
(`tuned`: the built-in rules, tuned ones included), Trellis over Open MPI and over the
faster of the two, and whether Trellis is slower than that faster one beyond the
noise. Each configuration runs as its own jobs, and jobs differ more from one another
than the blocks within one job do, so the noise is measured between jobs: where the
runs include `again` (Open MPI's default a second time, under another name), its
ratio to `ompi` at every point is what two identical configurations measure apart.
Beyond the noise: slower than the faster in every repetition (the repetitions are
interleaved, so each pairs the configurations under the same load) and by more than
the control's 90th percentile of |again / ompi - 1| over the shape's points (without
`again`, the first test alone); and, listed apart, by more than the control's median.
Barrier, which has no size, counts once. The last lines per shape: the control's
spread, the geometric mean of Trellis over Open MPI at all points, and the points
slower beyond the noise. --trellis names another Trellis column (hand: the hand rules).
"""

import argparse
import csv
import math
import statistics
import sys
from pathlib import Path

SIZE_ORDER = {"4": 0, "64K": 1, "1M": 2}


def read_reps(size_dir: Path) -> dict[str, dict[str, list[float]]]:
    """collective -> config -> median us of each repetition, in repetition order."""
    out: dict[str, dict[str, list[float]]] = {}
    with (size_dir / "raw.csv").open() as f:
        for r in csv.DictReader(f):
            out.setdefault(r["collective"], {}).setdefault(r["config"], []).append(
                float(r["median_us"])
            )
    return out


def control_spread(points: list[dict[str, list[float]]]) -> list[float]:
    """|again / ompi - 1| of the medians at each point that has both, sorted."""
    spread = []
    for by_config in points:
        if {"ompi", "again"} <= by_config.keys():
            ompi = statistics.median(by_config["ompi"])
            spread.append(abs(statistics.median(by_config["again"]) / ompi - 1))
    return sorted(spread)


def quantile(sorted_values: list[float], q: float) -> float:
    """The q-quantile of sorted values, by the nearest rank."""
    return sorted_values[min(len(sorted_values) - 1, math.ceil(q * len(sorted_values)) - 1)]


def shape_table(shape_dir: Path, trellis: str = "tuned") -> str:
    head = (
        "| collective | size | Open MPI | han | Trellis | / Open MPI | / faster "
        "| slower beyond noise |"
    )
    lines = [f"**{shape_dir.name}**", "", head, "|---|---|---:|---:|---:|---:|---:|---|"]
    sizes = sorted(
        (d for d in shape_dir.iterdir() if (d / "raw.csv").exists()),
        key=lambda d: SIZE_ORDER.get(d.name, 9),
    )
    points = []  # (collective, size, config -> repetitions)
    for size_dir in sizes:
        for coll, by_config in sorted(read_reps(size_dir).items()):
            if not {"ompi", "han", trellis} <= by_config.keys():
                continue
            if coll == "barrier" and size_dir != sizes[0]:
                continue  # the same call at every size: counted once
            points.append((coll, size_dir.name, by_config))
    spread = control_spread([p[2] for p in points])
    noise = quantile(spread, 0.9) if spread else 0.0
    typical = statistics.median(spread) if spread else 0.0
    ratios, slower, slower_typical = [], [], []
    for coll, size, by_config in points:
        med = {c: statistics.median(v) for c, v in by_config.items()}
        faster = min(med["ompi"], med["han"])
        paired = zip(by_config[trellis], by_config["ompi"], by_config["han"], strict=False)
        every = all(t > min(o, h) for t, o, h in paired)
        beyond = every and med[trellis] > faster * (1 + noise)
        ratios.append(med[trellis] / med["ompi"])
        if beyond:
            slower.append(f"{coll} {size} ({med[trellis] / faster:.2f})")
        if spread and every and med[trellis] > faster * (1 + typical):
            slower_typical.append(f"{coll} {size} ({med[trellis] / faster:.2f})")
        lines.append(
            f"| {coll} | {size} | {med['ompi']:.0f} | {med['han']:.0f} | "
            f"{med[trellis]:.0f} | {med[trellis] / med['ompi']:.2f} | "
            f"{med[trellis] / faster:.2f} | {'**yes**' if beyond else 'no'} |"
        )
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        lines.append("")
        if spread:
            lines.append(
                f"Noise between jobs (Open MPI's default run twice, `again` over `ompi`, "
                f"{len(spread)} points): median {statistics.median(spread):.1%}, 90th "
                f"percentile {noise:.1%}, largest {spread[-1]:.1%}."
            )
        lines.append(
            f"{len(ratios)} points; geometric mean of Trellis / Open MPI: "
            f"{geo:.2f} ({1 / geo:.2f}x faster); slower than the faster of Open MPI "
            f"and han in every repetition"
            + (f" and by more than {noise:.1%}" if spread else "")
            + f": {', '.join(slower) or 'none'}"
        )
        if spread:
            lines.append(
                f"By more than the control's median, {typical:.1%}: "
                f"{', '.join(slower_typical) or 'none'}"
            )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description="Issue 31's bar from bench/tune_bar.sh's output: a Markdown table per shape."
    )
    parser.add_argument(
        "--trellis", default="tuned", help="the Trellis column (hand: the hand rules)"
    )
    parser.add_argument("shapes", nargs="+", type=Path, help="results/tune_bar/SHAPE directories")
    args = parser.parse_args(argv)
    for d in args.shapes:
        if not d.is_dir():
            parser.error(
                f"{d}: no such directory (bench/tune_bar.sh writes results/tune_bar/SHAPE)"
            )
    sys.stdout.write("\n\n".join(shape_table(d, args.trellis) for d in args.shapes) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
