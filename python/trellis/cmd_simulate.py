"""`trellis simulate`: predict a collective's time from the schedules Trellis would run,
under a LogGP model of the machine (docs/simulate.md).

    trellis simulate allreduce --ranks 16 --bytes 64K --topology "hosts=4 ranks_per_host=4"
    trellis simulate allreduce --ranks 48,96,192 --bytes 4,64K,1M --ranks-per-host 48 \\
        --sockets-per-host 2 --rules "allreduce hier levels=socket,host,world" --sweep

The call is chosen and built exactly as `trellis explain` does (rules, layout, the same
builders), and simulated by `trellis-info simulate` (src/sim); the breakdown comes from
timeline.py, the analysis traced runs share."""

import argparse
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from trellis import bench_matrix, cmd_bench, native, timeline
from trellis.native import TrellisError

MODELS = Path(__file__).resolve().parent / "models"
DEFAULT_MODEL = MODELS / "default.model"


def model_file(text: str) -> Path:
    """--model: a file, or the name of a model shipped in models/ (default, loggopsim)
    where no file of that name is at hand."""
    path = Path(text)
    shipped = MODELS / f"{text}.model"
    if not path.exists() and "/" not in text and shipped.is_file():
        return shipped
    return path


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="predict a collective's time and where it goes, under a model of the machine",
        description="Simulate one collective call (or a sweep of them) as Trellis would run "
        "it: the rules choose the algorithm and its schedules are built as in a run, then "
        "every rank's schedule runs under a LogGP model per link class (same socket, same "
        "host, across hosts) with the cost of reductions and copies (docs/simulate.md). "
        "Prints the predicted time, the time in each phase on the critical path, each rank's "
        "time transferring, waiting for late peers, reducing and copying, and the critical "
        "path itself. With --sweep, one line per configuration, rank count and size.",
    )
    parser.add_argument("collective", help="bcast, reduce, allreduce, ... as explain takes")
    parser.add_argument("--ranks", type=cmd_bench.counts, required=True, metavar="N",
                        help="communicator size (with --sweep: a list, 2,4,8 or 2-16)")  # fmt: skip
    parser.add_argument(
        "--bytes", type=cmd_bench.sizes, metavar="B",
        help="bytes as explain takes them (with --sweep: a list, 4,64K,1M)",
    )  # fmt: skip
    parser.add_argument("--root", type=int, metavar="R", help="root of a rooted collective")
    parser.add_argument("--elem-size", type=int, metavar="S", help="bytes per element (1)")
    parser.add_argument("--noncommutative", action="store_true",
                        help="the reduction operation is not commutative")  # fmt: skip
    parser.add_argument("--rules", metavar="RULES", help="rules inline or a file (TRELLIS_RULES)")
    parser.add_argument("--topology", metavar="LAYOUT",
                        help="where ranks sit (TRELLIS_TOPOLOGY, docs/topology.md)")  # fmt: skip
    parser.add_argument("--neighbors", metavar="SHAPE|FILE",
                        help="a neighbor_* collective's graph: a Cartesian shape ('4px4p', "
                        "p for periodic) or a file of 'SOURCE DEST' edges")  # fmt: skip
    parser.add_argument("--ranks-per-host", type=int, metavar="K",
                        help="instead of --topology: hosts of K ranks each, placed by block "
                        "(for sweeps over rank counts)")  # fmt: skip
    parser.add_argument("--sockets-per-host", type=int, metavar="S",
                        help="with --ranks-per-host: sockets per host")  # fmt: skip
    parser.add_argument("--config", action="append", default=[], metavar="NAME:SETTINGS",
                        help="a configuration to compare (repeat): NAME:rules=RULES;"
                        "topology=LAYOUT, as trellis bench takes them")  # fmt: skip
    parser.add_argument("--model", type=model_file, default=DEFAULT_MODEL, metavar="FILE",
                        help="the model file, or a shipped model's name: default "
                        "(illustrative, the default) or loggopsim (LogGOPSim's LogGP and "
                        "rules); `trellis calibrate` measures one")  # fmt: skip
    parser.add_argument("--delay", action="append", default=[], metavar="R=NS",
                        help="rank R enters the call NS nanoseconds late (repeat)")  # fmt: skip
    parser.add_argument("--sweep", action="store_true",
                        help="one line per configuration, rank count and size")  # fmt: skip
    parser.add_argument("--records", type=Path, metavar="FILE",
                        help="write the timeline as JSON lines (docs/trace-format.md)")  # fmt: skip
    parser.add_argument("--json", action="store_true", help="the results as JSON")
    parser.add_argument("--path-rows", type=int, default=24, metavar="N",
                        help="rows of the critical path to print (24)")  # fmt: skip
    parser.set_defaults(func=run)


