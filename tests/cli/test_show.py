"""`trellis show`: the SVG's structure (a group per host, a circle per rank, an arc per
tree edge, crossing arcs marked) against counts worked out here, the PNG's signature and
size, the factors printed for seed 000's trees on 4 x 4, and a schedule drawn from rules
on a described layout."""

import re
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

SVG = "{http://www.w3.org/2000/svg}"


def plan(run_trellis, out: Path, scheme: str, *extra: str) -> Path:
    proc = run_trellis("plan", "--hosts", "4", "--ranks-per-host", "4", "--scheme", scheme,
                       "--out", str(out), *extra)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return out / f"{scheme}.tree"


def svg_parts(path: Path) -> tuple[list, list, list[tuple[int, int, bool]]]:
    root = ET.parse(path).getroot()  # noqa: S314 -- our own output
    assert root.tag == f"{SVG}svg"
    hosts = root.findall(f"{SVG}g[@class='host']")
    ranks = root.findall(f"{SVG}circle[@class='rank']")
    arcs = [
        (int(a.get("data-from")), int(a.get("data-to")), "cross" in a.get("class").split())
        for a in root.iter(f"{SVG}line")
        if "arc" in a.get("class", "").split()
    ]
    return hosts, ranks, arcs


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_lam_tree_drawn_on_4x4(run_trellis, tmp_path):
    tree = plan(run_trellis, tmp_path, "lam")
    proc = run_trellis("show", str(tree), "--out", str(tmp_path / "lam"))
    assert proc.returncode == 0, proc.stderr
    host = [r // 4 for r in range(16)]  # the layout plan wrote: block placement
    up = {r: r & (r - 1) for r in range(1, 16)}
    down = {r: r - (1 << (r.bit_length() - 1)) for r in range(1, 16)}
    for direction, parent in (("reduce", up), ("bcast", down)):
        hosts, ranks, arcs = svg_parts(tmp_path / f"lam-{direction}.svg")
        assert len(hosts) == 4
        assert sorted(int(c.get("data-rank")) for c in ranks) == list(range(16))
        assert sorted((a, b) for a, b, _ in arcs) == sorted(parent.items())
        for a, b, cross in arcs:
            assert cross == (host[a] != host[b])
        crossing = sum(host[r] != host[p] for r, p in parent.items())
        assert f"{direction}: " in proc.stdout
        line = next(ln for ln in proc.stdout.splitlines() if ln.startswith(f"{direction}:"))
        assert f"arcs crossing hosts: {crossing}" in line
        assert "depth: 4" in line
        assert "max 4" in line
        match = re.search(rf"lam-{direction}\.png \((\d+)x(\d+)\)", proc.stdout)
        assert match
        assert png_size(tmp_path / f"lam-{direction}.png") == tuple(map(int, match.groups()))
    # Seed 000's Figure 3 point: LAM's reduce tree crosses hosts 3 times here, its
    # broadcast tree 12 times.
    assert "reduce: children per node: max 4 (per level: 4 3 2 1); depth: 4; arcs crossing hosts: 3" in proc.stdout  # noqa: E501
    assert "bcast: children per node: max 4 (per level: 4 3 2 1); depth: 4; arcs crossing hosts: 12" in proc.stdout  # noqa: E501


@pytest.mark.parametrize(
    ("scheme", "extra", "want"),
    [
        ("hier", (), "children per node: max 6 (per level: 6 3); depth: 2; arcs crossing hosts: 3"),
        ("hier-split", ("--group", "2"),
         "children per node: max 8 (per level: 8 1); depth: 2; arcs crossing hosts: 6"),
        ("linear", (),
         "children per node: max 15 (per level: 15); depth: 1; arcs crossing hosts: 12"),
    ],
)  # fmt: skip
def test_seed_000_schemes_factors(run_trellis, tmp_path, scheme, extra, want):
    tree = plan(run_trellis, tmp_path, scheme, *extra)
    proc = run_trellis("show", str(tree), "--direction", "reduce", "--out", str(tmp_path / "x"))
    assert proc.returncode == 0, proc.stderr
    assert f"reduce: {want}" in proc.stdout
    _, ranks, arcs = svg_parts(tmp_path / "x.svg")
    assert len(ranks) == 16
    assert len(arcs) == 15


def test_a_hierarchical_schedule_is_drawn_from_rules(run_trellis, tmp_path):
    rules = ("allreduce hier levels=host,world host=linear "
             "world=reduce_bcast(reduce=linear,bcast=linear)")  # fmt: skip
    proc = run_trellis("show", "--rules", rules, "--ranks", "16", "--layout",
                       "hosts=4 ranks_per_host=4", "--out", str(tmp_path / "h"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    hosts, ranks, arcs = svg_parts(tmp_path / "h.svg")
    assert len(hosts) == 4
    assert len(ranks) == 16
    # Up: 12 ranks to their leaders, 3 leaders to 0; down the same arcs reversed.
    pairs = {(a, b) for a, b, _ in arcs}
    assert len(pairs) == 30
    assert sum(cross for _, _, cross in arcs) == 6
    assert (5, 4) in pairs
    assert (4, 5) in pairs
    assert (4, 0) in pairs
    assert "hier: children per node: max 6" in proc.stdout
    assert "depth: 4 messages" in proc.stdout
    assert "arcs crossing hosts: 6 of 30" in proc.stdout
    png_size(tmp_path / "h.png")


def test_errors(run_trellis, tmp_path):
    proc = run_trellis("show", "--out", str(tmp_path / "x"))
    assert proc.returncode == 2
    assert "give a tree or script file, or --rules" in proc.stderr
    proc = run_trellis("show", str(tmp_path / "missing.tree"), "--out", str(tmp_path / "x"))
    assert proc.returncode == 2
    assert "no such file" in proc.stderr


def test_show_says_which_rule_a_multi_host_call_gets(run_trellis, tmp_path):
    rules = "allreduce hosts=2- hier; allreduce recursive_doubling"
    for layout, want, line, saw in (
        ("hosts=2 ranks_per_host=2", "hier", 1, "hosts=2 ranks_per_host=2 placement=block"),
        ("hosts=1 ranks_per_host=4", "recursive_doubling", 2,
         "hosts=1 ranks_per_host=4 placement=block"),
    ):  # fmt: skip
        proc = run_trellis("show", "--rules", rules, "--ranks", "4", "--topology", layout,
                           "--out", str(tmp_path / want))  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert f"{want}: children per node" in proc.stdout
        assert f"chosen by: TRELLIS_RULES:{line}: " in proc.stdout
        assert f"the rules saw: {saw}" in proc.stdout


def test_show_draws_the_builtin_choice_with_empty_rules(run_trellis, tmp_path):
    proc = run_trellis("show", "--rules", "", "--ranks", "8", "--layout",
                       "hosts=2 ranks_per_host=4 placement=round-robin",
                       "--out", str(tmp_path / "b"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"^chosen by: built-in:\d+: allreduce ", proc.stdout, re.MULTILINE)
    assert "the rules saw: hosts=2 ranks_per_host=4 placement=other" in proc.stdout
