"""`trellis bench`: configurations side by side over collectives x sizes x process
counts, interleaved and repeated (docs/bench.md).

    trellis bench --colls allreduce --sizes 4 --np 2,4,8,16 --reps 5 \\
        --config ompi --config han --config 'hier:rules=allreduce hier' --out results/

Each repetition runs every (process count, size) once per configuration, the
configurations in a rotating and shuffled order (run_order), so drift hits all alike.
A cell's time is the median over repetitions of each run's median (bench/latency: per
iteration the slowest rank, median over iterations; every result checked); its spread
the fastest and slowest repetition; its ratio the cell's median over the baseline
configuration's."""

import argparse
import csv
import os
import random
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

from trellis import bench_matrix, cmd_run, mpi_impl, native
from trellis.native import TrellisError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

RAW_FIELDS = ["rep", "config", "ranks", "hosts", "collective", "bytes", "median_us", "p10_us",
              "p90_us"]  # fmt: skip
SUMMARY_FIELDS = ["collective", "bytes", "ranks", "hosts", "config", "median_us", "min_us",
                  "max_us", "reps", "ratio_to_baseline"]  # fmt: skip


def counts(text: str) -> list[int]:
    """ "2,4,8" or "1-16" (every count) or a mix."""
    out: list[int] = []
    for part in text.split(","):
        lo, dash, hi = part.partition("-")
        try:
            out += list(range(int(lo), int(hi) + 1)) if dash else [int(lo)]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected counts such as 2,4,8 or 1-16: {text}"
            ) from None
    if not out or min(out) < 1:
        raise argparse.ArgumentTypeError(f"process counts must be at least 1: {text}")
    return sorted(set(out))


def sizes(text: str) -> list[int]:
    try:
        return [native.parse_size(s) for s in text.split(",")]
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "bench",
        help="compare configurations (the MPI's own, han, Trellis rules) side by side",
        description="Run collectives x sizes x process counts under each configuration, "
        "interleaved and repeated; print a table, write CSVs and a plot (time against "
        "process count, a line per configuration). Configurations: ompi (Open MPI's own), han "
        "(Open MPI's han forced on), mpich (MPICH's own, with --mpi mpich), "
        "NAME:MPIR_CVAR_...=VALUE (MPICH's own with its settings; Open MPI's: OMPI_MCA_*), or "
        "NAME:rules=RULES;topology=LAYOUT (Trellis; "
        "each a file or the text itself; several rules as rules=RULE; RULE: a ';' starts the "
        "next setting only before rules=, topology=, topology@N=, TRELLIS_*= or the MPI's own; "
        "topology@N=LAYOUT for runs on N ranks; docs/bench.md).",
    )
    parser.add_argument("--colls", default="allreduce", help="collectives (allreduce)")
    parser.add_argument("--sizes", type=sizes, default=[4], help="bytes per call, e.g. 4,64K")
    parser.add_argument("--np", type=counts, default=[2], help="process counts: 2,4,8 or 1-16")
    parser.add_argument("--reps", type=int, default=5, help="repetitions (5)")
    parser.add_argument("--iters", type=int, default=1000, help="timed iterations a run (1000)")
    parser.add_argument(
        "--config", action="append", default=[], metavar="CONFIG",
        help="a configuration (repeat); default: the MPI's own and Trellis' built-in rules",
    )  # fmt: skip
    parser.add_argument(
        "--baseline",
        default=None,
        help="configuration the ratios divide by (the MPI's own: ompi, mpich)",
    )
    parser.add_argument("--mpi", default=None, choices=sorted(mpi_impl.KINDS),
                        help="the MPI: openmpi (default) or mpich; also TRELLIS_MPI")  # fmt: skip
    parser.add_argument("--testbed", nargs="?", const="", metavar="DIR",
                        help="run across the emulated cluster (trellis testbed up)")  # fmt: skip
    parser.add_argument("--map-by", help="mpirun's --map-by (node: round-robin over hosts)")
    parser.add_argument(
        "--sync", choices=("p2p", "mpi"), default="p2p",
        help="what aligns the ranks before each timed call: the benchmark's own barrier over "
        "point-to-point, the same in every configuration (p2p, default), or the MPI library's "
        "MPI_Barrier, which han replaces (mpi)",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=Path("bench-results"), metavar="DIR")
    parser.set_defaults(func=run)


