"""`trellis algorithms`: the table of algorithms of the C library, as a table or JSON.

By default each algorithm is a line of its collective, name, restrictions and parameters,
then its cost and description, indented, every line wrapped to the terminal's width;
`--wide` prints one line per algorithm, however long."""

import argparse
import json
import shutil
import textwrap
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
    parser.add_argument("--wide", action="store_true",
                        help="one line per algorithm, every column side by side "
                        "(hundreds of characters), instead of wrapped to the terminal")  # fmt: skip
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


def _rows(table: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    return [HEADINGS] + [
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


def format_table(table: list[dict[str, Any]]) -> str:
    """One line per algorithm, the columns side by side (--wide)."""
    rows = _rows(table)
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADINGS) - 1)]
    lines = []
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return "\n".join(lines) + "\n"


MIN_WIDTH = 60  # narrower terminals get lines of this width anyway
PARAMS_MIN = 24  # the parameters go on a line of their own below this much room


def format_wrapped(table: list[dict[str, Any]], width: int) -> str:
    """Per algorithm: collective, name, restrictions and parameters on a line, then its
    cost and description indented below; no line longer than width."""
    width = max(width, MIN_WIDTH)
    rows = _rows(table)
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lead = sum(widths) + 2 * 3
    room = width - lead
    lines = []
    for k, row in enumerate(rows):
        head = "  ".join(cell.ljust(w) for cell, w in zip(row[:3], widths, strict=False))
        if room >= PARAMS_MIN:
            params = textwrap.wrap(row[3], room, break_on_hyphens=False) or [""]
            lines.append(f"{head}  {params[0]}".rstrip())
            lines += [" " * lead + more for more in params[1:]]
        else:
            lines.append(head.rstrip())
            if row[3] != "-":
                lines += textwrap.wrap(row[3], width, initial_indent="    ",
                                       subsequent_indent="    ",
                                       break_on_hyphens=False)  # fmt: skip
        if k == 0:
            lines.append("    cost: description")
            continue
        lines += textwrap.wrap(f"{row[4]}: {row[5]}", width, initial_indent="    ",
                               subsequent_indent="    ", break_on_hyphens=False)  # fmt: skip
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> str:
    table = algorithms(args.collective)
    if args.json:
        return json.dumps(table, indent=2) + "\n"
    if args.wide:
        return format_table(table)
    return format_wrapped(table, shutil.get_terminal_size().columns)
