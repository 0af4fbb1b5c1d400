"""Predictions of `trellis simulate` against `trellis bench --testbed` measurements, as
bench/sim_accuracy.sh leaves them in OUT: the model it calibrated (OUT/model), the
configurations (OUT/configs.txt) and bench directories per layout (OUT/4x4, OUT/8x2,
OUT/2x8 and their -fast* siblings for the large sizes, pooled: every repetition of a
(configuration, size) in any of them counts; OUT/<layout>-4B for 4-byte calls).

    python3 bench/sim_accuracy.py OUT [--model FILE]

Prints, as Markdown: per layout and size, each configuration's measured median (with
the fastest and slowest repetition, and their number), the prediction and its error,
and the order of the configurations as measured and, where it differs, as predicted;
then the median absolute error over the large sizes and how many orders agree."""

import argparse
import csv
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRELLIS = ROOT / ".venv" / "bin" / "trellis"
LAYOUTS = {"4x4": "hosts=4 ranks_per_host=4", "8x2": "hosts=8 ranks_per_host=2",
           "2x8": "hosts=2 ranks_per_host=8"}  # fmt: skip
ELEM = 4  # trellis bench reduces ints
WHOLE_MS = 100


def configs(out: Path) -> dict[str, str]:
    """Each configuration's rules; a rules file is named relative to OUT."""
    rules = {}
    for line in (out / "configs.txt").read_text().splitlines():
        name, _, rest = line.partition(":")
        text = rest.removeprefix("rules=")
        rules[name] = str(out / text) if (out / text).is_file() else text
    return rules


def measured(dirs: list[Path], *, by_ranks: bool = False) -> list[dict]:
    """Per (configuration, size) (and rank count, by_ranks): the median over every
    repetition of the directories' raw.csv (each repetition's own median over its
    iterations), and the extremes."""
    reps: dict[tuple[str, int, int], list[float]] = {}
    for d in dirs:
        with (d / "raw.csv").open() as f:
            for r in csv.DictReader(f):
                key = (r["config"], int(r["bytes"]), int(r["ranks"]) if by_ranks else 16)
                reps.setdefault(key, []).append(float(r["median_us"]))
    return [{"config": c, "bytes": b, "ranks": p, "us": statistics.median(v), "min": min(v),
             "max": max(v), "reps": len(v)} for (c, b, p), v in sorted(reps.items())]  # fmt: skip


def predict(model: Path, rules: str, layout: str, nbytes: int, ranks: int = 16) -> float:
    proc = subprocess.run(
        [str(TRELLIS), "simulate", "allreduce", "--ranks", str(ranks), "--bytes", str(nbytes),
         "--elem-size", str(ELEM), "--topology", layout, "--rules", rules,
         "--model", str(model), "--json"],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    return json.loads(proc.stdout)[0]["predicted_ns"] / 1000


def ms(us: float) -> str:
    """Microseconds as milliseconds, to 3 significant digits (whole ones above 100)."""
    v = us / 1000
    return f"{v:.0f}" if v >= WHOLE_MS else f"{v:.3g}" if v >= 1 else f"{v:.2g}"


def size(nbytes: int) -> str:
    for unit, shift in (("M", 20), ("K", 10)):
        if nbytes >= 1 << shift and nbytes % (1 << shift) == 0:
            return f"{nbytes >> shift}{unit}"
    return str(nbytes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--model", type=Path, help="instead of OUT/model")
    args = parser.parse_args()
    out = args.out.resolve()
    model = (args.model or out / "model").resolve()
    rules = configs(out)
    names = list(rules)
    large_errors, small_errors, agree, cells = [], [], 0, 0
    head = ("| layout | bytes | " + " | ".join(f"{c}: measured (min..max, n)" for c in names)
            + " | " + " | ".join(f"{c}: predicted (error)" for c in names)
            + " | order measured, predicted |")  # fmt: skip
    rule = "|---|---:|" + "---:|" * (2 * len(names)) + "---|"
    note = ("times in ms; measured: the median over the repetitions (n), each repetition's "
            "own median of its calls")  # fmt: skip
    lines = [note, "", head, rule]
    for name, layout in LAYOUTS.items():
        for suffix in ("", "-4B"):
            dirs = ([out / f"{name}{suffix}"] if suffix
                    else [out / name, *sorted(out.glob(f"{name}-fast*"))])  # fmt: skip
            dirs = [d for d in dirs if (d / "raw.csv").is_file()]
            if not dirs:
                continue
            rows = measured(dirs)
            for nbytes in sorted({r["bytes"] for r in rows}):
                here = {r["config"]: r for r in rows if r["bytes"] == nbytes}
                for r in here.values():
                    r["predicted"] = predict(model, rules[r["config"]], layout, nbytes)
                    r["error"] = r["predicted"] / r["us"] - 1
                    (small_errors if suffix else large_errors).append(abs(r["error"]))
                by_measure = sorted(here, key=lambda c: here[c]["us"])
                by_predict = sorted(here, key=lambda c: here[c]["predicted"])
                same = by_measure == by_predict
                if not suffix:
                    cells += 1
                    agree += same
                got = " | ".join(f"{ms(here[c]['us'])} ({ms(here[c]['min'])}.."
                                 f"{ms(here[c]['max'])}, {here[c]['reps']})"
                                 for c in names)  # fmt: skip
                want = " | ".join(f"{ms(here[c]['predicted'])} ({100 * here[c]['error']:+.0f}%)"
                                  for c in names)  # fmt: skip
                order = (f"{'<'.join(by_measure)}" if same
                         else f"{'<'.join(by_measure)}, **{'<'.join(by_predict)}**")  # fmt: skip
                lines.append(f"| {name} | {size(nbytes)} | {got} | {want} | {order} |")
    sys.stdout.write("\n".join(lines) + "\n\n")
    if large_errors:
        sys.stdout.write(
            f"64 KiB and up: median |error| {100 * statistics.median(large_errors):.1f}% over "
            f"{len(large_errors)} cells (largest {100 * max(large_errors):.0f}%); configurations "
            f"ranked as measured in {agree} of {cells} (layout, size) cells\n"
        )
    if small_errors:
        sys.stdout.write(f"4-byte calls: median |error| "
                         f"{100 * statistics.median(small_errors):.0f}% over "
                         f"{len(small_errors)} cells\n")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
