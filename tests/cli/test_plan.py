"""`trellis plan`: every scheme's trees checked against parents and children worked out
here independently; tree and script files describe the same trees; the layout file;
the files load in the C library (`trellis-info explain` with the written rules) and
the factors printed."""

import json
import re
from pathlib import Path

import pytest

from trellis import native

Parents = dict[int, int | None]


def read_section(path: Path, direction: str) -> tuple[Parents, dict[int, list[int]]]:
    """(parent, children) of one direction of a tree or script file, parsed here."""
    lines = [ln.split("#")[0].strip() for ln in path.read_text().splitlines()]
    lines = [ln for ln in lines if ln]
    script = lines[0] == "trellis script"
    parent: Parents = {}
    kids: dict[int, list[int]] = {}
    section = None
    for ln in lines[1:]:
        if ln in {"reduce", "bcast", "both"}:
            section = ln
            continue
        if not ln.startswith("rank ") or section not in {direction, "both"}:
            continue
        words = ln.replace(",", " ").replace(":", " ").split()
        r = int(words[1])
        if script:
            up = "send" if direction == "reduce" else "recv"
            cmds = list(zip(words[2::2], map(int, words[3::2]), strict=True))
            parent[r] = next((p for c, p in cmds if c == up), None)
            kids[r] = [p for c, p in cmds if c != up]
        else:
            parent[r] = None if words[3] == "none" else int(words[3])
            kids[r] = [int(w) for w in words[5:]]
    return parent, kids


def plan(run_trellis, out: Path, *args: str) -> str:
    proc = run_trellis("plan", "--out", str(out), *args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_lam_trees_are_seed_000s(run_trellis, tmp_path):
    plan(run_trellis, tmp_path, "--hosts", "4", "--ranks-per-host", "4", "--scheme", "lam")
    for name in ("lam.tree", "lam.script"):
        up, up_kids = read_section(tmp_path / name, "reduce")
        down, down_kids = read_section(tmp_path / name, "bcast")
        # Seed 000: rank 12 receives from 13 and 14, then sends to 8.
        assert up_kids[12] == [13, 14]
        assert up[12] == 8
        assert up_kids[0] == [1, 2, 4, 8]
        # LAM's broadcast clears the highest bit: 12's parent is 4, 4 serves 12.
        assert down[12] == 4
        assert down_kids[4] == [12]
        assert down_kids[0] == [1, 2, 4, 8]
        for r in range(1, 16):
            assert up[r] == r & (r - 1)
            assert down[r] == r - (1 << (r.bit_length() - 1))


def test_lam_is_linear_up_to_four_ranks(run_trellis, tmp_path):
    plan(run_trellis, tmp_path, "--hosts", "2", "--ranks-per-host", "2", "--scheme", "lam")
    parent, kids = read_section(tmp_path / "lam.tree", "reduce")
    assert kids[0] == [1, 2, 3]
    assert parent == {0: None, 1: 0, 2: 0, 3: 0}


def expected_hier(hosts: list[list[int]], group: int | None) -> Parents:
    """Each group's lowest rank (rank 0 in its own) leads; leaders report to 0."""
    parent: Parents = {0: None}
    for ranks in hosts:
        size = group or len(ranks)
        for i in range(0, len(ranks), size):
            g = ranks[i : i + size]
            lead = 0 if 0 in g else g[0]
            for r in g:
                if r != lead:
                    parent[r] = lead
            if lead != 0:
                parent[lead] = 0
    return parent


CLUSTERS = {
    "4x4 block": (["--hosts", "4", "--ranks-per-host", "4"], [[0, 1, 2, 3], [4, 5, 6, 7],
                                                              [8, 9, 10, 11], [12, 13, 14, 15]]),
    "4x4 round-robin": (["--hosts", "4", "--ranks-per-host", "4", "--placement", "round-robin"],
                        [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]]),
    "2x8": (["--hosts", "2", "--ranks-per-host", "8"], [list(range(8)), list(range(8, 16))]),
    "4+3+2": (["--hosts", "3", "--ranks-per-host", "4,3,2"], [[0, 1, 2, 3], [4, 5, 6], [7, 8]]),
    "1 per host": (["--hosts", "3", "--ranks-per-host", "1"], [[0], [1], [2]]),
    "8 on one host": (["--hosts", "1", "--ranks-per-host", "8"], [list(range(8))]),
}  # fmt: skip