@dataclass
class Point:
    config: str
    rules: str | None
    topology: str | None
    ranks: int
    nbytes: int | None


# trellis-info simulate's exit status when the rules choose the MPI library's own
# collective (tools/info_common.h: EXIT_NO_SCHEDULE).
NO_SCHEDULE = 3
LIBRARYS_OWN = "the MPI library's own: no schedule to simulate"


@dataclass
class Result:
    point: Point
    meta: dict
    report: timeline.CallReport | None  # None: the MPI library's own collective (a sweep's)


def layout_for(args: argparse.Namespace, ranks: int) -> str | None:
    if args.ranks_per_host is None:
        return args.topology
    k = args.ranks_per_host
    if k < 1 or ranks % k:
        raise TrellisError(f"trellis simulate: {ranks} ranks do not fill hosts of {k}", 2)
    text = f"hosts={ranks // k} ranks_per_host={k}"
    if args.sockets_per_host:
        text += f" sockets_per_host={args.sockets_per_host}"
    return text


def points(args: argparse.Namespace) -> list[Point]:
    if args.topology and args.ranks_per_host:
        raise TrellisError("trellis simulate: use --topology or --ranks-per-host, not both", 2)
    configs = [bench_matrix.parse_config(c, command="trellis simulate") for c in args.config]
    if any(c.kind != "trellis" for c in configs):
        raise TrellisError("trellis simulate: ompi and han have no schedule to simulate; "
                           "give NAME:rules=...", 2)  # fmt: skip
    sizes = args.bytes or [None]
    out = []
    for config in configs or [None]:
        rules = config.env.get("TRELLIS_RULES") if config else args.rules
        for ranks in args.ranks:
            topology = (config.env.get("TRELLIS_TOPOLOGY") if config else None) or layout_for(
                args, ranks
            )
            for nbytes in sizes:
                out.append(Point(config.name if config else "", rules, topology, ranks, nbytes))
    if not args.sweep and len(out) > 1:
        raise TrellisError("trellis simulate: several rank counts, sizes or configurations: "
                           "add --sweep", 2)  # fmt: skip
    return out


def simulate(args: argparse.Namespace, p: Point, work: Path) -> Result:
    argv = ["simulate", args.collective, "--ranks", str(p.ranks), "--model", str(args.model),
            "--out", str(work)]  # fmt: skip
    for option, value in (("--bytes", p.nbytes), ("--root", args.root),
                          ("--elem-size", args.elem_size), ("--rules", p.rules),
                          ("--topology", p.topology),
                          ("--neighbors", args.neighbors)):  # fmt: skip
        if value is not None:
            argv += [option, str(value)]
    if args.noncommutative:
        argv.append("--noncommutative")
    for d in args.delay:
        argv += ["--delay", d]
    try:
        native.info(*argv)
    except TrellisError as err:
        if err.status == NO_SCHEDULE and args.sweep:  # a row of the sweep, and on
            meta = {"collective": args.collective, "ranks": p.ranks, "bytes": p.nbytes,
                    "algorithm": "mpi", "predicted_ns": None}  # fmt: skip
            return Result(p, meta, None)
        if err.status == NO_SCHEDULE:
            err = TrellisError(str(err), 1)
        if not p.config:
            raise err from None
        raise bench_matrix.config_error(err, p.config, "trellis simulate") from None
    tl, meta = timeline.load_simulation(work)
    if args.records:
        timeline.write_records(tl, args.records)
    return Result(p, meta, timeline.analyze_call(tl, 0))


