#!/usr/bin/env python3
"""The shape of the C code in src/ and tools/: no circles between files, no include
from a lower layer to a higher one, no file over 600 lines (docs/design.md, "Layers").

    scripts/check_layers.py [--strict] [ROOT]

Prints each finding with the files and lines behind it and exits 1 if there is one
that the exception list below does not cover, or an exception that no longer applies
(the list only shrinks: remove an entry once its finding is gone). --strict ignores
the exception list. tests/python/test_layers.py runs it.

The graph. A node is a file without its extension: runtime.c and runtime.h are one
node, src/mpi/runtime. There is an arrow from A to B when
  - a file of A includes a header of B (#include "..."), or
  - a file of A names a function or variable that a header it includes (directly or
    not) declares and that a .c file of a third node B defines: a header that declares
    what another file defines (as tools/trellis_info.h once declared info_simulate.c's
    cmd_simulate) would otherwise hide that arrow.
One variable is left out of the second kind of arrow, the algorithm table (TABLE below):
its loop is the registry's design, not a tangle. The table lists the builders, the
builders read their parameters, and a parameter naming an algorithm is looked up in the
table.
A circle is a strongly connected set of two or more nodes; the report shows, for each
member, a shortest circle through it with the line that makes each arrow.

Layers. Each folder of src/ (with its subfolders) and tools/ has a layer, the order
below; src/mpi's folders have one each (its three layers: context, engine, entry). A
file includes files of its own folder and of lower layers only: an include of
a higher layer is "upward", one of another folder in the same layer "sideways" (folders
of one layer do not know each other). Files outside src/ and tools/ (include/trellis.h,
the system's headers) are not checked.
"""

import argparse
import itertools
import re
import sys
from collections import defaultdict, deque
from pathlib import Path

# Lowest first. The order is the one the code has: core (status, log, settings) needs
# nothing; schedules, patterns, reduction kernels, layouts and tree files need only core;
# algorithms build schedules from patterns, layouts and tree files; the selector (rules),
# the simulator and the executors use schedules and algorithms; the MPI library (src/mpi)
# puts them together under MPI's entry points, in three layers: the communicators' state
# (context), running schedules (engine), the entry points (entry); tools/ (trellis-info)
# is a program on top.
LAYERS = [
    ["src/core"],
    ["src/sched", "src/pattern", "src/reduce", "src/topo", "src/tree"],
    ["src/algo"],
    ["src/select", "src/sim", "src/exec"],
    ["src/mpi/context"],
    ["src/mpi/engine"],
    ["src/mpi/entry"],
    ["tools"],
]

MAX_LINES = 600
MPI_LAYER_DEPTH = 3  # src/mpi/<layer>: the parts of a folder that is a layer of src/mpi

# algo/algo.h declares it, algo/algorithms.c defines it from the registry (above).
TABLE = {"trl_algorithms"}

# Findings known and accepted for now, each with why; the list only shrinks (it is
# empty now: issue 32's restructuring of src/mpi and src/exec removed the last). A
# circle entry covers any circle within its nodes.
EXCEPTIONS = {
    "circle": [],
    "upward": [],
    "sideways": [],
    "long": [],
}

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.MULTILINE)
IDENT = re.compile(r"[A-Za-z_]\w*")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "__attribute__", "defined"}


def line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def blank(match: re.Match) -> str:
    """The match with everything but its newlines as blanks (keeps lines and columns)."""
    return re.sub(r"[^\n]", " ", match.group(0))


def code_only(text: str) -> str:
    """The text without comments, string and character literals and preprocessor lines."""
    text = re.sub(
        r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
        blank,
        text,
        flags=re.DOTALL,
    )
    return re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", blank, text, flags=re.MULTILINE)


def statements(code: str):
    """(head, ends_with_body) for each statement at file scope: the text up to its ';'
    or up to the '{' of a function's body. Initialisers and struct bodies are skipped
    over as part of their statement."""
    depth, start, i = 0, 0, 0
    while i < len(code):
        ch = code[i]
        if ch == "{":
            head = code[start:i]
            if (
                depth == 0
                and ")" in head
                and "=" not in head
                and not head.lstrip().startswith(("struct", "union", "enum", "typedef"))
            ):
                yield head, True
                # skip the body
                depth = 1
                i += 1
                while i < len(code) and depth:
                    depth += {"{": 1, "}": -1}.get(code[i], 0)
                    i += 1
                start = i
                continue
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == ";" and depth == 0:
            yield code[start:i], False
            start = i + 1
        i += 1