@pytest.mark.parametrize("cluster", sorted(CLUSTERS))
@pytest.mark.parametrize(
    ("scheme", "group"), [("hier", None), ("hier-split", 4), ("hier-split", 2)]
)
def test_hier_schemes(run_trellis, tmp_path, cluster, scheme, group):
    args, hosts = CLUSTERS[cluster]
    extra = ["--group", str(group)] if group else []
    plan(run_trellis, tmp_path, *args, "--scheme", scheme, *extra)
    want = expected_hier(hosts, group)
    for name in (f"{scheme}.tree", f"{scheme}.script"):
        for direction in ("reduce", "bcast"):
            parent, _ = read_section(tmp_path / name, direction)
            assert parent == want, (name, direction)
    layout = (tmp_path / "layout").read_text()
    for ranks in hosts:
        assert any(line.startswith("host=") for line in layout.splitlines())
        got = json.loads(native.info("layout", "--json", "--ranks", str(sum(map(len, hosts))),
                                     "--topology", str(tmp_path / "layout")))["host"]  # fmt: skip
        assert len({got[r] for r in ranks}) == 1
    hier_rules = (tmp_path / f"{scheme}-hier.rules").read_text()
    assert "allreduce hier levels=" in hier_rules


def test_hier_bcast_serves_other_hosts_first(run_trellis, tmp_path):
    plan(run_trellis, tmp_path, "--hosts", "4", "--ranks-per-host", "4", "--scheme",
         "hier-split", "--group", "2")  # fmt: skip
    for name in ("hier-split.tree", "hier-split.script"):
        _, up = read_section(tmp_path / name, "reduce")
        _, down = read_section(tmp_path / name, "bcast")
        assert up[0] == [1, 2, 4, 6, 8, 10, 12, 14], name  # combined in rank order
        assert down[0] == [4, 6, 8, 10, 12, 14, 2, 1], name  # remote, then larger subtree
        assert up[4] == down[4] == [5], name


def test_knomial_hier(run_trellis, tmp_path):
    plan(run_trellis, tmp_path, "--hosts", "4", "--ranks-per-host", "4", "--scheme",
         "knomial-hier", "--radix", "2")  # fmt: skip
    parent, kids = read_section(tmp_path / "knomial-hier.tree", "reduce")
    # Binomial within each host (leader, +1, +2, +3 under +2) and among leaders 0 4 8 12.
    assert parent[1] == 0
    assert parent[3] == 2
    assert parent[5] == 4
    assert parent[4] == 0
    assert parent[12] == 8
    assert kids[0] == [8, 4, 2, 1]  # farthest first


def test_written_rules_load_and_choose_the_tree(run_trellis, tmp_path):
    for scheme in ("lam", "linear", "hier", "hier-split", "knomial-hier"):
        out = tmp_path / scheme
        plan(run_trellis, out, "--hosts", "4", "--ranks-per-host", "4", "--scheme", scheme)
        rules = out / f"{scheme}.rules"
        data = json.loads(native.info("explain", "allreduce", "--ranks", "16", "--bytes", "4",
                                      "--rules", str(rules), "--json"))  # fmt: skip
        assert data["algorithm"] == "tree", scheme
        assert data["rule"]["source"] == str(rules)
        if scheme in {"hier", "hier-split", "knomial-hier"}:
            hier = out / f"{scheme}-hier.rules"
            data = json.loads(native.info("explain", "allreduce", "--ranks", "16", "--bytes",
                                          "4", "--rules", str(hier), "--topology",
                                          str(out / "layout"), "--json"))  # fmt: skip
            assert data["algorithm"] == "hier", scheme


def test_factors_are_printed(run_trellis, tmp_path):
    out = plan(run_trellis, tmp_path, "--hosts", "4", "--ranks-per-host", "4", "--scheme", "hier")
    # Rank 0 serves 1 2 3 and the leaders 4 8 12; leaders serve three each; 3 arcs cross.
    want = "reduce: children per node: max 6 (per level: 6 3); depth: 2; arcs crossing hosts: 3"
    assert want in out
    assert re.search(r"wrote .*hier\.tree", out)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--hosts", "3", "--ranks-per-host", "4,3"], "gives 2 counts for 3 hosts"),
        (["--hosts", "2", "--ranks-per-host", "4", "--group", "0"], "--group must be at least 1"),
        (["--hosts", "2", "--ranks-per-host", "0"], "every host needs at least one rank"),
    ],
)
def test_bad_input_is_refused(run_trellis, tmp_path, args, message):
    proc = run_trellis("plan", "--out", str(tmp_path), "--scheme", "hier-split", *args)
    assert proc.returncode == 2
    assert message in proc.stderr
