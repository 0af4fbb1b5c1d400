"""Hierarchies and tree files under real `trellis run` jobs on described layouts.

Seed 000's four configurations on 4 hosts x 4 ranks, written by `trellis plan` (tree
files, scripts, rules) and by hand (the `hier` algorithm), run its global-reduction
program (every result checked); the classic collectives' checker (tests/mpi/coll_check)
runs over plan's tree files for every collective that takes one; and the start-up
checks of TRELLIS_TOPOLOGY. Every test starts real MPI processes."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("TRELLIS_BUILD", REPO / "build"))
PROGRAM = BUILD / "bench" / "global_reduction"
CHECKER = BUILD / "tests" / "mpi" / "coll_check"
LAYOUT_4X4 = "hosts=4 ranks_per_host=4"

# Seed 000's configurations as `hier` rules (docs/rules.md).
HIER_RULES = {
    "c-hier": "allreduce hier levels=host,world host=linear "
    "world=reduce_bcast(reduce=linear,bcast=linear)",
    "d-split": "allreduce hier levels=group:4,world group=linear "
    "world=reduce_bcast(reduce=linear,bcast=linear)",
    "knomial-hier": "allreduce hier levels=host,world host=knomial(radix=4) world=knomial(radix=4)",
}


def trellis(*args: str, timeout: int = 300, env: dict | None = None):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("TRELLIS_")}
    full_env["TRELLIS_BUILD"] = str(BUILD)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "trellis", *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
        check=False,
    )


def plan(out: Path, scheme: str, *extra: str, hosts: int = 4, per_host: str = "4") -> Path:
    proc = trellis(
        "plan", "--hosts", str(hosts), "--ranks-per-host", per_host, "--scheme", scheme,
        "--out", str(out), *extra,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def said(stderr: str, collective: str) -> list[tuple[str, str]]:
    """(algorithm, source) of each choice verbose mode reported for the collective."""
    pattern = rf"^trellis: {collective} ranks=\d+(?: bytes=\d+)?: (\S+) \((\S+?):\d+: .*\)"
    return re.findall(pattern, stderr, re.M)


def global_reduction(ranks: int, layout: str, rules: str):
    proc = trellis(
        "run", "-np", str(ranks), "--topology", layout, "--rules", rules, "--verbose",
        str(PROGRAM), "--iters", "200", "--runs", "2",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(rf"ranks={ranks} .*errors=0", proc.stdout), proc.stdout
    return proc


@pytest.mark.parametrize("scheme", ["lam", "linear", "hier", "hier-split"])
def test_plan_trees_run_seed_000_configurations_on_4x4(tmp_path, scheme):
    """(a) lam, (b) linear, (c) hier, (d) hier-split with groups of 4: plan's tree files
    drive allreduce on 16 ranks laid out 4 x 4, and the results are right."""
    extra = ("--group", "4") if scheme == "hier-split" else ()
    out = plan(tmp_path, scheme, *extra)
    rules = out / f"{scheme}.rules"
    proc = global_reduction(16, str(out / "layout"), str(rules))
    assert said(proc.stderr, "allreduce") == [("tree", str(rules))], proc.stderr
    assert "layout: 16 ranks on 4 hosts (described)" in proc.stderr


@pytest.mark.parametrize("name", sorted(HIER_RULES))
def test_hier_rules_run_seed_000_configurations_on_4x4(name):
    proc = global_reduction(16, LAYOUT_4X4, HIER_RULES[name])
    assert said(proc.stderr, "allreduce") == [("hier", "TRELLIS_RULES")], proc.stderr


@pytest.mark.parametrize("scheme", ["lam", "hier", "knomial-hier"])
def test_plan_trees_serve_every_collective_that_takes_one(tmp_path, scheme):
    """bcast, reduce and allreduce over plan's trees on 3 hosts of 4+3+2 ranks: the
    checker's every case (counts, roots, types, in place) passes."""
    extra = ("--radix", "2") if scheme == "knomial-hier" else ()
    out = plan(tmp_path, scheme, *extra, hosts=3, per_host="4,3,2")
    rules = out / f"{scheme}.rules"
    proc = trellis(
        "run", "-np", "9", "--topology", str(out / "layout"), "--rules", str(rules),
        "--verbose", str(CHECKER), "--quick",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r", 0 failed$", proc.stdout, re.M), proc.stdout
    for collective in ("bcast", "reduce", "allreduce"):
        chosen = {algo for algo, _ in said(proc.stderr, collective)}
        # Non-commutative cases fall back where the tree is not in rank order.
        assert "tree" in chosen, (collective, proc.stderr)
    # The checker's WORLD-sized communicator in reversed order does not get WORLD's tree.
    assert re.search(r"passed over tree \(.*\) because .* is written for "
                     r"MPI_COMM_WORLD's rank order", proc.stderr), proc.stderr  # fmt: skip