def declared_name(head: str) -> tuple[str, bool] | None:
    """(name, whether a function) of what a file-scope statement declares or defines, if
    it declares something other files may name (not static, not a type)."""
    words = head.split()
    if not words or words[0] in {"typedef", "static", "struct", "union", "enum"}:
        return None
    head = head.split("=", maxsplit=1)[0]
    for m in re.finditer(r"([A-Za-z_]\w*)\s*\(", head):
        if m.group(1) not in KEYWORDS:
            return None if "(*" in head[: m.start()] else (m.group(1), True)
    names = [n for n in IDENT.findall(re.sub(r"\[[^\]]*\]", "", head)) if n not in KEYWORDS]
    return (names[-1], False) if len(names) > 1 else None  # a type, then the name


class Source:
    def __init__(self, root: Path, path: Path):
        self.path = path
        self.rel = path.relative_to(root).as_posix()
        self.node = self.rel.rsplit(".", 1)[0]
        self.text = path.read_text(errors="replace")
        self.lines = self.text.count("\n") + (not self.text.endswith("\n") and bool(self.text))
        self.code = code_only(self.text)
        self.includes: list[tuple[int, str]] = [
            (line_of(self.text, m.start()), m.group(1)) for m in INCLUDE.finditer(self.text)
        ]
        # What a header declares for others to define: name -> whether a function.
        self.declares: dict[str, bool] = {}
        self.defines: set[str] = set()
        for head, body in statements(self.code):
            found = declared_name(head)
            if not found:
                continue
            name, function = found
            if path.suffix == ".h" and not body and name not in TABLE:
                self.declares[name] = function
            elif path.suffix == ".c" and (body or not (function or "extern" in head.split())):
                self.defines.add(name)
        # Every name the file mentions, with the first line it does, macros included
        # (an X-macro list names its functions there).
        self.mentions: dict[str, int] = {}
        no_includes = INCLUDE.sub(
            blank, re.sub(r"/\*.*?\*/|//[^\n]*", blank, self.text, flags=re.DOTALL)
        )
        for m in IDENT.finditer(no_includes):
            self.mentions.setdefault(m.group(0), line_of(no_includes, m.start()))


def folder_of(rel: str) -> str:
    parts = rel.split("/")
    if parts[0] != "src":
        return parts[0]
    # src/mpi is three layers, a folder each (LAYERS): src/mpi/<layer>/<file>
    depth = 3 if parts[1] == "mpi" and len(parts) > MPI_LAYER_DEPTH else 2
    return "/".join(parts[:depth])


LAYER_OF = {folder: n for n, folders in enumerate(LAYERS) for folder in folders}


class Graph:
    def __init__(self, root: Path):
        self.root = root
        self.files = {
            s.rel: s
            for top in ("src", "tools")
            for p in sorted((root / top).rglob("*"))
            if p.suffix in {".c", ".h"} and p.is_file()
            for s in [Source(root, p)]
        }
        # (from node, to node) -> why, as "file:line ..." lines
        self.arrows: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.includes: dict[str, list[tuple[int, str]]] = {}  # file -> (line, included file)
        self.unresolved: list[str] = []
        for s in self.files.values():
            self.includes[s.rel] = []
            for line, name in s.includes:
                target = self.resolve(s, name)
                if target is None:
                    continue
                self.includes[s.rel].append((line, target))
                to = self.files[target].node
                if to != s.node:
                    self.arrows[s.node, to].append(f'{s.rel}:{line}: #include "{name}"')
        self.add_hidden_arrows()

    def resolve(self, s: Source, name: str) -> str | None:
        """The file under src/ or tools/ that an #include "name" of s reads, if any."""
        for base in (s.path.parent, self.root / "src", self.root / "tools"):
            p = (base / name).resolve()
            try:
                rel = p.relative_to(self.root.resolve()).as_posix()
            except ValueError:
                continue
            if rel in self.files:
                return rel
        return None

    def reachable_headers(self, rel: str) -> list[tuple[str, str]]:
        """(header, the include of rel that brings it in) for every header rel reads."""
        seen: dict[str, str] = {}
        todo = deque((t, f"{rel}:{line}") for line, t in self.includes[rel])
        while todo:
            h, via = todo.popleft()
            if h in seen:
                continue
            seen[h] = via
            todo.extend((t, via) for _, t in self.includes[h])
        return list(seen.items())

    def add_hidden_arrows(self):
        defined_in: dict[str, set[str]] = defaultdict(set)
        for s in self.files.values():
            for name in s.defines:
                defined_in[name].add(s.node)
        for s in self.files.values():
            for header, via in self.reachable_headers(s.rel):
                h = self.files[header]
                for name in sorted(h.declares.keys() & s.mentions.keys()):
                    what = f"{name}()" if h.declares[name] else name
                    for node in sorted(defined_in.get(name, ())):
                        if node in {h.node, s.node}:
                            continue
                        self.arrows[s.node, node].append(
                            f"{s.rel}:{s.mentions[name]}: {what}, declared in {header} "
                            f"(read through {via}), defined in {node}.c"
                        )

    # ---- findings -------------------------------------------------------------------

    def circles(self) -> list[list[str]]:
        """The strongly connected sets of two or more nodes (Tarjan's algorithm)."""
        succ = defaultdict(list)
        for a, b in self.arrows:
            succ[a].append(b)
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on: set[str] = set()
        found = []

        def visit(v):
            index[v] = low[v] = len(index)
            stack.append(v)
            on.add(v)
            for w in sorted(succ[v]):
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))

        sys.setrecursionlimit(max(1000, 4 * len(self.files)))
        for v in sorted(succ):
            if v not in index:
                visit(v)
        return sorted(found)

    def shortest_circle(self, start: str, within: set[str]) -> list[str]:
        succ = defaultdict(list)
        for a, b in self.arrows:
            if a in within and b in within:
                succ[a].append(b)
        prev = {start: None}
        todo = deque([start])
        while todo:
            v = todo.popleft()
            for w in sorted(succ[v]):
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return [*reversed(path), start]
                if w not in prev:
                    prev[w] = v
                    todo.append(w)
        return [start]

    def layer_breaks(self) -> list[tuple[str, str, str, int, str]]:
        """(kind, file, included file, line, text) of every upward or sideways include."""
        found = []
        for rel, incs in sorted(self.includes.items()):
            a = folder_of(rel)
            for line, target in incs:
                b = folder_of(target)
                if a == b or a not in LAYER_OF or b not in LAYER_OF:
                    continue
                if LAYER_OF[b] > LAYER_OF[a]:
                    found.append(("upward", rel, target, line, f"{a} includes {b}"))
                elif LAYER_OF[b] == LAYER_OF[a]:
                    found.append(("sideways", rel, target, line, f"{a} includes {b}"))
        return found

    def long_files(self) -> list[tuple[str, int]]:
        return [(s.rel, s.lines) for s in self.files.values() if s.lines > MAX_LINES]


