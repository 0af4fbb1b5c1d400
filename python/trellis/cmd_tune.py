"""`trellis tune`: measure this cluster and write the rules that suit it (docs/tune.md).

    trellis tune --np 16 --testbed --out cluster.rules
    trellis tune --np 2,4 --colls allreduce,bcast --sizes 4,64K,1M --budget 5m
    trellis tune --np 16 --testbed --check cluster.rules

For each rank count, one MPI job (bench/tune_worker with Trellis preloaded) measures
every point (a collective at a size): the candidates the model ranks best (tune_plan),
`mpi` and the built-in choice, in interleaved blocks until the statistics settle
(tune_stats). The rules (tune_rules) go to --out, every measurement to a CSV beside it,
the state to a JSON beside it (--resume carries on from there), and a plot to a PNG."""

import argparse
import csv
import hashlib
import json
import math
import os
import platform
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from trellis import (
    cmd_bench,
    cmd_run,
    mpi_impl,
    native,
    tune_plan,
    tune_refine,
    tune_rules,
    tune_run,
    tune_space,
)
from trellis.native import TrellisError
from trellis.tune_plan import Model, Point
from trellis.tune_rules import Outcome
from trellis.tune_run import Session, run_point
from trellis.tune_space import Candidate
from trellis.tune_worker import Worker, worker_program

# The bar's nine collectives, then the rest of the intracommunicator ones.
ALL_COLLS = ["allreduce", "bcast", "reduce", "allgather", "alltoall", "barrier", "gather",
             "scatter", "reduce_scatter", "reduce_scatter_block", "allgatherv", "gatherv",
             "scatterv", "alltoallv", "alltoallw", "scan", "exscan"]  # fmt: skip
DEFAULT_SIZES = "4,256,4K,64K,1M,16M"
TOP = 4
# Issue 31's bar: the pruned search's best within 3% of the exhaustive winner.
PRUNED_NEAR = 1.03


def duration(text: str) -> float:
    """90, 90s, 15m, 1h: seconds."""
    scale = {"s": 1, "m": 60, "h": 3600}.get(text[-1:], 1)
    try:
        value = float(text[:-1] if text[-1:] in "smh" else text) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a time such as 900, 15m or 1h: {text}") \
            from None  # fmt: skip
    if value <= 0:
        raise argparse.ArgumentTypeError(f"the budget must be positive: {text}")
    return value


def colls(text: str) -> list[str]:
    out = [c.strip() for c in text.split(",") if c.strip()]
    bad = [c for c in out if c not in ALL_COLLS]
    if bad or not out:
        raise argparse.ArgumentTypeError(
            f"unknown collective {', '.join(bad) or text!r} (one of: {', '.join(ALL_COLLS)})"
        )
    return out


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "tune",
        help="measure this cluster and write the rules that suit it",
        description="Measure the candidates of each collective at each size in one MPI job "
        "per rank count (the model's best few, mpi and the built-in choice, interleaved, "
        "until the statistics settle) and write rules with their measurements "
        "(docs/tune.md). Options it does not know go to mpirun (a hostfile, say); "
        "--testbed runs on the emulated cluster.",
    )
    parser.add_argument("--np", type=cmd_bench.counts, metavar="N",
                        help="rank counts, one job each (2,4,16); or mpirun's -np")  # fmt: skip
    parser.add_argument("--colls", type=colls, default=ALL_COLLS, metavar="LIST",
                        help="collectives to tune (default: all intracommunicator)")  # fmt: skip
    parser.add_argument("--sizes", type=cmd_bench.sizes, default=DEFAULT_SIZES, metavar="LIST",
                        help=f"message sizes as bench's rows ({DEFAULT_SIZES})")  # fmt: skip
    parser.add_argument("--budget", type=duration, default=900.0, metavar="TIME",
                        help="wall time for the measurements (15m)")  # fmt: skip
    parser.add_argument("--out", type=Path, default=Path("tuned.rules"), metavar="FILE",
                        help="the rules file (tuned.rules); .csv .json .png beside it")  # fmt: skip
    parser.add_argument("--model", type=Path, metavar="FILE",
                        help="the machine's model (trellis calibrate); default: calibrate "
                        "first, into FILE.model")  # fmt: skip
    parser.add_argument("--top", type=int, default=TOP, metavar="K",
                        help=f"candidates measured from the model's order ({TOP})")  # fmt: skip
    parser.add_argument("--block-ms", type=float, default=1000 * tune_run.BLOCK_S, metavar="MS",
                        help="about how long one candidate's block of calls lasts "
                        f"({1000 * tune_run.BLOCK_S:.0f})")  # fmt: skip
    parser.add_argument("--exhaustive", action="store_true",
                        help="measure all of the space, not the model's best few")  # fmt: skip
    parser.add_argument("--refine", action=argparse.BooleanOptionalAction, default=True,
                        help="where a collective's winner changes between two sizes 4x or "
                        "more apart, measure the size between them too (default: on)")  # fmt: skip
    parser.add_argument("--resume", action="store_true",
                        help="carry on from FILE.json, where a stopped run got to")  # fmt: skip
    parser.add_argument("--check", type=Path, metavar="RULES",
                        help="measure these rules at the tuned sizes and between against "
                        "the built-in rules, mpi and the best candidate there")  # fmt: skip
    parser.add_argument("--testbed", nargs="?", const="", metavar="DIR",
                        help="run on the emulated cluster (trellis testbed up)")  # fmt: skip
    parser.add_argument("--mpi", choices=sorted(mpi_impl.KINDS), default=None,
                        help="the MPI library (default: Open MPI)")  # fmt: skip
    parser.set_defaults(func=run, passthrough=True)