def progress(done: int, total: int, what: str) -> None:
    width = 30
    filled = width * done // total
    bar = "#" * filled + "." * (width - filled)
    sys.stderr.write(f"\r[{bar}] {done}/{total} {what:<50.50}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def run_order(configs: list, rep: int, ranks: int, nbytes: int) -> list:
    """The order of one repetition's runs of a cell: who goes first rotates, so each
    configuration leads as often as the others, and the rest follow in a shuffled order,
    seeded by the cell, so no configuration always runs right after the same one (a job
    can leave the machine warm or busy for the next)."""
    shift = (rep + ranks + nbytes) % len(configs)
    rest = configs[shift + 1 :] + configs[:shift]
    random.Random(f"{rep}:{ranks}:{nbytes}").shuffle(rest)  # noqa: S311 -- an order, not a secret
    return [configs[shift], *rest]


def summarize(raw: list[dict], baseline: str, order: list[str]) -> list[dict]:
    """A row per cell; cells by collective, size and process count, the configurations
    of a cell in `order` (that of --config)."""
    cells: dict[tuple, list[dict]] = defaultdict(list)
    for row in raw:
        cells[(row["collective"], row["bytes"], row["ranks"], row["config"])].append(row)
    medians = {k: statistics.median(r["median_us"] for r in v) for k, v in cells.items()}
    out = []
    for key, rows in sorted(cells.items(), key=lambda kv: (*kv[0][:3], order.index(kv[0][3]))):
        coll, nbytes, ranks, config = key
        base = medians.get((coll, nbytes, ranks, baseline))
        out.append({
            "collective": coll, "bytes": nbytes, "ranks": ranks, "hosts": rows[0]["hosts"],
            "config": config, "median_us": round(medians[key], 4),
            "min_us": min(r["median_us"] for r in rows),
            "max_us": max(r["median_us"] for r in rows), "reps": len(rows),
            "ratio_to_baseline": round(medians[key] / base, 4) if base else "",
        })  # fmt: skip
    return out


def table(summary: list[dict], baseline: str) -> str:
    head = (f"{'collective':<12} {'bytes':>8} {'ranks':>5} {'config':<16} {'median_us':>10} "
            f"{'min_us':>9} {'max_us':>9} {'ratio/' + baseline:>12}")  # fmt: skip
    lines = [head]
    for s in summary:
        ratio = f"{s['ratio_to_baseline']:.3f}" if s["ratio_to_baseline"] != "" else "-"
        lines.append(f"{s['collective']:<12} {s['bytes']:>8} {s['ranks']:>5} {s['config']:<16} "
                     f"{s['median_us']:>10.2f} {s['min_us']:>9.2f} {s['max_us']:>9.2f} "
                     f"{ratio:>12}")  # fmt: skip
    return "\n".join(lines) + "\n"


def figure(summary: list[dict], order: list[str]) -> "Figure":
    """Seed 000's Figures 5-8: time against process count, a line per configuration
    (error bars: fastest and slowest repetition), a panel per collective and size. Each
    configuration keeps its colour and marker, those of its place in `order` (--config),
    in every panel and every run; the x axis has a tick per process count run."""
    import matplotlib  # noqa: PLC0415 -- only when plotting

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt  # noqa: PLC0415

    colours = plt.get_cmap("tab10").colors
    markers = "osD^vP*Xh<>p"
    panels = sorted({(s["collective"], s["bytes"]) for s in summary})
    fig, axes = plt.subplots(len(panels), 1, figsize=(7, 4 * len(panels)), squeeze=False)
    for ax, (coll, nbytes) in zip(axes[:, 0], panels, strict=True):
        rows = [s for s in summary if (s["collective"], s["bytes"]) == (coll, nbytes)]
        for config in sorted({s["config"] for s in rows}, key=order.index):
            mine = sorted((s for s in rows if s["config"] == config), key=lambda s: s["ranks"])
            x = [s["ranks"] for s in mine]
            y = [s["median_us"] for s in mine]
            err = [[m - s["min_us"] for m, s in zip(y, mine, strict=True)],
                   [s["max_us"] - m for m, s in zip(y, mine, strict=True)]]  # fmt: skip
            i = order.index(config)
            ax.errorbar(x, y, yerr=err, marker=markers[i % len(markers)], capsize=3,
                        label=config, color=colours[i % len(colours)])  # fmt: skip
        ranks = sorted({s["ranks"] for s in rows})
        ax.set_xticks(ranks)
        ax.set_xlim(ranks[0] - 0.5, ranks[-1] + 0.5)
        ax.set_title(f"{coll}, {nbytes} bytes")
        ax.set_xlabel("processes")
        ax.set_ylabel("time per call (us, median)")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    return fig


def plot(summary: list[dict], order: list[str], path: Path) -> None:
    from matplotlib import pyplot as plt  # noqa: PLC0415 -- only when plotting

    fig = figure(summary, order)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def run(args: argparse.Namespace) -> str:
    try:
        mpi = mpi_impl.get(mpi_impl.chosen(args.mpi, os.environ) or mpi_impl.DEFAULT)
    except mpi_impl.UnknownMPIError as err:
        raise TrellisError(f"trellis bench: {err}", 2) from None
    own = next(iter(mpi.baselines))  # the MPI library's default selection
    args.baseline = args.baseline or own
    configs = [bench_matrix.parse_config(c, mpi) for c in (args.config or [own, "trellis:"])]
    names = [c.name for c in configs]
    if len(set(names)) != len(names):
        raise TrellisError(f"trellis bench: configuration names repeat: {names}", 2)
    if args.baseline not in names:
        raise TrellisError(f"trellis bench: --baseline {args.baseline} is not among {names}", 2)
    if args.reps < 1 or args.iters < 1:
        raise TrellisError("trellis bench: --reps and --iters must be at least 1", 2)
    for config in configs:
        bench_matrix.check_rules(config)
        bench_matrix.check_library(config, mpi)
        bench_matrix.check_layouts(config, args.np)
    testbed_dir = None if args.testbed is None else Path(args.testbed or "/run/trellis-testbed")
    matrix = bench_matrix.Run(
        args.colls.split(","), args.iters, testbed_dir, args.map_by, args.sync, mpi
    )
    cpus = cmd_run.available_cpus()
    if max(args.np) > cpus:
        sys.stderr.write(f"trellis bench: warning: up to {max(args.np)} ranks on {cpus} cores: "
                         "oversubscribed timings mislead\n")  # fmt: skip
    raw: list[dict] = []
    total = args.reps * len(args.np) * len(args.sizes) * len(configs)
    done = 0
    for rep in range(args.reps):
        for ranks in args.np:
            for nbytes in args.sizes:
                for config in run_order(configs, rep, ranks, nbytes):
                    progress(done, total, f"rep {rep + 1} np={ranks} {nbytes} B {config.name}")
                    for row in bench_matrix.measure(config, ranks, nbytes, matrix):
                        raw.append({"rep": rep + 1, "config": config.name, "ranks": ranks, **row})
                    done += 1
    progress(total, total, "done")
    summary = summarize(raw, args.baseline, names)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    for name, rows, fields in (("raw.csv", raw, RAW_FIELDS), ("summary.csv", summary,
                                                                SUMMARY_FIELDS)):  # fmt: skip
        with (out / name).open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(rows)
    plot(summary, names, out / "plot.png")
    return table(summary, args.baseline) + (
        f"wrote {out / 'summary.csv'}, {out / 'raw.csv'} and {out / 'plot.png'}\n"
    )
