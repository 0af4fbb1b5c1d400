"""The documentation's examples against the real output: every ```console block of
README.md and docs/*.md is run, and what it shows must be what the commands print.

A console block holds commands, each on a line starting with "$ " (a line ending in a
backslash goes on), and after each the output it shows: stdout and stderr together, line
by line; a line "..." stands for any number of lines. The commands of one block run in
order in a fresh directory, with the `trellis` command first on PATH, no TRELLIS_*
variable set, and `./app` there being seed 000's global-reduction program (the program
the README's examples run). Also checked: every `built-in:N: RULE` the documents cite is
line N of the built-in rules, and every rules example in docs/rules.md parses."""

import json
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from trellis import native

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^( *)```(\w*)[^\n]*\n(.*?)^\1```", re.MULTILINE | re.DOTALL)


@dataclass
class Example:
    where: str  # file:line of the command
    command: str
    shown: list[str]


def blocks(path: Path, language: str | None = None) -> list[tuple[int, str, str]]:
    """(line of the block's first line, language, text) of every fenced block."""
    text = path.read_text()
    found = []
    for m in FENCE.finditer(text):
        if language is None or m.group(2) == language:
            body = textwrap.dedent(m.group(3))  # a block within a list item is indented
            found.append((text.count("\n", 0, m.start(3)) + 1, m.group(2), body))
    return found


def examples(path: Path, first: int, text: str) -> list[Example]:
    out: list[Example] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        assert line.startswith("$ "), f"{path.name}:{first + i}: expected a '$ ' command"
        where, command = f"{path.name}:{first + i}", line[2:]
        while command.endswith("\\"):
            i += 1
            command = command[:-1] + lines[i]
        i += 1
        shown = []
        while i < len(lines) and not lines[i].startswith("$ "):
            shown.append(lines[i])
            i += 1
        out.append(Example(where, command, shown))
    return out


def console_blocks() -> list:
    return [pytest.param(path, first, text, id=f"{path.name}:{first}")
            for path in DOCUMENTS for first, _, text in blocks(path, "console")]  # fmt: skip


def matches(shown: list[str], printed: list[str]) -> bool:
    """Whether the printed lines are the shown ones, "..." standing for any lines."""
    if not shown:
        return not printed
    if shown[0] == "...":
        return any(matches(shown[1:], printed[k:]) for k in range(len(printed) + 1))
    return bool(printed) and printed[0] == shown[0] and matches(shown[1:], printed[1:])


def test_there_are_console_examples() -> None:
    assert len(console_blocks()) >= 6