def machine_words(mpi: str) -> str:
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    kind = mpi_impl.get(mpi)
    try:
        proc = subprocess.run([kind.launcher(), "--version"], capture_output=True, text=True,
                              check=False, timeout=30)  # fmt: skip
        found = re.search(r"\b(\d+\.\d+(?:\.\d+)?)\b", proc.stdout)
        version = f"{kind.title} {found.group(1) if found else '(version unknown)'}"
    except OSError:
        version = f"{kind.title} ({kind.launcher()} not found)"
    return f"{platform.node()}, {cpu}, {os.cpu_count()} cores; {version}"


def run_argv(args: argparse.Namespace, extra: list[str], ranks: int | None) -> list[str]:
    """`trellis run`'s command line for the worker."""
    argv = ["--mpi", args.mpi or "openmpi"]
    if args.testbed is not None:
        argv.append(f"--testbed={args.testbed}" if args.testbed else "--testbed")
    if ranks is not None:
        argv += ["-np", str(ranks)]
    return [*argv, *extra, str(worker_program(args.mpi or "openmpi"))]


def start_worker(args: argparse.Namespace, extra: list[str], ranks: int | None) -> Worker:
    mpi = args.mpi or "openmpi"
    plan = cmd_run.plan(run_argv(args, extra, ranks), environ=os.environ,
                        cpus=cmd_run.available_cpus(), as_root=os.geteuid() == 0,
                        library=native.library(mpi))  # fmt: skip
    env = {k: v for k, v in plan.env.items() if k != "TRELLIS_RULES"}
    return Worker(plan.command, env)


def builtin_rules_id() -> str:
    """A fingerprint of the built-in rules in force, those a run's "built-in" candidates
    run and the sizes its rules leave to: the hand rules and, unless TRELLIS_TUNED turns
    them off, the tuned ones the library was built with. Kept in the run's JSON, so that
    --check and --resume can tell when the library or the setting changed since."""
    # The off words of src/core/settings.c; anything else, unset included, is on.
    off = os.environ.get("TRELLIS_TUNED", "").strip().lower() in ("0", "off", "no", "false")
    text = native.info("builtin-rules") + "\0" + ("" if off else native.info("tuned-rules"))
    # The rules alone: an edit to their comments changes no choice.
    rules = [line.strip() for line in text.splitlines()]
    kept = "\n".join(r for r in rules if r and not r.startswith("#"))
    return hashlib.sha256(kept.encode()).hexdigest()[:16]


def recorded_builtin_rules(rules: Path) -> str | None:
    """builtin_rules_id as the run that wrote `rules` recorded it (its JSON beside it);
    None where it has none (no record, or one from before the field)."""
    state = rules.with_suffix(rules.suffix + ".json")
    saved = json.loads(state.read_text()) if state.is_file() else {}
    return ((saved or {}).get("config") or {}).get("builtin_rules")


