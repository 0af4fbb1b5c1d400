"""The 4 x 4 barrier against han, per repetition and pooled over every run of the
built-in hier barrier (`hier host=knomial(radix=4) world=linear`; `sp` in barrier2/run1
is the same written as a rule). In each repetition every configuration was launched
once, alternating, so a repetition's ratio is its median over han's median in the same
repetition. Prints, per run and pooled: the median ratio with a bootstrap 95% interval
(10,000 resamples, fixed seed), the quartiles, how many repetitions were faster than
han, and the two-sided sign-test p-value. Usage: python3 pooled.py (from anywhere)."""

import collections
import csv
import math
import random
import statistics
import sys
from pathlib import Path

HOSTS = Path(__file__).resolve().parent.parent
RUNS = ["barrier2/run1", "barrier2/run2", "barrier2/run3", "barrier3/run1", "barrier4/run1"]
BUILT_IN = {"builtin", "sp"}


def ratios(run: Path, over: str) -> list[float]:
    reps: dict[int, dict[str, float]] = collections.defaultdict(dict)
    for row in csv.DictReader((run / "raw.csv").open()):
        reps[int(row["rep"])][row["config"]] = float(row["median_us"])
    return [r[c] / r[over] for r in reps.values() for c in BUILT_IN if c in r and over in r]


def sign_test(faster: int, n: int) -> float:
    """Two-sided p of `faster` of `n` under "equally likely faster or slower"."""
    k = min(faster, n - faster)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def interval(xs: list[float], rng: random.Random) -> tuple[float, float]:
    meds = sorted(statistics.median(rng.choices(xs, k=len(xs))) for _ in range(10000))
    return meds[250], meds[9749]


def line(name: str, xs: list[float], rng: random.Random) -> str:
    xs = sorted(xs)
    n, faster = len(xs), sum(x < 1 for x in xs)
    lo, hi = interval(xs, rng)
    return (
        f"{name:16} n={n:3}  median {statistics.median(xs):.3f} (95% {lo:.3f}-{hi:.3f})  "
        f"quartiles {xs[n // 4]:.3f}-{xs[3 * n // 4]:.3f}  faster {faster}/{n}  "
        f"sign test p={sign_test(faster, n):.3f}"
    )


def main() -> None:
    rng = random.Random(1)  # noqa: S311 - resampling, reproducible by its seed
    for over in ("han", "ompi"):
        sys.stdout.write(f"built-in barrier over {over}, per repetition:\n")
        pooled: list[float] = []
        for run in RUNS:
            if (HOSTS / run / "raw.csv").exists():
                xs = ratios(HOSTS / run, over)
                pooled += xs
                sys.stdout.write(f"  {line(run, xs, rng)}\n")
        sys.stdout.write(f"  {line('pooled', pooled, rng)}\n")


if __name__ == "__main__":
    main()