@pytest.mark.parametrize(("path", "first", "text"), console_blocks())
def test_console_example(path: Path, first: int, text: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRELLIS_")}
    env["TRELLIS_BUILD"] = str(native.build_dir())
    env["PATH"] = f"{Path(sys.executable).parent}:{env['PATH']}"
    (tmp_path / "app").symlink_to(native.built_file("bench/global_reduction"))
    for ex in examples(path, first, text):
        proc = subprocess.run(["bash", "-c", ex.command], cwd=tmp_path, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120,
                              check=False)  # fmt: skip
        printed = proc.stdout.splitlines()
        assert matches(ex.shown, printed), (
            f"{ex.where}: $ {ex.command}\nshown:\n" + "\n".join(ex.shown)
            + "\nprinted:\n" + "\n".join(printed)
        )  # fmt: skip


def test_cited_built_in_rules_are_those_lines() -> None:
    builtin = native.info("builtin-rules").splitlines()
    cited = 0
    for path in DOCUMENTS:
        for m in re.finditer(r"built-in:(\d+): ([^)`\n]+)", path.read_text()):
            line, text = int(m.group(1)), m.group(2).split(": ")[0].strip()
            assert " ".join(builtin[line - 1].split()) == " ".join(text.split()), (
                f"{path.name}: built-in:{line} is {builtin[line - 1]!r}, not {text!r}"
            )
            cited += 1
    assert cited >= 1


def test_rules_examples_parse(tmp_path: Path) -> None:
    """Every block of docs/rules.md made of rules (and comments) parses; those naming
    tree files only get files that exist."""
    collectives = {a["collective"] for a in json.loads(native.info("algorithms"))}
    checked = 0
    for first, language, text in blocks(REPO / "docs" / "rules.md"):
        lines = [ln for ln in text.splitlines() if ln.strip()]
        rule_like = all(ln.split()[0] in collectives or ln.startswith("#") for ln in lines)
        if language or not rule_like or "file=" in text:
            continue
        rules = tmp_path / f"block{first}.rules"
        rules.write_text(text)
        proc = subprocess.run([str(native.built_file(native.INFO_TOOL)), "explain", "barrier",
                               "--ranks", "1", "--rules", str(rules)],
                              capture_output=True, text=True, check=False)  # fmt: skip
        assert proc.returncode == 0, f"rules.md:{first}: {proc.stderr}"
        checked += 1
    assert checked >= 5


def test_docs_that_name_open_mpis_persistent_collectives_name_their_header() -> None:
    """MPIX_Bcast_init ... need `#include <mpi-ext.h>` (issue 35)."""
    for path in DOCUMENTS:
        text = path.read_text()
        if re.search(r"MPIX_\w+_init", text):
            assert "<mpi-ext.h>" in text, path.name


@pytest.mark.parametrize(("language", "compiler"), [("c", "mpicc"), ("fortran", "mpifort")])
def test_install_examples_compile_and_run_under_trellis(language, compiler, tmp_path) -> None:
    """docs/install.md's C example (a persistent allreduce) and Fortran one (the README's
    ./fortran_app) build with Open MPI's compiler and run under `trellis run`, which
    serves their allreduce (issue 35)."""
    (block,) = [text for _, lang, text in blocks(REPO / "docs" / "install.md", language)]
    source = tmp_path / ("app.c" if language == "c" else "fortran_app.f90")
    source.write_text(block)
    program = tmp_path / "app"
    build = subprocess.run([f"{compiler}.openmpi", str(source), "-o", str(program)],
                           capture_output=True, text=True, check=False)  # fmt: skip
    assert build.returncode == 0, build.stderr
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRELLIS_")}
    env["TRELLIS_BUILD"] = str(native.build_dir())
    proc = subprocess.run([sys.executable, "-m", "trellis", "run", "-np", "2", "--verbose",
                           str(program)], capture_output=True, text=True, env=env, timeout=120,
                          check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"^trellis: allreduce(_init)? ranks=2 bytes=4: ", proc.stderr, re.M), (
        proc.stderr)  # fmt: skip
    if language == "fortran":
        assert proc.stdout.strip() == "ranks=2 sum=3"


def test_readme_says_what_app_is_and_names_every_explain_option() -> None:
    """README's `./app` is seed 000's program as setup.sh builds it, and its `explain`
    item names every option the command takes (--nonblocking was missing: issue 35)."""
    import argparse  # noqa: PLC0415 -- only here

    from trellis import cmd_explain  # noqa: PLC0415

    readme = (REPO / "README.md").read_text()
    assert "`build/bench/global_reduction`" in readme
    sub = argparse.ArgumentParser().add_subparsers()
    cmd_explain.add_parser(sub)
    explain = sub.choices["explain"]
    options = {o for a in explain._actions for o in a.option_strings
               if o.startswith("--") and o != "--help"}  # fmt: skip
    start = readme.index("- `trellis explain <collective>")
    item = readme[start : readme.index("\n- `trellis ", start + 1)]
    assert {o for o in options if f"{o}" not in item} == set()


# The algorithm tables of docs/rules.md ("## Algorithms") against the table itself
# (`trellis algorithms --json`, which follows the registry, src/algo/registry.h): an
# algorithm added, renamed or given other parameters shows here until the docs follow.


def markdown_tables(text: str, header: str) -> list[list[list[str]]]:
    """The rows (lists of cells) of every table of text whose header row starts with
    `header`."""
    tables, lines = [], text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(header) and i + 1 < len(lines) and lines[i + 1].startswith("|---"):
            rows = []
            for row in lines[i + 2 :]:
                if not row.startswith("|"):
                    break
                rows.append([cell.strip() for cell in row.strip().strip("|").split("|")])
            tables.append(rows)
    return tables


def outside_parentheses(text: str) -> str:
    out, depth = [], 0
    for ch in text:
        depth += ch == "("
        if depth == 0:
            out.append(ch)
        depth -= ch == ")" and depth > 0
    return "".join(out)


def row_collectives(cell: str, every: set[str]) -> set[str]:
    """`bcast, reduce`, `every collective`, `every collective but scan, exscan`, each
    perhaps followed by a parenthesis."""
    cell = outside_parentheses(cell).strip()
    if cell == "every collective":
        return set(every)
    if cell.startswith("every collective but "):
        return every - set(cell[len("every collective but ") :].split(", "))
    return set(cell.split(", "))


def check_param_text(cell: str, params: list[dict], where: str) -> None:
    """The forms a parameters cell writes a parameter in, against its spec:
    `radix` 2..1024 (4); `segment` size, at least 1 (64K); `world` an allgatherv
    algorithm (`bruck`); `file` ... (required); `bcast` (binomial)."""
    by_name = {p["name"]: p for p in params}
    for m in re.finditer(r"`(\w+)` (\d+)\.\.(\d+) \((\w+)\)", cell):
        p = by_name.get(m[1])
        if p:
            got = (p["kind"], p["min"], p["max"], p["default"])
            assert got == ("int", int(m[2]), int(m[3]), m[4]), f"{where}: {m[0]} but {got}"
    for m in re.finditer(r"`(\w+)` size, at least (\d+) \((\w+)\)", cell):
        p = by_name.get(m[1])
        if p:
            got = (p["kind"], p["min"], p["default"])
            assert got == ("size", int(m[2]), m[3]), f"{where}: {m[0]} but {got}"
    for m in re.finditer(r"`(\w+)` an? (\w+) algorithm \(`?(\w+)`?\)", cell):
        p = by_name.get(m[1])
        if p:
            got = (p["of"], p["default"])
            assert got == (m[2], m[3]), f"{where}: {m[0]} but {got}"
    for m in re.finditer(r"`(\w+)` [^,`]*\(required\)", cell):
        p = by_name.get(m[1])
        if p:
            assert p["required"], f"{where}: {m[0]} but it has a default"
    for m in re.finditer(r"`(\w+)` \((\w+)\)", cell):
        p = by_name.get(m[1])
        if p:
            assert p["default"] == m[2], f"{where}: {m[0]} but the default is {p['default']}"


def test_rules_md_algorithm_table_follows_the_table() -> None:
    """Its rows: collectives | algorithm (backquoted, then any remark in parentheses) |
    parameters (empty where there are none) | needs a commutative operation (yes: the
    restriction; empty or no: not it; other words: a condition, not checked)."""
    table = json.loads(native.info("algorithms"))
    algos = {(a["collective"], a["name"]): a for a in table}
    every = {a["collective"] for a in table}
    (rows,) = markdown_tables((REPO / "docs" / "rules.md").read_text(),
                              "| collective | algorithm | parameters")  # fmt: skip
    documented: list[tuple[str, str]] = []
    for cells in rows:
        where = f"rules.md: | {' | '.join(cells)} |"[:120]
        colls, algo_cell, param_cell, commutative = cells
        names = re.findall(r"`(\w+)`", outside_parentheses(algo_cell))
        assert names, where
        pairs = [(c, n) for c in sorted(row_collectives(colls, every)) for n in names]
        for pair in pairs:
            assert pair in algos, f"{where}: no algorithm {pair[1]} for {pair[0]}"
        documented += pairs
        for c, n in pairs:
            algo = algos[(c, n)]
            assert bool(param_cell) == bool(algo["params"]), (
                f"{where}: {c} {n} has parameters {[p['name'] for p in algo['params']]}"
            )
            check_param_text(param_cell, algo["params"], f"{where} ({c})")
            needs = "commutative" in algo["restrictions"]
            if commutative == "yes":
                assert needs, f"{where}: {c} {n} does not need a commutative operation"
            elif commutative in ("", "no"):
                assert not needs, f"{where}: {c} {n} needs a commutative operation"
        named = set(re.findall(r"`(\w+)`", outside_parentheses(param_cell)))
        known = {p["name"] for c, n in pairs for p in algos[(c, n)]["params"]}
        assert named <= known, f"{where}: no parameter {sorted(named - known)}"
    assert len(documented) == len(set(documented)), "an algorithm has two rows"
    missing = sorted(set(algos) - set(documented))
    assert not missing, f"rules.md's table of algorithms leaves out {missing}"


@pytest.mark.parametrize("algorithm", ["inter_leader", "inter_hosts"])
def test_rules_md_intercommunicator_tables_follow_the_table(algorithm) -> None:
    """| collectives | what it does | every parameter: `name` (default) |, one row for
    each collective that has the algorithm."""
    table = json.loads(native.info("algorithms"))
    algos = {a["collective"]: a for a in table if a["name"] == algorithm}
    (rows,) = markdown_tables((REPO / "docs" / "rules.md").read_text(),
                              f"| collective | `{algorithm}` does |")  # fmt: skip
    documented: list[str] = []
    for colls, _, param_cell in rows:
        where = f"rules.md: {algorithm}: {colls}"
        for coll in colls.split(", "):
            assert coll in algos, f"{where}: {coll} has no {algorithm}"
            documented.append(coll)
            params = algos[coll]["params"]
            assert set(re.findall(r"`(\w+)`", param_cell)) == {p["name"] for p in params}, where
            check_param_text(param_cell, params, where)
    assert sorted(documented) == sorted(algos), f"rules.md's {algorithm} table: {documented}"
