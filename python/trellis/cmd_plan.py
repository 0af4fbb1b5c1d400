"""`trellis plan`: trees, scripts and rules for a cluster, from seed 000's named schemes.

    trellis plan --hosts 4 --ranks-per-host 4 --scheme hier --out plans/

writes plans/hier.tree (the trees, docs/trees.md), plans/hier.script (the same as seed
000's per-rank scripts), plans/hier.rules (rules naming the tree file, usable as
TRELLIS_RULES), plans/layout (the cluster as TRELLIS_TOPOLOGY), and for the
hierarchical schemes plans/hier-hier.rules (the same scheme with the `hier` algorithm,
which needs the layout). It prints what it wrote and each tree's three factors."""

import argparse
from pathlib import Path

from trellis import trees
from trellis.native import TrellisError

SCHEMES = ("lam", "linear", "hier", "hier-split", "knomial-hier")
MIN_RADIX = 2
REDUCE_BCAST_LINEAR = "reduce_bcast(reduce=linear,bcast=linear)"


def counts(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a count or counts such as 4,3,2: {text}"
        ) from None
    if min(values) < 1:
        raise argparse.ArgumentTypeError(f"every host needs at least one rank: {text}")
    return values


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "plan",
        help="write trees, scripts and rules for a cluster from a named scheme",
        description="Write the trees of a named scheme for a cluster of hosts (seed 000's "
        "configurations): a tree file, the same trees as per-rank scripts, rules that use "
        "them, and the cluster's layout for TRELLIS_TOPOLOGY. Rank 0 is the root.",
    )
    parser.add_argument("--hosts", type=int, required=True, metavar="H")
    parser.add_argument(
        "--ranks-per-host",
        type=counts,
        required=True,
        metavar="K[,K...]",
        help="ranks on every host, or one count per host (irregular clusters)",
    )
    parser.add_argument("--sockets-per-host", type=int, default=0, metavar="S")
    parser.add_argument("--placement", default="block", choices=["block", "round-robin"])
    parser.add_argument(
        "--scheme",
        required=True,
        choices=SCHEMES,
        help="lam: LAM-MPI 6.5's trees (linear up to 4 ranks); linear: every rank to rank 0; "
        "hier: a local reduction per host, host leaders to rank 0 (seed 000's scheme 1); "
        "hier-split: groups of --group ranks within a host, each straight to rank 0 (seed "
        "000's best 8-way configuration); knomial-hier: k-nomial trees of --radix within "
        "hosts and among host leaders",
    )
    parser.add_argument("--group", type=int, default=4, metavar="G", help="hier-split (4)")
    parser.add_argument("--radix", type=int, default=4, metavar="R", help="knomial-hier (4)")
    parser.add_argument("--out", type=Path, default=Path(), metavar="DIR")
    parser.add_argument("--name", help="file names' stem (default: the scheme)")
    parser.set_defaults(func=run)


def hier_rules(scheme: str, group: int, radix: int) -> str:
    """The scheme in the rules language's hier algorithm (docs/rules.md)."""
    if scheme == "hier":
        levels, low, world_ar, world = "host,world", "host=linear", REDUCE_BCAST_LINEAR, "linear"
    elif scheme == "hier-split":
        levels, low = f"group:{group},world", "group=linear"
        world_ar, world = REDUCE_BCAST_LINEAR, "linear"
    else:
        levels, low = "host,world", f"host=knomial(radix={radix})"
        world_ar = world = f"knomial(radix={radix})"
    return (
        f"allreduce hier levels={levels} {low} world={world_ar}\n"
        f"reduce    hier levels={levels} {low} world={world}\n"
        f"bcast     hier levels={levels} {low} world={world}\n"
    )


def run(args: argparse.Namespace) -> str:
    per_host = args.ranks_per_host
    if len(per_host) == 1:
        per_host = per_host * args.hosts
    if args.hosts < 1 or len(per_host) != args.hosts:
        raise TrellisError(
            f"trellis plan: --ranks-per-host gives {len(per_host)} counts for {args.hosts} hosts", 2
        )
    if args.group < 1 or args.radix < MIN_RADIX or args.sockets_per_host < 0:
        raise TrellisError("trellis plan: --group must be at least 1 and --radix at least 2", 2)
    cluster = trees.Cluster(per_host, args.placement, args.sockets_per_host)
    reduce, bcast = trees.scheme_trees(args.scheme, cluster, args.group, args.radix)
    name = args.name or args.scheme
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    counts_text = ",".join(map(str, per_host))
    made = " ".join(
        ["trellis plan", f"--hosts {args.hosts}", f"--ranks-per-host {counts_text}",
         f"--placement {args.placement}", f"--scheme {args.scheme}"]
    )  # fmt: skip
    written = {
        f"{name}.tree": trees.file_text("tree", reduce, bcast, made),
        f"{name}.script": trees.file_text("script", reduce, bcast, made),
        f"{name}.rules": f"# {made}\n"
        + "".join(f"{c:<9} tree file={name}.tree\n" for c in ("allreduce", "reduce", "bcast")),
        "layout": f"# {made}\n{cluster.layout_text()}",
    }
    if args.scheme in {"hier", "hier-split", "knomial-hier"}:
        written[f"{name}-hier.rules"] = (
            f"# {made}: the same with the hier algorithm; needs TRELLIS_TOPOLOGY=layout\n"
            + hier_rules(args.scheme, args.group, args.radix)
        )
    report = [
        f"{cluster.size} ranks on {args.hosts} hosts ({args.placement}), scheme {args.scheme}"
    ]
    for file, text in written.items():
        (out / file).write_text(text)
        report.append(f"wrote {out / file}")
    for direction, tree in (("reduce", reduce), ("bcast", bcast)):
        report.append(f"{direction}: {trees.factors(tree, cluster.host_of).text()}")
    return "\n".join(report) + "\n"
