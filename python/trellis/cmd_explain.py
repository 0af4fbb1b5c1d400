"""`trellis explain`: which algorithm the rules choose for one call and why, and the
schedule every rank runs (GOAL text, LogGOPSim's format), computed by the C library
through `trellis-info explain`."""

import argparse

from trellis import native


def size_argument(text: str) -> int:
    try:
        return native.parse_size(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "explain",
        help="show which algorithm runs for a call, and its schedule",
        description="Show which algorithm the rules choose for one collective call, the "
        "parameters it runs with and the rule that chose it (source:line: text), then every "
        "rank's schedule as GOAL text (LogGOPSim's format). Rules come from --rules, else from "
        "TRELLIS_RULES as in a run, then from the built-in rules. --builtin-rules prints the "
        "built-in rules, numbered as explain and verbose mode cite them (built-in:LINE).",
    )
    parser.add_argument(
        "collective",
        nargs="?",
        help="bcast, reduce, allreduce, barrier, gather, gatherv, scatter, scatterv, "
        "allgather, allgatherv, alltoall, alltoallv, alltoallw, reduce_scatter, "
        "reduce_scatter_block, scan or exscan",
    )
    parser.add_argument("--ranks", type=int, metavar="N", help="communicator size")
    parser.add_argument(
        "--builtin-rules",
        action="store_true",
        help="print the built-in rules with their line numbers, and nothing else",
    )
    parser.add_argument(
        "--bytes",
        type=size_argument,
        metavar="B",
        help="message size in bytes, with an optional K, M or G suffix, as the rules' bytes= "
        "sees it: the message; one rank's block for gather, scatter, allgather and alltoall; "
        "the average block for allgatherv; the whole vector for reduce_scatter and "
        "reduce_scatter_block (which splits it into N equal blocks); every rank's block "
        "alike for gatherv, scatterv, alltoallv and alltoallw; not for barrier",
    )
    parser.add_argument(
        "--root",
        type=int,
        metavar="R",
        help="root rank (default 0) of a rooted collective: bcast, reduce, gather, gatherv, "
        "scatter, scatterv",
    )
    parser.add_argument(
        "--elem-size",
        type=int,
        metavar="S",
        help="bytes per element of the datatype (default 1)",
    )
    parser.add_argument(
        "--noncommutative",
        action="store_true",
        help="the reduction operation is not commutative (reduce, allreduce, reduce_scatter, "
        "reduce_scatter_block, scan, exscan)",
    )
    parser.add_argument(
        "--rules",
        metavar="RULES",
        help="rules inline (';' between rules) or a rules file, as in TRELLIS_RULES",
    )
    parser.add_argument(
        "--topology",
        "--layout",
        dest="topology",
        metavar="LAYOUT",
        help="where the ranks sit, as in TRELLIS_TOPOLOGY (a layout such as 'hosts=4 "
        "ranks_per_host=4', or a layout file; docs/topology.md); default: TRELLIS_TOPOLOGY, "
        "else all ranks on one host. The rules' hosts=, ranks_per_host= and placement= filters "
        "see this layout; the output says what they saw",
    )
    parser.add_argument("--rank", type=int, metavar="R", help="only this rank's schedule")
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--steps", action="store_true", help="the steps spelled out, not GOAL")
    form.add_argument("--goal", action="store_true", help="only the GOAL file, for LogGOPSim")
    form.add_argument("--json", action="store_true", help="everything as JSON")
    parser.set_defaults(func=run)


def explain(  # noqa: PLR0913 -- one keyword per option of `trellis-info explain`
    collective: str,
    *,
    ranks: int,
    nbytes: int | None = None,
    root: int | None = None,
    elem_size: int | None = None,
    noncommutative: bool = False,
    rules: str | None = None,
    topology: str | None = None,
    rank: int | None = None,
    form: str | None = None,
) -> str:
    """The explanation as `trellis-info explain` prints it; form is None (text), "steps",
    "goal" or "json"."""
    argv = ["explain", collective, "--ranks", str(ranks)]
    for option, value in (
        ("--bytes", nbytes),
        ("--root", root),
        ("--elem-size", elem_size),
        ("--rules", rules),
        ("--topology", topology),
        ("--rank", rank),
    ):
        if value is not None:
            argv += [option, str(value)]
    if noncommutative:
        argv.append("--noncommutative")
    if form is not None:
        argv.append(f"--{form}")
    return native.info(*argv)


def builtin_rules() -> str:
    """The built-in rules, each line numbered as `built-in:LINE` cites it."""
    lines = native.info("builtin-rules").splitlines()
    return "\n".join(f"{n:3d}  {line}" for n, line in enumerate(lines, start=1))


def run(args: argparse.Namespace) -> str:
    if args.builtin_rules:
        return builtin_rules()
    if args.collective is None or args.ranks is None:
        raise native.TrellisError(
            "trellis explain: give a collective and --ranks N (or --builtin-rules)", 2
        )
    form = next((f for f in ("steps", "goal", "json") if getattr(args, f)), None)
    return explain(
        args.collective,
        ranks=args.ranks,
        nbytes=args.bytes,
        root=args.root,
        elem_size=args.elem_size,
        noncommutative=args.noncommutative,
        rules=args.rules,
        topology=args.topology,
        rank=args.rank,
        form=form,
    )