def calibrate(args: argparse.Namespace, extra: list[str], path: Path) -> Path:
    argv = [sys.executable, "-m", "trellis", "calibrate", "--out", str(path)]
    if args.testbed is not None:
        argv += ["--testbed", args.testbed] if args.testbed else ["--testbed"]
    argv += ["--", *[a for a in extra if a not in ("-np", "-n")]] if extra else []
    progress(f"calibrating the model of this machine: {' '.join(argv[3:])}")
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    if proc.returncode:
        raise TrellisError(f"trellis tune: calibrate failed:\n{proc.stderr.strip()}",
                           proc.returncode)  # fmt: skip
    return path


def progress(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def bar(done: int, total: int, left_s: float, what: str) -> None:
    width = 24
    full = int(width * done / max(total, 1))
    left = f"{int(left_s // 60)}:{int(left_s % 60):02d} left" if left_s > 0 else "over budget"
    progress(f"[{'#' * full}{'.' * (width - full)}] {done}/{total} {left}  {what}")


def points_for(layout: tune_space.Layout, collectives: list[str], sizes: list[int]) -> list[Point]:
    out = []
    for coll in collectives:
        if coll == "barrier":
            out.append(Point(coll, layout, (0,)))
        elif coll in tune_space.SIZELESS:
            out.append(Point(coll, layout, tuple(sizes)))
        else:
            out += [Point(coll, layout, (s,)) for s in sizes]
    return out


def load_state(path: Path, config: dict) -> list[Outcome]:
    state = json.loads(path.read_text())
    saved = state.get("config") or {}
    if saved.get("builtin_rules", config["builtin_rules"]) != config["builtin_rules"]:
        raise TrellisError(f"trellis tune: --resume: the built-in rules differ from those "
                           f"{path} measured against (the library rebuilt with other rules, "
                           f"or TRELLIS_TUNED set otherwise): its built-in candidates would "
                           f"not be the same; start the run again without --resume", 2)  # fmt: skip
    saved.setdefault("builtin_rules", config["builtin_rules"])  # a run from before the field
    if saved != config:
        raise TrellisError(f"trellis tune: --resume: {path} is of another run "
                           f"({state.get('config')}), not {config}", 2)  # fmt: skip
    return [Outcome.from_json(d) for d in state["outcomes"]]


def keep_decided_rows(path: Path, outcomes: list[Outcome]) -> None:
    """On --resume: the CSV keeps the blocks of the points decided; a point cut short is
    measured again from its first round."""
    if not path.exists():
        return
    decided = {(o.layout.ranks, o.coll, s) for o in outcomes for s in o.sizes}
    with path.open(newline="") as f:
        rows = list(csv.reader(f))
    head, body = rows[0], rows[1:]
    col = {name: k for k, name in enumerate(head)}
    kept = [r for r in body if (int(r[col["ranks"]]), r[col["collective"]],
                                int(r[col["size"]])) in decided]  # fmt: skip
    with path.open("w", newline="") as f:
        csv.writer(f).writerows([head, *kept])


def save_state(path: Path, config: dict, outcomes: list[Outcome]) -> None:
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps({"config": config, "outcomes": [o.to_json() for o in outcomes]},
                              indent=1) + "\n")  # fmt: skip
    tmp.replace(path)


@dataclass
class Planned:
    """A point ready to measure: its candidates (the built-in first), the built-in
    choice's label, the model's order, and its expected cost (seconds, for its share of
    the budget)."""

    point: Point
    cands: list[Candidate]
    builtin: str
    order: list[Candidate]
    cost: float