def covers(kind: str, entry, finding) -> bool:
    """Whether an exception entry covers a finding: a circle within the entry's nodes,
    the same include, the same file."""
    if kind == "circle":
        return set(finding) <= set(entry)
    return tuple(entry) == tuple(finding) if kind != "long" else entry == finding


def check(root: Path, out, *, strict: bool = False) -> int:
    g = Graph(root)
    exceptions = {} if strict else EXCEPTIONS
    used: set[tuple[str, int]] = set()
    problems = 0

    def excused(kind: str, finding) -> bool:
        for i, entry in enumerate(exceptions.get(kind, [])):
            if covers(kind, entry, finding):
                used.add((kind, i))
                return True
        return False

    for comp in g.circles():
        known = excused("circle", comp)
        problems += not known
        out.write(f"{'known ' if known else ''}circle: {', '.join(comp)}\n")
        covered: set[str] = set()
        for start in comp:
            if start in covered:
                continue
            path = g.shortest_circle(start, set(comp))
            covered.update(path)
            out.write(f"  {' -> '.join(path)}\n")
            for a, b in itertools.pairwise(path):
                for why in g.arrows[a, b]:
                    out.write(f"    {why}\n")
    for kind, rel, target, line, what in g.layer_breaks():
        known = excused(kind, (rel, target))
        problems += not known
        out.write(f"{'known ' if known else ''}{kind} include: {rel}:{line}: {target} ({what})\n")
    for rel, n in sorted(g.long_files()):
        known = excused("long", rel)
        problems += not known
        out.write(f"{'known ' if known else ''}long file: {rel}: {n} lines (at most {MAX_LINES})\n")
    for kind, entries in exceptions.items():
        for i, e in enumerate(entries):
            if (kind, i) not in used:
                problems += 1
                out.write(
                    f"stale exception: {kind} {e}: no longer found, remove it from "
                    f"EXCEPTIONS in scripts/check_layers.py\n"
                )
    nodes = {s.node for s in g.files.values()}
    out.write(
        f"check_layers: {len(g.files)} files, {len(nodes)} nodes, "
        f"{len(g.arrows)} arrows: {'ok' if not problems else f'{problems} problem(s)'}\n"
    )
    return 1 if problems else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", nargs="?", type=Path, default=Path(__file__).resolve().parents[1])
    ap.add_argument("--strict", action="store_true", help="ignore the exception list")
    args = ap.parse_args()
    if not (args.root / "src").is_dir() and not (args.root / "tools").is_dir():
        ap.error(f"{args.root} has neither src/ nor tools/")
    return check(args.root, sys.stdout, strict=args.strict)


if __name__ == "__main__":
    sys.exit(main())
