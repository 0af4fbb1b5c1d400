"""`trellis algorithms`: the table of algorithms of the C library, as a table or JSON."""

import argparse
import json
from typing import Any

from trellis import native
from trellis.native import TrellisError

HEADINGS = ("collective", "algorithm", "needs", "parameters", "cost", "description")


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "algorithms",
        help="list the algorithms of every collective",
        description="List the algorithms Trellis has for each collective: their restrictions, "
        "parameters with defaults (as a rule writes them), alpha-beta cost and description. "
        "'mpi' is the MPI library's own collective.",
    )
    parser.add_argument("--collective", metavar="C", help="only this collective's algorithms")
    parser.add_argument("--json", action="store_true", help="the table as JSON")
    parser.set_defaults(func=run)


def algorithms(collective: str | None = None) -> list[dict[str, Any]]:
    """The algorithm table (all of it, or one collective's), as `trellis-info` gives it."""
    table: list[dict[str, Any]] = json.loads(native.info("algorithms"))
    if collective is None:
        return table
    known = sorted({a["collective"] for a in table})
    if collective not in known:
        raise TrellisError(
            f"trellis: unknown collective {collective!r} (one of {', '.join(known)})", 2
        )
    return [a for a in table if a["collective"] == collective]


def param_text(algo: dict[str, Any]) -> str:
    """The parameters with their defaults, as a rule writes them: "radix=4 segment=64K";
    one with no default (a required file) shows its kind: "file=<file>"."""
    return " ".join(
        f"{p['name']}={p['default'] if p['default'] is not None else '<' + p['kind'] + '>'}"
        for p in algo["params"]
    )


def format_table(table: list[dict[str, Any]]) -> str:
    rows = [HEADINGS] + [
        (
            a["collective"],
            a["name"],
            ",".join(a["restrictions"]) or "-",
            param_text(a) or "-",
            a["cost"],
            a["description"],
        )
        for a in table
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADINGS) - 1)]
    lines = []
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> str:
    table = algorithms(args.collective)
    if args.json:
        return json.dumps(table, indent=2) + "\n"
    return format_table(table)
