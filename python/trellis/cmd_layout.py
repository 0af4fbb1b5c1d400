"""`trellis layout`: where the ranks of a run sit (hosts, sockets), as the C library reads
a layout (docs/topology.md), through `trellis-info layout`."""

import argparse

from trellis import native


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "layout",
        help="print where the ranks of a run sit (hosts, sockets)",
        description="Print the layout a run would see: --topology (read exactly as "
        "TRELLIS_TOPOLOGY is: a layout such as 'hosts=4 ranks_per_host=4', or a layout "
        "file), else TRELLIS_TOPOLOGY, else every rank on one host. --ranks N checks that a "
        "layout holds N ranks; without a layout it is needed.",
    )
    parser.add_argument("--ranks", type=int, metavar="N", help="the run's number of ranks")
    parser.add_argument("--topology", metavar="LAYOUT", help="a layout, or a layout file")
    parser.add_argument(
        "--json", action="store_true",
        help="one JSON object: ranks, described, nhosts, host, socket, numa, hosts, text",
    )  # fmt: skip
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> str:
    argv = ["layout"]
    if args.ranks is not None:
        argv += ["--ranks", str(args.ranks)]
    if args.topology is not None:
        argv += ["--topology", args.topology]
    if args.json:
        argv.append("--json")
    return native.info(*argv)
