"""`trellis show`: a tree or a schedule drawn onto the hosts, with seed 000's factors.

    trellis show plans/lam.tree --out lam              # lam-reduce.svg/.png, lam-bcast...
    trellis show --rules "allreduce hier" --collective allreduce --ranks 16 \\
                 --layout "hosts=4 ranks_per_host=4" --out hier

A tree or script file is drawn per direction, ranks by depth; a schedule (whatever the
rules choose, as `trellis explain` builds it) as the messages between ranks, each arrow
with its rounds, ranks by hops from the root (one row where there is none). Both print
the children per node (maximum, and per level for trees), the depth (for a schedule:
the longest chain of messages each waiting for the one before) and the arcs that cross
hosts."""

import argparse
import json
import re
from pathlib import Path

from trellis import cmd_explain, draw, native, trees
from trellis.native import TrellisError

STEP = re.compile(r"^\s+l(\d+): (\w+)\s+(.*?)(?: after ((?:l\d+(?:, )?)+))?$")


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "show",
        help="draw a tree or a schedule mapped onto hosts (SVG and PNG)",
        description="Draw a tree or script file (each direction), or the schedule that rules "
        "choose for a call, with ranks in a box per host, an arrow from sender to receiver "
        "per pair of ranks (coloured and labelled by round for a schedule), dashed where it "
        "crosses hosts; print children per node, depth and crossing arcs (seed 000's three "
        "factors). Where ranks sit: --layout, else a file named 'layout' next to the tree "
        "file (as `trellis plan` writes), else TRELLIS_TOPOLOGY, else one host.",
    )
    parser.add_argument("file", nargs="?", type=Path, help="a tree or script file")
    parser.add_argument("--direction", choices=["reduce", "bcast"], help="only this direction")
    parser.add_argument(
        "--rules",
        help="draw the schedule these rules choose (inline or a file; '' for the built-in "
        "rules alone), and say which rule chose it",
    )
    parser.add_argument("--collective", default="allreduce", help="with --rules (allreduce)")
    parser.add_argument("--ranks", type=int, help="with --rules: communicator size")
    parser.add_argument(
        "--bytes", type=cmd_explain.size_argument, default=4, help="with --rules (4)"
    )
    parser.add_argument("--root", type=int, help="with --rules: root of a rooted collective")
    parser.add_argument(
        "--layout",
        "--topology",
        dest="layout",
        help="TRELLIS_TOPOLOGY text or a layout file; with --rules the rules' layout filters "
        "(hosts=, ranks_per_host=, placement=) see it too",
    )
    parser.add_argument("--out", required=True, metavar="PREFIX", help="PREFIX.svg and PREFIX.png")
    parser.set_defaults(func=run)


def host_of(ranks: int, layout: str | None) -> list[int]:
    argv = ["layout", "--json", "--ranks", str(ranks)]
    argv += ["--topology", layout] if layout else []
    return json.loads(native.info(*argv))["host"]


def write(pic: draw.Picture, prefix: str) -> list[str]:
    Path(prefix).parent.mkdir(parents=True, exist_ok=True)
    Path(f"{prefix}.svg").write_text(draw.svg(pic))
    width, height = draw.png(pic, Path(f"{prefix}.png"))
    return [f"wrote {prefix}.svg and {prefix}.png ({width}x{height})"]


def show_file(args: argparse.Namespace) -> str:
    path: Path = args.file
    if not path.is_file():
        raise TrellisError(f"trellis show: no such file: {path}", 2)
    sections = trees.read_file(path)
    layout = args.layout
    if layout is None and (path.parent / "layout").is_file():
        layout = str(path.parent / "layout")
    any_tree = next(iter(sections.values()))
    hosts = host_of(any_tree.size, layout)
    out = []
    wanted = [args.direction] if args.direction else sorted(sections, reverse=True)
    for direction in wanted:
        if direction not in sections:
            raise TrellisError(f"trellis show: {path} has no {direction} tree", 2)
        tree = sections[direction]
        edges = [(r, p) for r, p in enumerate(tree.parent) if p is not None]
        pic = draw.Picture(
            f"{path.name}: {direction}",
            hosts,
            [tree.depth_of(r) for r in range(tree.size)],
            # Data goes up a reduce tree, down a bcast tree.
            [draw.Arc(r, p) if direction == "reduce" else draw.Arc(p, r) for r, p in edges],
        )
        prefix = args.out if len(wanted) == 1 else f"{args.out}-{direction}"
        out += write(pic, prefix)
        out.append(f"{direction}: {trees.factors(tree, hosts).text()}")
    return "\n".join(out) + "\n"


def parse_steps(text: str) -> list[dict]:
    steps = []
    for line in text.splitlines()[1:]:
        m = STEP.match(line)
        if not m:
            continue
        step = {
            "kind": m.group(2),
            "deps": [int(d) - 1 for d in re.findall(r"l(\d+)", m.group(4) or "")],
        }
        peer = re.search(r" (?:to|from) (\d+) .*tag (\d+)", m.group(3))
        if peer:
            step["peer"], step["tag"] = int(peer.group(1)), int(peer.group(2))
        steps.append(step)
    return steps