def plan_point(point: Point, args: argparse.Namespace, model: Model, algorithms: list[dict],
               also: list[Candidate] | None = None) -> Planned:  # fmt: skip
    """The point's candidates: the built-in choice first, mpi, the model's best few (or
    all of the space) and `also` (a size between: its neighbours' winners)."""
    builtin = tune_plan.builtin_choice(point, point.sizes[-1], algorithms)
    predicted = tune_plan.ranked(point, algorithms, model)
    if args.exhaustive:
        full = tune_space.space(point.coll, point.layout,
                                point.rule_bytes(max(point.sizes)), algorithms)  # fmt: skip
        predicted.update(zip(full, model.predict_point(full, point), strict=True))
        chosen = [c for c in full if math.isfinite(predicted[c])]
    else:
        chosen = tune_plan.top(predicted, args.top)
    order = sorted((c for c in predicted if math.isfinite(predicted[c])), key=predicted.get)
    cands = [tune_space.builtin(point.coll)]
    cands += [c for c in [tune_space.mpi(point.coll), *chosen, *(also or [])] if c != builtin]
    cands = list(dict.fromkeys(cands))
    # A block is BLOCK_S long, or MIN_ITERS calls where a call takes longer (the model's
    # time of the best candidate, seconds).
    call_s = min((predicted[c] for c in chosen), default=0.0) * 1e-9
    block = max(args.block_ms / 1000, tune_run.MIN_ITERS * call_s)
    return Planned(point, cands, builtin.label, order, len(cands) * len(point.sizes) * block)


def pruned_against_all(outcome: Outcome, top: set[str]) -> None:
    """An exhaustive run's point: whether the model's top few (the labels top), with
    built-in and mpi, held the winner, and how far their best median was from it."""
    pruned = top | {"built-in", "mpi"}
    outcome.model_top = outcome.winner in pruned
    best = min((m.median_us for m in outcome.measured if m.label in pruned), default=math.nan)
    won = outcome.of(outcome.winner)
    if won and won.median_us > 0 and math.isfinite(best):
        outcome.model_gap = best / won.median_us


def run_plans(plans: list[Planned], session: Session, args: argparse.Namespace, ctx: dict,
              later: float) -> None:  # fmt: skip
    """Measure the points planned, each given its share of the budget left (later: the
    expected cost of the points still to plan after these)."""
    for i, plan in enumerate(plans):
        left = max(ctx["deadline"] - time.monotonic(), 0.0)
        share = left * plan.cost / (sum(p.cost for p in plans[i:]) + later)
        outcome = run_point(session, plan.point, plan.cands, builtin_label=plan.builtin,
                            deadline=time.monotonic() + share, model_order=plan.order)  # fmt: skip
        if args.exhaustive:
            top = tune_plan.top({c: k for k, c in enumerate(plan.order)}, args.top)
            pruned_against_all(outcome, {c.label for c in top})
        ctx["outcomes"].append(outcome)
        ctx["done"].add(plan.point.key)
        save_state(ctx["state"], ctx["config"], ctx["outcomes"])
        mid = tune_refine.is_between(plan.point.coll, plan.point.sizes[0], args.sizes)
        bar(len(ctx["done"]), ctx["total"], ctx["deadline"] - time.monotonic(),
            f"{plan.point.coll}{' (between)' * mid} {tune_rules.comment(outcome)}")  # fmt: skip


def unrefined(layout: tune_space.Layout, ctx: dict) -> list[tuple[Point, Outcome, Outcome]]:
    """The sizes between on this layout not measured yet (tune_refine)."""
    mine = [o for o in ctx["outcomes"] if o.layout == layout]
    return [g for g in tune_refine.gaps(mine) if g[0].key not in ctx["done"]]


def refine_job(layout: tune_space.Layout, session: Session, args: argparse.Namespace,
               ctx: dict) -> None:  # fmt: skip
    """Sizes between where the winner changed, pass after pass, while the budget lasts."""
    while time.monotonic() < ctx["deadline"] and (found := unrefined(layout, ctx)):
        plans = [plan_point(p, args, ctx["model"], ctx["algorithms"],
                            also=tune_refine.neighbours(lo, hi))
                 for p, lo, hi in found]  # fmt: skip
        ctx["total"] += len(plans)
        progress(f"{len(plans)} size{'s' * (len(plans) > 1)} between where the winner "
                 "changed: "
                 + ", ".join(f"{p.point.coll} {tune_rules.size_words(p.point.sizes[0])}"
                             for p in plans))  # fmt: skip
        run_plans(plans, session, args, ctx, ctx["later"] * plans[0].cost)


