"""`trellis testbed up|down|status`: an emulated cluster of hosts on this machine
(network namespaces on a private bridge; python/trellis/testbed.py, docs/testbed.md).
Programs run across it with `trellis run --testbed`."""

import argparse
from pathlib import Path

from trellis import testbed


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "testbed",
        help="bring an emulated cluster up or down (root; docs/testbed.md)",
        description="An emulated cluster on this machine: one network namespace per host, "
        "with its own hostname, on a private bridge, optionally with a bandwidth cap and a "
        "delay per host link. `trellis run --testbed` runs programs across it. Needs root.",
    )
    parser.add_argument("action", choices=["up", "down", "status"])
    parser.add_argument("--hosts", type=int, default=2, metavar="N", help="hosts (2)")
    parser.add_argument(
        "--slots", type=int, default=1, metavar="K",
        help="ranks per host mpirun places before the next host (1); -np N*K fills them in "
        "blocks, --map-by node deals round-robin",
    )  # fmt: skip
    parser.add_argument("--bandwidth", metavar="RATE", help="cap each host link, e.g. 100mbit")
    parser.add_argument(
        "--delay", metavar="TIME",
        help="add TIME to every message between two hosts, one way (a round trip gains twice "
        "TIME), e.g. 50us, 1ms, 0.2ms; 0 for none. A netem qdisc on each host link, where "
        "frames enter the host; where the kernel has no netem, a netfilter queue held by "
        "trellis-delayq (needs iptables)",
    )  # fmt: skip
    parser.add_argument(
        "--cores", choices=testbed.CORES, default="shared",
        help="shared (default): every host's processes run on all of this machine's CPUs, "
        "where the kernel puts them; split: each host's on its own share of them (host i on "
        "the i-th of every N CPUs for N hosts, or on CPU i mod the CPUs where hosts "
        "outnumber them), as a real host's ranks run on its own cores",
    )  # fmt: skip
    parser.add_argument("--subnet", default=testbed.DEFAULT_SUBNET, help="private subnet to use")
    parser.add_argument(
        "--dir", type=Path, default=testbed.DEFAULT_DIR,
        help=f"where the testbed keeps its state, hostfile and agent ({testbed.DEFAULT_DIR})",
    )  # fmt: skip
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> str:
    if args.action == "up":
        return testbed.up(args.dir, args.hosts, args.slots, args.bandwidth, args.subnet,
                          delay=args.delay, cores=args.cores)  # fmt: skip
    if args.action == "down":
        return testbed.down(args.dir)
    return testbed.status(args.dir)