def message_rounds(schedules: list[list[dict]]) -> dict[tuple[int, int], int]:
    """Each message's round, keyed by its send step (rank, step): the messages on the
    longest chain that ends with it, each sent only after the one before arrived."""
    sends = {}
    for rank, steps in enumerate(schedules):
        for i, s in enumerate(steps):
            if s["kind"] == "send":
                sends[(rank, s["peer"], s["tag"])] = i
    memo: dict[tuple[int, int], int] = {}

    def depth(rank: int, i: int) -> int:  # messages on the longest chain ending here
        if (rank, i) in memo:
            return memo[(rank, i)]
        s = schedules[rank][i]
        d = max((depth(rank, j) for j in s["deps"]), default=0)
        if s["kind"] == "recv":
            d = max(d, 1 + depth(s["peer"], sends[(s["peer"], rank, s["tag"])]))
        memo[(rank, i)] = d
        return d

    return {(rank, i): 1 + depth(rank, i) for rank, steps in enumerate(schedules)
            for i, s in enumerate(steps) if s["kind"] == "send"}  # fmt: skip


def hops_from(root: int, size: int, arcs: list[draw.Arc]) -> list[int]:
    """Each rank's row: its hops from the root over the arcs, either way (a broadcast's
    root sends, a reduction's receives); the root on top."""
    near: dict[int, set[int]] = {r: set() for r in range(size)}
    for a in arcs:
        near[a.src].add(a.dst)
        near[a.dst].add(a.src)
    row = {root: 0}
    frontier = [root]
    while frontier:
        frontier = [n for r in frontier for n in sorted(near[r]) if n not in row]
        for n in frontier:
            row.setdefault(n, row[next(r for r in near[n] if r in row)] + 1)
    deepest = max(row.values())
    return [row.get(r, deepest + 1) for r in range(size)]


# Which way a rooted collective's data goes: children are the ranks a rank sends to
# (out of the root) or receives from (into it).
OUT_OF_ROOT = frozenset({"bcast", "scatter", "scatterv"})
INTO_ROOT = frozenset({"reduce", "gather", "gatherv"})


def fan_text(collective: str, arcs: list[draw.Arc], size: int) -> str:
    sends_to = max((sum(1 for a in arcs if a.src == r) for r in range(size)), default=0)
    receives_from = max((sum(1 for a in arcs if a.dst == r) for r in range(size)), default=0)
    if collective in OUT_OF_ROOT:
        return f"children per node: max {sends_to} (ranks one rank sends to)"
    if collective in INTO_ROOT:
        return f"children per node: max {receives_from} (ranks one rank receives from)"
    return (f"children per node: max {receives_from} (ranks one rank receives from; "
            f"sends to: max {sends_to})")  # fmt: skip


def show_schedule(args: argparse.Namespace) -> str:
    if args.ranks is None:
        raise TrellisError("trellis show: --rules needs --ranks N", 2)
    data = json.loads(
        cmd_explain.explain(
            args.collective,
            ranks=args.ranks,
            nbytes=None if args.collective == "barrier" else args.bytes,
            root=args.root,
            rules=args.rules,
            topology=args.layout,
            form="json",
        )
    )
    if not data["schedules"]:
        raise TrellisError(
            f"trellis show: the MPI library's own {args.collective} runs: no schedule", 2
        )
    schedules = [parse_steps(s["steps"]) for s in data["schedules"]]
    hosts = host_of(args.ranks, args.layout)
    rounds: dict[tuple[int, int], list[int]] = {}
    for (rank, i), r in message_rounds(schedules).items():
        rounds.setdefault((rank, schedules[rank][i]["peer"]), []).append(r)
    arcs = [draw.Arc(src, dst, tuple(sorted(rs))) for (src, dst), rs in sorted(rounds.items())]
    root = data["root"]
    rows = hops_from(root, args.ranks, arcs) if root is not None else [0] * args.ranks
    pic = draw.Picture(f"{args.collective} {data['algorithm']} on {args.ranks} ranks", hosts,
                       rows, arcs)  # fmt: skip
    crossing = sum(1 for a in arcs if hosts[a.src] != hosts[a.dst])
    messages = sum(len(a.rounds) for a in arcs)
    out = write(pic, args.out)
    out.append(
        f"{data['algorithm']}: {fan_text(args.collective, arcs, args.ranks)}; depth: "
        f"{pic.rounds} messages; arcs crossing hosts: {crossing} of {len(arcs)} "
        f"({messages} messages)"
    )
    out += chosen_by(data)
    return "\n".join(out) + "\n"


def chosen_by(data: dict) -> list[str]:
    """Which rule chose the algorithm, what the layout filters saw, and any rule passed
    over on the way (as `trellis explain` says)."""
    rule = data["rule"]
    seen = f"hosts={data['hosts']} ranks_per_host={data['ranks_per_host']}"
    lines = [
        f"chosen by: {rule['source']}:{rule['line']}: {rule['text']}",
        f"the rules saw: {seen} placement={data['placement']}",
    ]
    if data["rejected"]:
        r = data["rejected"]
        lines.append(f"passed over: {r['source']}:{r['line']}: {r['text']}: {r['why']}")
    return lines


def run(args: argparse.Namespace) -> str:
    if (args.file is None) == (args.rules is None):
        raise TrellisError("trellis show: give a tree or script file, or --rules (not both)", 2)
    return show_file(args) if args.file else show_schedule(args)