def tune_job(args: argparse.Namespace, extra: list[str], ranks: int | None, ctx: dict) -> None:
    worker = start_worker(args, extra, ranks)
    try:
        layout = tune_space.Layout(worker.ranks, worker.hosts, worker.ranks_per_host)
        todo = [p for p in points_for(layout, args.colls, args.sizes)
                if p.key not in ctx["done"]]  # fmt: skip
        progress(f"{layout.ranks} ranks, {layout.hosts} host(s) x {layout.ranks_per_host}: "
                 f"ranking the candidates of {len(todo)} points under the model")  # fmt: skip
        plans = [plan_point(p, args, ctx["model"], ctx["algorithms"]) for p in todo]
        session = Session(worker.measure, worker.define, csv_path=ctx["csv"],
                          block_s=args.block_ms / 1000)  # fmt: skip
        # This job's sizes between and later jobs' points are weighed as this job's
        # average point.
        average = sum(p.cost for p in plans) / max(len(plans), 1)
        run_plans(plans, session, args, ctx, (ctx["later"] + ctx["between"]) * average)
        if args.refine:
            refine_job(layout, session, args, ctx)
            ctx["unrefined"] += len(unrefined(layout, ctx))
    finally:
        worker.close()


def run(args: argparse.Namespace, extra: list[str] | None = None) -> str:
    extra = list(extra or [])
    if args.check:
        from trellis import tune_check  # noqa: PLC0415 -- only --check needs it

        return tune_check.run(args, extra)
    counts = args.np or [None]
    if args.np is None and cmd_run.ranks_requested(extra) is None:
        raise TrellisError("trellis tune: how many ranks? give --np N (or mpirun's -np N)", 2)
    out: Path = args.out
    csv_path, state = out.with_suffix(out.suffix + ".csv"), out.with_suffix(out.suffix + ".json")
    config = {"np": args.np, "colls": args.colls, "sizes": args.sizes, "top": args.top,
              "exhaustive": args.exhaustive, "refine": args.refine, "extra": extra,
              "builtin_rules": builtin_rules_id()}  # fmt: skip
    outcomes = load_state(state, config) if args.resume and state.exists() else []
    if args.resume:
        keep_decided_rows(csv_path, outcomes)
    else:
        for p in (csv_path, state):
            p.unlink(missing_ok=True)
    start = time.monotonic()
    model_path = args.model or calibrate(args, extra, out.with_suffix(out.suffix + ".model"))
    if not model_path.is_file():
        raise TrellisError(f"trellis tune: no model file {model_path}", 2)
    algorithms = json.loads(native.info("algorithms"))
    per_job = sum(1 if c in tune_space.SIZELESS else len(args.sizes) for c in args.colls)
    between = tune_refine.expected(args.colls, args.sizes) if args.refine else 0.0
    resumed_between = sum(1 for o in outcomes
                          if tune_refine.is_between(o.coll, o.sizes[0], args.sizes))  # fmt: skip
    ctx = {"csv": csv_path, "state": state, "config": config, "outcomes": outcomes,
           "done": {f"{o.layout.ranks}x{o.layout.hosts}:{o.coll}:" + ",".join(map(str, o.sizes))
                    for o in outcomes},
           "deadline": start + args.budget, "model": Model(model_path),
           "algorithms": algorithms, "later": 0, "unrefined": 0, "between": between,
           "total": per_job * len(counts) + resumed_between}  # fmt: skip
    for k, ranks in enumerate(counts):
        ctx["later"] = (per_job + between) * (len(counts) - k - 1)
        tune_job(args, extra, ranks, ctx)
    header = [
        f"Rules from `trellis tune` (docs/tune.md), {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        f"machine: {machine_words(args.mpi or 'openmpi')}",
        "command: trellis tune " + " ".join(sys.argv[2:]),
        f"model: {model_path}; {ctx['model'].calls} simulations",
        *summary_lines(ctx["outcomes"], args, time.monotonic() - start, ctx["unrefined"]),
        (
            "Each rule: the sizes it was measured at, the winner's median block (us), the "
            "built-in choice and mpi as ratios to the winner with 95% intervals."
        ),
    ]
    out.write_text(tune_rules.rules_file(ctx["outcomes"], header))
    plot(ctx["outcomes"], out.with_suffix(out.suffix + ".png"))
    return table(ctx["outcomes"]) + "\n".join(header[4:-1]) + f"\nwrote {out}, {csv_path}\n"


