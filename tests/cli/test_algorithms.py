"""`trellis algorithms`: the table and its JSON against the C table in the source."""

import json
import re
from pathlib import Path

import pytest

from trellis import native
from trellis.cli import main

REPO = Path(__file__).resolve().parents[2]
# The registry the table is expanded from, and the collectives each given "mpi".
REGISTRY_SOURCE = REPO / "src" / "algo" / "registry.h"
COLLECTIVES_SOURCE = REPO / "src" / "algo" / "algo.h"
COLLECTIVES = {
    "bcast", "reduce", "allreduce", "barrier",
    "gather", "gatherv", "scatter", "scatterv",
    "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw",
    "reduce_scatter", "reduce_scatter_block", "scan", "exscan",
    "neighbor_allgather", "neighbor_allgatherv", "neighbor_alltoall", "neighbor_alltoallv",
    "neighbor_alltoallw",
}  # fmt: skip
ENTRY_KEYS = {"collective", "name", "description", "cost", "restrictions", "params", "mpi"}
PARAM_KEYS = {"name", "kind", "default", "min", "max", "help", "of", "choices", "required", "runs"}


def source_table() -> set[tuple[str, str]]:
    """(collective, algorithm) of every entry of trl_algorithms, read from the C source
    itself (not through trellis-info): the registry's ALGO and CHECKED entries (and its
    TRL_NEIGHBOR_LINEAR and TRL_NEIGHBOR_LOCALITY ones), and
    "mpi" for every collective of TRL_COLL_MAP."""
    text = REGISTRY_SOURCE.read_text()
    body = text[text.index("#define TRL_ALGORITHMS") :]  # past the comment's examples
    entries = {
        (coll.lower(), name)
        for coll, name in re.findall(r"\b(?:ALGO|CHECKED)\(\s*(\w+),\s*\"(\w+)\"", body)
    }
    # The neighbourhood collectives' entries, made by the registry's two macros.
    entries |= {
        (coll.lower(), kind.lower())
        for kind, coll in re.findall(r"\bTRL_NEIGHBOR_(LINEAR|LOCALITY)\(ALGO, (\w+)", body)
    }
    assert len(entries) >= 100, f"could not read the registry from {REGISTRY_SOURCE}"
    collectives = re.findall(r"X\(\w+, \"(\w+)\", \"MPI_\w+\"\)", COLLECTIVES_SOURCE.read_text())
    assert set(collectives) == COLLECTIVES, f"could not read TRL_COLL_MAP from {COLLECTIVES_SOURCE}"
    return entries | {(coll, "mpi") for coll in collectives}


def test_json_lists_every_algorithm_of_the_c_table(run_trellis) -> None:
    proc = run_trellis("algorithms", "--json")
    assert proc.returncode == 0, proc.stderr
    table = json.loads(proc.stdout)
    listed = [(a["collective"], a["name"]) for a in table]
    assert len(listed) == len(set(listed)), "an algorithm is listed twice"
    assert set(listed) == source_table()


def test_json_entries_are_complete_and_consistent(run_trellis) -> None:
    table = json.loads(run_trellis("algorithms", "--json").stdout)
    names = {(a["collective"], a["name"]) for a in table}
    collectives = {a["collective"] for a in table}
    assert collectives == COLLECTIVES
    for algo in table:
        where = f"{algo['collective']} {algo['name']}"
        assert set(algo) == ENTRY_KEYS, where
        assert algo["description"], where
        assert algo["cost"], where
        assert set(algo["restrictions"]) <= {
            "commutative",
            "placement=block",
            "intercommunicator",
        }, where
        assert ("intercommunicator" in algo["restrictions"]) == algo["name"].startswith("inter_"), (
            where
        )
        assert algo["mpi"] == (algo["name"] == "mpi"), where
        for param in algo["params"]:
            assert set(param) == PARAM_KEYS, where
            assert param["help"], where
            assert param["required"] == (param["default"] is None), where
            names_algorithm = param["kind"] in {"algorithm", "level algorithm"}
            # What it may name (the tuner's candidates): its collective's algorithms, the
            # default among them.
            assert (param["runs"] is not None) == names_algorithm, where
            if names_algorithm:
                assert param["of"] in collectives, where
                assert (param["of"], param["default"]) in names, where
                assert param["default"] in param["runs"], where
                assert all((param["of"], n) in names for n in param["runs"]), where
            elif param["kind"] == "choice":
                assert param["default"] in param["choices"].split("|"), where
            elif param["kind"] in {"levels", "file"}:
                assert param["of"] is None, where
                assert param["min"] is None, where
            else:
                assert param["kind"] in {"int", "size"}, where
                assert param["of"] is None, where
                default = native.parse_size(param["default"])
                assert param["min"] <= default <= param["max"], where
    # Every collective can always be handed to the MPI library.
    assert {c for c, n in names if n == "mpi"} == collectives


