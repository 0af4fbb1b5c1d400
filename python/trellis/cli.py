"""The `trellis` command: one module per subcommand (cmd_*.py).

Each subcommand's function returns data: text that main prints, or an exit status.
Errors meant for the user are TrellisError: main prints them and exits with their status.
"""

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from trellis import (
    __version__,
    cmd_algorithms,
    cmd_bench,
    cmd_explain,
    cmd_layout,
    cmd_plan,
    cmd_run,
    cmd_show,
    cmd_testbed,
    cmd_tune,
)
from trellis.native import TrellisError

# The analysis commands need numpy (and matplotlib for pictures), which `trellis run` and
# the rest do not: without them those commands say what is missing, the others work.
ANALYSIS_COMMANDS = ("calibrate", "simulate", "trace")


def _add_analysis_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]",
                         name: str) -> None:  # fmt: skip
    try:
        module = importlib.import_module(f"trellis.cmd_{name}")
    except ModuleNotFoundError as err:
        missing = err.name or "a Python package"

        def unavailable(_args: argparse.Namespace) -> int:
            raise TrellisError(f"trellis {name} needs the Python package {missing!r}, which "
                               f"is not installed (pip install {missing})")  # fmt: skip

        sub = subparsers.add_parser(name, help=f"(needs {missing}, not installed)",
                                    add_help=False)  # fmt: skip
        sub.set_defaults(func=unavailable)
        sub.add_argument("rest", nargs=argparse.REMAINDER)
        return
    module.add_parser(subparsers)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="trellis",
        description="Trellis: run-time configurable collectives for MPI programs.",
    )
    parser.add_argument("--version", action="version", version=f"trellis {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="command")
    cmd_algorithms.add_parser(subparsers)
    cmd_bench.add_parser(subparsers)
    cmd_explain.add_parser(subparsers)
    cmd_layout.add_parser(subparsers)
    cmd_plan.add_parser(subparsers)
    cmd_show.add_parser(subparsers)
    cmd_testbed.add_parser(subparsers)
    cmd_tune.add_parser(subparsers)
    for name in ANALYSIS_COMMANDS:
        _add_analysis_parser(subparsers, name)
    # `run` passes mpirun's options through untouched, which argparse cannot do: it is
    # listed here for --help, and its command line is split by cmd_run itself.
    subparsers.add_parser(
        "run",
        help="run an MPI program with Trellis underneath (trellis run --help)",
        add_help=False,
    )
    return parser


def dispatch(argv: Sequence[str]) -> int | str:
    if argv and argv[0] == "run":
        return cmd_run.run(argv[1:])
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if getattr(args, "passthrough", False):  # `tune`: what it does not know goes to mpirun
        return args.func(args, extra)
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    result: int | str = args.func(args)
    return result


def main(args: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if args is None else args)
    try:
        result = dispatch(argv)
        if isinstance(result, int):
            return result
        sys.stdout.write(result)
        sys.stdout.flush()
    except TrellisError as err:
        sys.stderr.write(f"{err}\n")
        return err.status
    except BrokenPipeError:  # `trellis explain ... | head`: stop quietly
        # What the Python documentation advises: point stdout at /dev/null so the
        # interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return 0