def summary_lines(outcomes: list[Outcome], args: argparse.Namespace, seconds: float,
                  unrefined: int = 0) -> list[str]:  # fmt: skip
    noise = sorted(o.noise for o in outcomes if math.isfinite(o.noise))
    firsts = sum(1 for o in outcomes if o.model_rank == 1)
    ranked = sum(1 for o in outcomes if o.model_rank is not None)
    lines = [f"{len(outcomes)} points in {seconds:.0f} s; noise floor (a candidate's "
             "block-to-block spread, median over points): "
             + (f"{100 * noise[len(noise) // 2]:.1f}% (max {100 * noise[-1]:.1f}%)"
                if noise else "-")]  # fmt: skip
    lines.append(f"the model's first choice won {firsts} of the {ranked} points a "
                 "model candidate won; mpi or the built-in choice won "
                 f"{len(outcomes) - ranked}")  # fmt: skip
    if args.refine:
        mids = [o for o in outcomes if tune_refine.is_between(o.coll, o.sizes[0], args.sizes)]
        lines.append(f"{len(mids)} size{'s' * (len(mids) != 1)} between measured where the "
                     "winner changed"
                     + (": " + ", ".join(f"{o.coll} {tune_rules.size_words(o.sizes[0])}"
                                         for o in mids) if mids else "")
                     + (f"; {unrefined} more not measured: the budget was spent"
                        if unrefined else ""))  # fmt: skip
    if args.exhaustive:
        held = sum(1 for o in outcomes if o.model_top)
        lines.append(f"exhaustive: the model's top {args.top} held the measured winner at "
                     f"{held} of {len(outcomes)} points")  # fmt: skip
        gaps = sorted(o.model_gap for o in outcomes if o.model_gap is not None)
        near = sum(1 for g in gaps if g <= PRUNED_NEAR)
        if gaps:
            lines.append(f"exhaustive: the best the pruned search measures (the model's top "
                         f"{args.top}, built-in, mpi) within {100 * (PRUNED_NEAR - 1):.0f}% "
                         f"of the winner at {near} of {len(gaps)} points; worst "
                         f"{100 * (gaps[-1] - 1):.1f}% slower")  # fmt: skip
    return lines


def table(outcomes: list[Outcome]) -> str:
    lines = [(f"{'collective':<21} {'size':>8} {'winner':<44} {'us':>9} {'built-in':>9} "
              f"{'mpi':>7} {'rounds':>6}")]  # fmt: skip
    for o in outcomes:
        b, m = o.of("built-in"), o.of("mpi")
        size = "-" if o.coll == "barrier" else tune_rules.size_words(o.sizes[0]) + \
            ("..." if len(o.sizes) > 1 else "")  # fmt: skip
        w = o.of(o.winner)
        lines.append(f"{o.coll:<21} {size:>8} {o.winner[:44]:<44} "
                     f"{w.median_us if w else math.nan:>9.1f} "
                     f"{b.ratio if b else math.nan:>8.2f}x {m.ratio if m else math.nan:>6.2f}x "
                     f"{o.rounds:>6}")  # fmt: skip
    return "\n".join(lines) + "\n"


def plot(outcomes: list[Outcome], path: Path) -> None:
    """Per collective: the speed-up of the winner over mpi and over the built-in choice by
    size, the winner named at each size."""
    try:
        import matplotlib  # noqa: PLC0415 -- only for the picture

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
    except ModuleNotFoundError:
        progress("trellis tune: matplotlib is not installed: no plot")
        return
    by_coll: dict[str, list[Outcome]] = {}
    for o in outcomes:
        by_coll.setdefault(f"{o.coll} ({o.layout.ranks} ranks)", []).append(o)
    fig, axes = plt.subplots(len(by_coll), 1, figsize=(9, 2.6 * len(by_coll)), squeeze=False)
    for ax, (name, group) in zip(axes[:, 0], by_coll.items(), strict=True):
        xs = [max(o.nbytes, 1) for o in group]
        for label in ("mpi", "built-in"):
            ys = [o.of(label).ratio if o.of(label) else math.nan for o in group]
            ax.plot(xs, ys, marker="o", label=f"over {label}")
        for x, o in zip(xs, group, strict=True):
            ax.annotate(o.winner.split()[0], (x, 1.0), fontsize=7, rotation=30)
        ax.set_xscale("log", base=2)
        ax.axhline(1.0, color="grey", lw=0.5)
        ax.set_title(name, fontsize=9)
        ax.set_ylabel("speed-up")
        ax.legend(fontsize=7)
    axes[-1, 0].set_xlabel("bytes")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