def test_restrictions_follow_the_source(run_trellis) -> None:
    table = json.loads(run_trellis("algorithms", "--json").stdout)
    needs = {(a["collective"], a["name"]) for a in table if "commutative" in a["restrictions"]}
    # Rabenseifner's and the ring's reduce-scatter combine blocks out of rank order.
    assert ("allreduce", "ring") in needs
    assert ("reduce", "linear") not in needs
    # So do the ring and recursive halving of reduce_scatter(_block); the others keep
    # the ranks' order, and collectives without an operation have nothing to commute.
    for coll in ("reduce_scatter", "reduce_scatter_block"):
        assert (coll, "ring") in needs
        assert (coll, "recursive_halving") in needs
        assert (coll, "reduce_scatterv") not in needs
    assert not {(c, n) for c, n in needs if c in {"scan", "exscan"}}
    assert {c for c, _ in needs} <= {
        "reduce", "allreduce", "reduce_scatter", "reduce_scatter_block", "scan", "exscan"
    }  # fmt: skip
    # The hierarchical forms that keep rank order across hosts need hosts of
    # consecutive ranks.
    block = {(a["collective"], a["name"]) for a in table if "placement=block" in a["restrictions"]}
    assert block == {
        ("reduce_scatter", "hier"), ("reduce_scatter_block", "hier"), ("scan", "hier"),
        ("exscan", "hier")
    }  # fmt: skip


def test_table_has_a_row_per_algorithm(run_trellis) -> None:
    proc = run_trellis("algorithms", "--wide")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:3] == ["collective", "algorithm", "needs"]
    rows = {tuple(line.split()[:2]): line for line in lines[1:]}
    table = json.loads(run_trellis("algorithms", "--json").stdout)
    assert len(lines) == len(table) + 1
    for algo in table:
        row = rows[(algo["collective"], algo["name"])]
        assert algo["description"] in row
        assert algo["cost"] in row
        for param in algo["params"]:
            default = param["default"] if not param["required"] else f"<{param['kind']}>"
            assert f"{param['name']}={default}" in row
        for restriction in algo["restrictions"]:
            assert restriction in row


def test_collective_filter(run_trellis) -> None:
    everything = json.loads(run_trellis("algorithms", "--json").stdout)
    proc = run_trellis("algorithms", "--json", "--collective", "reduce")
    assert proc.returncode == 0, proc.stderr
    reduce_only = json.loads(proc.stdout)
    assert reduce_only == [a for a in everything if a["collective"] == "reduce"]
    assert len(reduce_only) >= 2


def test_collective_filter_for_every_collective(capsys) -> None:
    # In process (the command's main), to spare a Python start per collective.
    assert main(["algorithms", "--json"]) == 0
    everything = json.loads(capsys.readouterr().out)
    for collective in sorted(COLLECTIVES):
        assert main(["algorithms", "--json", "--collective", collective]) == 0
        only = json.loads(capsys.readouterr().out)
        assert only == [a for a in everything if a["collective"] == collective]
        assert len(only) >= 2, collective  # "mpi" and at least one of Trellis' own
        assert main(["algorithms", "--wide", "--collective", collective]) == 0
        rows = capsys.readouterr().out.splitlines()[1:]
        assert {row.split()[0] for row in rows} == {collective}
        assert len(rows) == len(only)


@pytest.mark.parametrize("columns", [80, 120])
def test_the_default_table_fits_the_terminal(run_trellis, columns) -> None:
    """Issue 35: lines of up to 399 characters. Each algorithm: a line of collective,
    name, restrictions and parameters, then its cost and description, indented."""
    proc = run_trellis("algorithms", env={"COLUMNS": str(columns)})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert max(len(line) for line in lines) <= columns
    table = json.loads(run_trellis("algorithms", "--json").stdout)
    heads = [line.split()[:2] for line in lines[2:] if not line.startswith(" ")]
    assert heads == [[a["collective"], a["name"]] for a in table]
    text = " ".join(" ".join(line.split()) for line in lines)
    for algo in table:
        assert " ".join(f"{algo['cost']}: {algo['description']}".split()) in text


def test_unknown_collective_is_an_error(run_trellis) -> None:
    proc = run_trellis("algorithms", "--collective", "alltoallz")
    assert proc.returncode == 2
    assert "unknown collective 'alltoallz'" in proc.stderr
    # The message lists every collective there is.
    listed = proc.stderr[proc.stderr.index("(one of ") + len("(one of ") :].split(")")[0]
    assert set(listed.split(", ")) == COLLECTIVES
    assert proc.stdout == ""
