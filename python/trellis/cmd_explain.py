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
        "TRELLIS_RULES as in a run, then from the built-in rules. --remote-ranks M explains a "
        "call on an intercommunicator of two groups (N and M ranks). --builtin-rules prints the "
        "built-in rules, numbered as explain and verbose mode cite them (built-in:LINE).",
    )
    parser.add_argument(
        "collective",
        nargs="?",
        help="bcast, reduce, allreduce, barrier, gather, gatherv, scatter, scatterv, "
        "allgather, allgatherv, alltoall, alltoallv, alltoallw, reduce_scatter, "
        "reduce_scatter_block, scan, exscan, or a neighbourhood collective (with --neighbors): "
        "neighbor_allgather, neighbor_allgatherv, neighbor_alltoall, neighbor_alltoallv or "
        "neighbor_alltoallw",
    )
    parser.add_argument(
        "--ranks",
        type=int,
        metavar="N",
        help="communicator size; with --remote-ranks, the size of an intercommunicator's "
        "first group (the root's)",
    )
    parser.add_argument(
        "--remote-ranks",
        type=int,
        metavar="M",
        help="the call is on an intercommunicator whose other group has M ranks: the "
        "schedules' ranks N..N+M-1, after the first group's 0..N-1 (no scan or exscan there)",
    )
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
        "scatter, scatterv; on an intercommunicator, a rank of the first group",
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
        "--nonblocking",
        action="store_true",
        help="the call is non-blocking or persistent (MPI_Iallreduce, MPI_Allreduce_init): "
        "the rules' nonblocking= filter sees it",
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
    parser.add_argument(
        "--neighbors",
        metavar="SHAPE|FILE",
        help="a neighbor_* collective's graph: a Cartesian shape, dimensions joined by x, p "
        "for periodic ('4px4p', '2x2x4p'), or a file of edges, one 'SOURCE DEST' a line; "
        "default: a periodic ring of --ranks",
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
    remote_ranks: int | None = None,
    nbytes: int | None = None,
    root: int | None = None,
    elem_size: int | None = None,
    noncommutative: bool = False,
    nonblocking: bool = False,
    rules: str | None = None,
    topology: str | None = None,
    neighbors: str | None = None,
    rank: int | None = None,
    form: str | None = None,
) -> str:
    """The explanation as `trellis-info explain` prints it; form is None (text), "steps",
    "goal" or "json"."""
    argv = ["explain", collective, "--ranks", str(ranks)]
    for option, value in (
        ("--remote-ranks", remote_ranks),
        ("--bytes", nbytes),
        ("--root", root),
        ("--elem-size", elem_size),
        ("--rules", rules),
        ("--topology", topology),
        ("--neighbors", neighbors),
        ("--rank", rank),
    ):
        if value is not None:
            argv += [option, str(value)]
    if noncommutative:
        argv.append("--noncommutative")
    if nonblocking:
        argv.append("--nonblocking")
    if form is not None:
        argv.append(f"--{form}")
    return native.info(*argv)


def builtin_rules() -> str:
    """The built-in rules, each line numbered as `tuned:LINE` or `built-in:LINE` cites it:
    the tuned ones (src/select/tuned.rules) first, as they are tried."""
    out = []
    for source, command in (("tuned", "tuned-rules"), ("built-in", "builtin-rules")):
        out.append(f"==== {source}:LINE ====")
        lines = native.info(command).splitlines()
        out += [f"{n:3d}  {line}" for n, line in enumerate(lines, start=1)]
    return "\n".join(out)


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
        remote_ranks=args.remote_ranks,
        nbytes=args.bytes,
        root=args.root,
        elem_size=args.elem_size,
        noncommutative=args.noncommutative,
        nonblocking=args.nonblocking,
        rules=args.rules,
        topology=args.topology,
        neighbors=args.neighbors,
        rank=args.rank,
        form=form,
    )
