"""`trellis show`: the SVG's structure (a group per host, a circle per rank, an arc per
tree edge, crossing arcs marked) against counts worked out here, the PNG's signature and
size, the factors printed for seed 000's trees on 4 x 4, and a schedule drawn from rules
on a described layout."""

import math
import re
import struct
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

from trellis import draw

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
        for a in root.iter(f"{SVG}path")
        if "arc" in a.get("class", "").split()
    ]
    # Every arc has its arrowhead.
    assert len(root.findall(f"{SVG}polygon[@class='head']")) == len(arcs)
    return hosts, ranks, arcs


@dataclass
class Drawn:
    """An arc as drawn: its ends, rounds and curve (start, control, end)."""

    src: int
    dst: int
    rounds: tuple[int, ...]
    curve: list[tuple[float, float]]

    @property
    def apex(self) -> tuple[float, float]:
        (x0, y0), (x1, y1), (x2, y2) = self.curve
        return (x0 + 2 * x1 + x2) / 4, (y0 + 2 * y1 + y2) / 4


def drawn(path: Path) -> tuple[dict[int, tuple[float, float]], list[Drawn]]:
    """Each rank's centre and each arc's curve, from the SVG."""
    root = ET.parse(path).getroot()  # noqa: S314 -- our own output
    centres = {int(c.get("data-rank")): (float(c.get("cx")), float(c.get("cy")))
               for c in root.iter(f"{SVG}circle")}  # fmt: skip
    arcs = []
    for a in root.iter(f"{SVG}path"):
        numbers = [float(v) for v in a.get("d").replace("M", "").replace("Q", "").split()]
        rounds = tuple(int(r) for r in a.get("data-rounds").split(",") if r)
        arcs.append(Drawn(int(a.get("data-from")), int(a.get("data-to")), rounds,
                          list(zip(numbers[::2], numbers[1::2], strict=True))))  # fmt: skip
    return centres, arcs


def assert_every_arc_visible(centres: dict, arcs: list[Drawn]) -> None:
    """No two arcs hide each other (their middles lie apart), none runs along the line
    between its ranks (it bends off it), and each starts and ends at its ranks' circles,
    the end (where the arrowhead is) at the receiver."""
    for a in arcs:
        (x0, y0), (x2, y2) = centres[a.src], centres[a.dst]
        chord = math.hypot(x2 - x0, y2 - y0)
        mx, my = a.apex
        off = abs((x2 - x0) * (my - y0) - (y2 - y0) * (mx - x0)) / chord  # apex to chord
        assert off >= 5, (a.src, a.dst, off)
        assert math.dist(a.curve[0], centres[a.src]) == pytest.approx(14, abs=0.2)
        assert math.dist(a.curve[2], centres[a.dst]) == pytest.approx(14, abs=0.2)
    for i, a in enumerate(arcs):
        for b in arcs[i + 1 :]:
            assert math.dist(a.apex, b.apex) > 5, ((a.src, a.dst), (b.src, b.dst))


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
        # Arrows go the way the data goes: up a reduce tree, down a bcast tree.
        flow = parent.items() if direction == "reduce" else [(p, r) for r, p in parent.items()]
        assert sorted((a, b) for a, b, _ in arcs) == sorted(flow)
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
    assert (
        "reduce: children per node: max 4 (per level: 4 3 2 1); depth: 4; arcs crossing hosts: 3"
        in proc.stdout
    )
    assert (
        "bcast: children per node: max 4 (per level: 4 3 2 1); depth: 4; arcs crossing hosts: 12"
        in proc.stdout
    )


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
    assert ("hier: children per node: max 6 (ranks one rank receives from; sends to: max 6)"
            in proc.stdout)  # fmt: skip
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


# ---- every message visible, with its direction and round (issue 11, point 12) ----------


