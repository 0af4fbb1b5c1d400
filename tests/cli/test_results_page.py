"""The results a reader can trust (issue 32): every row of docs/results.md's tables and
of the README's headline table names the machine it ran on (with its cores), the MPI
library and its version, the date, and the command that reproduces it (or a link to where
the command is); the notebook's pages (docs/notebook/) each open with a table of their
sections' dates and machines; and every link among these pages and the other documents
resolves, to the file and to the heading it names."""

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "docs" / "results.md"
README = REPO / "README.md"
NOTEBOOK = REPO / "docs" / "notebook"
DOCUMENTS = [README, *sorted((REPO / "docs").glob("*.md")), *sorted(NOTEBOOK.glob("*.md"))]

FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")
CORES = re.compile(r"\b\d+ cores?\b|\b\d+-core\b")
MPI = re.compile(r"\b(?:Open MPI|MPICH) \d+\.\d+(?:\.\d+)?\b")
NO_MPI = "none ("  # a row that runs without MPI (the simulator) says so, and why
COMMAND = re.compile(r"`[^`]+`|\[[^\]]+\]\([^)\s]+\)")
COLUMNS = ("machine", "MPI", "date", "command")


def cells(line: str) -> list[str]:
    """The cells of a table row; a `|` inside backquotes stays in its cell."""
    out, cell, code = [], "", False
    for ch in line.strip().strip("|"):
        code ^= ch == "`"
        if ch == "|" and not code:
            out.append(cell.strip())
            cell = ""
        else:
            cell += ch
    return [*out, cell.strip()]


def tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """(header, rows) of every Markdown table outside fenced blocks."""
    lines = FENCE.sub("", text).splitlines()
    found = []
    for i, line in enumerate(lines[:-1]):
        if (
            line.startswith("|")
            and lines[i + 1].startswith("|---")
            and (i == 0 or not lines[i - 1].startswith("|"))
        ):
            rows = []
            for row in lines[i + 2 :]:
                if not row.startswith("|"):
                    break
                rows.append(cells(row))
            found.append((cells(line), rows))
    return found


def row_problems(header: list[str], row: list[str]) -> list[str]:
    """What a results row leaves out: its machine (with cores), its MPI library and
    version, its date, its command (or a link to it)."""
    if len(row) != len(header):
        return [f"{len(row)} cells under {len(header)} columns"]
    cell = dict(zip(header, row, strict=True))
    problems = []
    if not CORES.search(cell["machine"]):
        problems.append(f"machine {cell['machine']!r} names no cores")
    if not (MPI.search(cell["MPI"]) or cell["MPI"].startswith(NO_MPI)):
        problems.append(f"MPI {cell['MPI']!r} names no library and version")
    if not DATE.search(cell["date"]):
        problems.append(f"date {cell['date']!r} is no date")
    if not COMMAND.search(cell["command"]):
        problems.append(f"command {cell['command']!r} is neither a command nor a link")
    return problems


def check_tables(found: list[tuple[list[str], list[list[str]]]], where: str) -> int:
    rows = 0
    for header, table_rows in found:
        missing = [c for c in COLUMNS if c not in header]
        assert not missing, f"{where}: a table without the columns {missing}: {header}"
        for row in table_rows:
            problems = row_problems(header, row)
            assert not problems, f"{where}: row {row[0]!r}: " + "; ".join(problems)
            rows += 1
    return rows


def test_every_row_of_the_results_page_says_where_when_and_how() -> None:
    found = tables(RESULTS.read_text())
    assert len(found) >= 5
    assert check_tables(found, "docs/results.md") >= 30


def test_the_readme_opens_with_a_headline_table_that_says_where_when_and_how() -> None:
    """Between the introduction and the quick start: 2 ranks on one host, the emulated
    4 x 4 against Open MPI's default and han, linking to the results page."""
    readme = README.read_text()
    top = readme[readme.index("# Trellis") : readme.index("## Quick start")]
    (table,) = [t for t in tables(top) if "machine" in t[0]]
    header, rows = table
    assert "han" in header
    assert check_tables([table], "README.md") >= 4
    assert any(r[0].startswith("2 ranks") for r in rows)
    assert any(r[0].startswith("4 x 4") and DATE.search(r[header.index("date")]) for r in rows)
    assert "](docs/results.md)" in top


@pytest.mark.parametrize(
    ("column", "broken"),
    [("machine", "Intel Xeon VM"), ("MPI", "Open MPI"), ("date", "recently"), ("command", "")],
)
def test_a_row_without_its_machine_mpi_date_or_command_is_caught(column, broken) -> None:
    header, rows = tables(RESULTS.read_text())[0]
    row = list(rows[0])
    assert not row_problems(header, row)
    row[header.index(column)] = broken
    assert row_problems(header, row)


def test_every_notebook_page_opens_with_its_sections_dates_and_machines() -> None:
    pages = sorted(p for p in NOTEBOOK.glob("*.md") if p.name != "README.md")
    assert len(pages) >= 10
    index = (NOTEBOOK / "README.md").read_text()
    for page in pages:
        text = page.read_text()
        assert text.startswith("# "), page.name
        assert f"]({page.name})" in index, f"the notebook's README leaves out {page.name}"
        header, rows = tables(text)[0]
        assert header[:3] == ["section", "date(s), as the section gives them",
                              "machine, as the section gives it"], page.name  # fmt: skip
        assert rows, page.name
        for row in rows:
            assert DATE.search(row[1]), f"{page.name}: {row[0]}: no date"
            assert row[2], f"{page.name}: {row[0]}: no machine"
            assert row[3], f"{page.name}: {row[0]}: no MPI"


def slug(heading: str) -> str:
    """GitHub's anchor of a heading (before numbering repeats)."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for m in re.finditer(r"^#{1,6} (.+)$", FENCE.sub("", path.read_text()), re.MULTILINE):
        s = slug(m.group(1))
        out.add(f"{s}-{seen[s]}" if s in seen else s)
        seen[s] = seen.get(s, 0) + 1
    return out


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(REPO)))
def test_links_resolve(path: Path) -> None:
    """Every relative link of the README, docs/*.md and the notebook reaches a file, and
    a heading where it names one (the notebook's pages link into each other and into
    docs/results/)."""
    broken = []
    for m in re.finditer(r"\]\(([^)\s]+)\)", FENCE.sub("", path.read_text())):
        target = m.group(1)
        if re.match(r"[a-z]+:", target):
            continue
        name, _, anchor = target.partition("#")
        file = (path.parent / name).resolve() if name else path
        missing = not file.exists()
        if missing or (anchor and file.suffix == ".md" and anchor not in anchors(file)):
            broken.append(target)
    assert not broken, f"{path.relative_to(REPO)}: {broken}"