def test_tree_file_falls_back_on_a_communicator_of_another_size(tmp_path):
    """A file for 16 ranks does not serve a 4-rank run: the next rule runs, and verbose
    mode says why."""
    out = plan(tmp_path, "lam")
    proc = trellis(
        "run", "-np", "4", "--rules", str(out / "lam.rules"), "--verbose", str(PROGRAM),
        "--iters", "50", "--runs", "1",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "errors=0" in proc.stdout
    assert re.search(r"passed over tree \(.*\) because .*written for 16 ranks; the "
                     r"communicator has 4", proc.stderr), proc.stderr  # fmt: skip


def test_verbose_names_every_rule_passed_over(tmp_path):
    """Two tree rules for 16 ranks on a 4-rank run: verbose mode names both, in order,
    with why, then the rule that ran (it named only the first)."""
    lam = plan(tmp_path / "lam", "lam") / "lam.tree"
    linear = plan(tmp_path / "linear", "linear") / "linear.tree"
    rules = tmp_path / "two.rules"
    rules.write_text(f"allreduce tree file={lam}\nallreduce tree file={linear}\n"
                     "allreduce knomial\n")  # fmt: skip
    proc = trellis(
        "run", "-np", "4", "--rules", str(rules), "--verbose", str(PROGRAM),
        "--iters", "50", "--runs", "1",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    line = next(ln for ln in proc.stderr.splitlines() if ln.startswith("trellis: allreduce "))
    assert line == (
        f"trellis: allreduce ranks=4 bytes=4: knomial ({rules}:3: allreduce knomial)"
        f"; passed over tree ({rules}:1: allreduce tree file={lam}) because {lam} is written "
        "for 16 ranks; the communicator has 4"
        f"; passed over tree ({rules}:2: allreduce tree file={linear}) because {linear} is "
        "written for 16 ranks; the communicator has 4"
    )


def test_layout_of_the_wrong_size_stops_the_job():
    proc = trellis("run", "-np", "3", "--topology", LAYOUT_4X4, str(PROGRAM), timeout=120)
    assert proc.returncode != 0
    assert "the layout describes 16 ranks; MPI_COMM_WORLD has 3" in proc.stderr


def test_bad_layout_is_reported_with_its_position():
    proc = trellis("run", "-np", "2", "--topology", "hosts=2 ranks_per_hots=1", str(PROGRAM))
    assert proc.returncode != 0
    assert re.search(r"trellis: TRELLIS_TOPOLOGY:1:\d+: .*ranks_per_hots", proc.stderr), proc.stderr


def test_bad_tree_file_is_reported_with_its_line(tmp_path):
    tree = tmp_path / "bad.tree"
    tree.write_text("trellis tree\nranks 2\nroot 0\nboth\nrank 0 parent none children 1\n"
                    "rank 1 parent 0\nrank 1 parent 0\n")  # fmt: skip
    proc = trellis("run", "-np", "2", "--rules", f"bcast tree file={tree}", str(PROGRAM))
    assert proc.returncode != 0
    assert f"{tree}:7:" in proc.stderr, proc.stderr


def test_verbose_mode_prints_the_layout_each_communicator_sees():
    proc = global_reduction(8, "hosts=2 ranks_per_host=4", "allreduce hier")
    assert "layout: 8 ranks on 2 hosts (described): host 0: 0-3 | host 1: 4-7" in proc.stderr


# Every collective of the three checkers, and the algorithms the built-in rules give a
# layout of several hosts (src/select/builtin.c).
CHECKERS = {
    "coll_check": ["bcast", "reduce", "allreduce", "barrier"],
    "coll_check_move": ["gather", "gatherv", "scatter", "scatterv", "allgather", "allgatherv",
                        "alltoall", "alltoallv", "alltoallw"],
    "coll_check_scan": ["reduce_scatter", "reduce_scatter_block", "scan", "exscan"],
}  # fmt: skip
HIERARCHICAL = {"hier", "hier_sharded", "multileader"}


@pytest.mark.parametrize("checker", sorted(CHECKERS))
def test_builtin_rules_run_hierarchies_on_several_hosts(checker):
    """No rules of the user's, 2 hosts x 2 ranks: every collective runs a hierarchical
    algorithm from a built-in rule (verbose shows it), every result checked."""
    proc = trellis(
        "run", "-np", "4", "--topology", "hosts=2 ranks_per_host=2", "--verbose",
        str(BUILD / "tests" / "mpi" / checker), "--quick",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r", 0 failed$", proc.stdout, re.M), proc.stdout
    for coll in CHECKERS[checker]:
        choices = said(proc.stderr, coll)
        assert choices, (coll, proc.stderr)
        assert all(source == "built-in" for _, source in choices), (coll, choices)
        assert {algo for algo, _ in choices} & HIERARCHICAL, (coll, choices)