def test_recursive_doubling_draws_every_exchange(run_trellis, tmp_path):
    """It looked like a chain 0-1-...-7: the exchanges at distance 2 and 4 lay along the
    row, under the ones at distance 1."""
    proc = run_trellis("show", "--rules", "allreduce recursive_doubling", "--ranks", "8",
                       "--out", str(tmp_path / "rd"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    centres, arcs = drawn(tmp_path / "rd.svg")
    want = {(r, r ^ d): (k,) for k, d in ((1, 1), (2, 2), (3, 4)) for r in range(8)}
    assert {(a.src, a.dst): a.rounds for a in arcs} == want
    assert_every_arc_visible(centres, arcs)
    # The two directions of an exchange bend to either side of the row.
    apex = {(a.src, a.dst): a.apex[1] for a in arcs}
    row = centres[0][1]
    for a, b in want:
        assert (apex[(a, b)] - row) * (apex[(b, a)] - row) < 0
    assert "depth: 3 messages" in proc.stdout
    svg = (tmp_path / "rd.svg").read_text()
    assert svg.count('<text class="round"') == 24
    assert 'class="legend"' in svg


def test_hierarchy_on_4x4_shows_the_world_level(run_trellis, tmp_path):
    """The world level's 0-8 and 4-12 vanished under the row before."""
    proc = run_trellis("show", "--rules", "allreduce hier", "--ranks", "16", "--layout",
                       "hosts=4 ranks_per_host=4", "--out", str(tmp_path / "h"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    centres, arcs = drawn(tmp_path / "h.svg")
    pairs = {(a.src, a.dst) for a in arcs}
    assert {(0, 4), (4, 0), (8, 12), (12, 8), (0, 8), (8, 0), (4, 12), (12, 4)} <= pairs
    assert_every_arc_visible(centres, arcs)
    rounds = {(a.src, a.dst): a.rounds for a in arcs}
    assert rounds[(0, 8)] == rounds[(4, 12)]
    assert rounds[(0, 8)][0] == rounds[(0, 4)][0] + 1  # the world's second exchange


def test_round_robin_knomial_bcast_puts_the_root_on_top(run_trellis, tmp_path):
    proc = run_trellis("show", "--rules", "bcast knomial radix=2", "--collective", "bcast",
                       "--ranks", "8", "--layout", "hosts=2 ranks_per_host=4 placement=round-robin",
                       "--out", str(tmp_path / "k"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    centres, arcs = drawn(tmp_path / "k.svg")
    assert_every_arc_visible(centres, arcs)
    top = min(y for _, y in centres.values())
    assert [r for r, (_, y) in centres.items() if y == top] == [0]
    # Each rank below the root one row under the rank it receives from.
    for a in arcs:
        assert centres[a.dst][1] > centres[a.src][1]
    # For a broadcast, children are the ranks one rank sends to: the root's 4, 2 and 1.
    assert "knomial: children per node: max 3 (ranks one rank sends to)" in proc.stdout


def test_a_reduce_to_another_root_puts_that_root_on_top(run_trellis, tmp_path):
    proc = run_trellis("show", "--rules", "reduce binomial", "--collective", "reduce",
                       "--root", "3", "--ranks", "8", "--out", str(tmp_path / "r"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    centres, arcs = drawn(tmp_path / "r.svg")
    top = min(y for _, y in centres.values())
    assert [r for r, (_, y) in centres.items() if y == top] == [3]
    for a in arcs:  # data flows up to the root
        assert centres[a.dst][1] < centres[a.src][1]
    assert "binomial: children per node: max 3 (ranks one rank receives from)" in proc.stdout


def test_rounds_text_and_colours() -> None:
    assert draw.rounds_text((1, 2, 3, 5, 7, 8)) == "1-3,5,7-8"
    assert draw.rounds_text((4,)) == "4"
    assert len({draw.round_colour(r, 8) for r in range(1, 9)}) == 8
    assert draw.round_colour(1, 40) != draw.round_colour(40, 40)


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
    assert re.search(r"^chosen by: built-in:\d+: allreduce .* hier$", proc.stdout, re.MULTILINE)
    # The built-in rules know hosts, and say why (the comment above the rule).
    assert re.search(r"^reason: Several hosts: hier reduces within each host", proc.stdout,
                     re.MULTILINE)  # fmt: skip
    assert "the rules saw: hosts=2 ranks_per_host=4 placement=other" in proc.stdout