def model_name(path: Path) -> str:
    """The model file as printed: the shipped default by its place in the package."""
    if path.resolve() == DEFAULT_MODEL.resolve():
        return "trellis/models/default.model (the shipped default: illustrative, not measured)"
    return str(path)


QUICK_S = 0.1  # a simulation faster than this: its time is noise, not said


def took(seconds: float) -> str:
    """How long the simulation took, said where it matters (--json has it exactly)."""
    return f"under {QUICK_S} s" if seconds < QUICK_S else f"{seconds:.2f} s"


def describe(r: Result) -> str:
    m = r.meta
    rule = m["rule"]
    chosen = f"{rule['source']}:{rule['line']}: {rule['text']}" if rule else "-"
    params = " ".join(f"{p['name']}={p['value']}" for p in m["params"] if not p["default"])
    return (
        f"{m['collective']}, {m['ranks']} ranks, {m['bytes']} bytes: {m['algorithm']}"
        f"{' ' + params if params else ''}\n"
        f"chosen by: {chosen}\n{m['layout']}\nmodel: {model_name(Path(m['model']))}\n"
        f"predicted: {timeline.us(m['predicted_ns'])} (last rank to finish: {m['last_rank']}; "
        f"{m['steps']} steps, {m['messages']} messages simulated in {took(m['seconds'])})\n"
    )  # fmt: skip


def sweep_table(results: list[Result]) -> str:
    head = (f"{'config':<12} {'ranks':>8} {'bytes':>9} {'algorithm':<18} {'predicted':>11}  "
            "critical path by phase")  # fmt: skip
    lines = [head]
    for r in results:
        if r.report is None:
            lines.append(f"{r.point.config or '-':<12} {r.meta['ranks']:>8} "
                         f"{r.meta['bytes'] if r.meta['bytes'] is not None else '-':>9} "
                         f"{'mpi':<18} {'-':>11}  {LIBRARYS_OWN}")  # fmt: skip
            continue
        total = r.report.total or 1.0
        phases = " | ".join(f"{timeline.phase_label(name, r.meta['algorithm'])} "
                            f"{100 * t / total:.0f}%"
                            for name, t in sorted(r.report.phase_on_path.items(),
                                                  key=lambda x: -x[1]) if t > 0)  # fmt: skip
        lines.append(f"{r.point.config or '-':<12} {r.meta['ranks']:>8} {r.meta['bytes']:>9} "
                     f"{r.meta['algorithm']:<18} {timeline.us(r.meta['predicted_ns']):>11}  "
                     f"{phases}")  # fmt: skip
    return "\n".join(lines) + "\n"


def as_json(r: Result) -> dict:
    rep = r.report
    if rep is None:
        return {"config": r.point.config, **r.meta, "note": LIBRARYS_OWN}
    return {
        "config": r.point.config, "collective": r.meta["collective"], "ranks": r.meta["ranks"],
        "bytes": r.meta["bytes"], "algorithm": r.meta["algorithm"], "rule": r.meta["rule"],
        "layout": r.meta["layout"], "model": r.meta["model"],
        "predicted_ns": r.meta["predicted_ns"], "steps": r.meta["steps"],
        "messages": r.meta["messages"], "seconds": r.meta["seconds"],
    } | {k: v for k, v in timeline.report_json(rep).items() if k != "total_ns"}  # fmt: skip


def run(args: argparse.Namespace) -> str:
    if not args.model.is_file():
        raise TrellisError(f"trellis simulate: no model file {args.model}", 2)
    todo = points(args)
    if args.records and len(todo) > 1:
        raise TrellisError("trellis simulate: --records takes one call, not a sweep", 2)
    results = []
    with tempfile.TemporaryDirectory(prefix="trellis-sim-") as tmp:
        for i, p in enumerate(todo):
            results.append(simulate(args, p, Path(tmp) / str(i)))
    if args.json:
        return json.dumps([as_json(r) for r in results], indent=1) + "\n"
    if args.sweep:
        return f"model: {model_name(args.model)}\n" + sweep_table(results)
    r = results[0]
    if r.report is None:  # only a sweep keeps the MPI library's own: not reached
        raise TrellisError(f"trellis simulate: {LIBRARYS_OWN}")
    return describe(r) + timeline.format_report(r.report, args.path_rows)
