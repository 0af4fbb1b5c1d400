"""The built-in rules know hosts (issue 12): on a layout of several hosts every
collective gets a hierarchical algorithm, on one host the flat one it got before, and
explain says which built-in rule chose it and the reason written above that rule."""

import json

import pytest

from trellis import native

COLLECTIVES = [
    "bcast", "reduce", "allreduce", "barrier", "gather", "gatherv", "scatter", "scatterv",
    "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw", "reduce_scatter",
    "reduce_scatter_block", "scan", "exscan",
]  # fmt: skip
HIERARCHICAL = {"hier", "hier_sharded", "multileader"}
# 4 x 4, and the irregular shape: 3 hosts of 6, 5 and 5 ranks.
MULTI_HOST = [(16, "hosts=4 ranks_per_host=4"), (16, "hosts=3 ranks_per_host=6,5,5")]


@pytest.fixture(autouse=True)
def hand_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are of the rules written by hand: 4 x 4 is also a layout `trellis
    tune` measured (src/select/tuned.rules), so its tuned rules are left out."""
    monkeypatch.setenv("TRELLIS_TUNED", "off")


def choice(coll: str, ranks: int, layout: str, size: str = "16", *more: str) -> dict:
    """The built-in rules' choice (no user rules), as explain reports it."""
    args = ["explain", coll, "--ranks", str(ranks), "--rules", "", "--json", "--rank", "0"]
    args += ["--topology", layout, *more]
    if coll != "barrier":
        args += ["--bytes", size]
    return json.loads(native.info(*args))


@pytest.mark.parametrize("coll", COLLECTIVES)
def test_several_hosts_get_a_hierarchical_algorithm(coll: str) -> None:
    for ranks, layout in MULTI_HOST:
        data = choice(coll, ranks, layout)
        assert data["algorithm"] in HIERARCHICAL, (layout, data["rule"])
        assert data["rule"]["source"] == "built-in"
        assert "hosts=2-" in data["rule"]["text"]
        assert data["reason"], data["rule"]  # every built-in rule says why


@pytest.mark.parametrize("coll", COLLECTIVES)
def test_one_host_gets_the_flat_rules(coll: str) -> None:
    for layout in ("hosts=1 ranks_per_host=16", "hosts=16 ranks_per_host=1"):
        data = choice(coll, 16, layout)
        assert data["algorithm"] not in HIERARCHICAL, (layout, data["rule"])
        assert "hosts=" not in data["rule"]["text"]
        assert data["reason"], data["rule"]


@pytest.mark.parametrize(
    ("coll", "size", "expected"),
    [
        ("bcast", "1M", "hier_sharded"),
        ("allreduce", "1M", "hier_sharded"),
        ("allgather", "64K", "multileader"),
        ("allgatherv", "64K", "multileader"),
    ],
)
def test_large_messages_get_the_bandwidth_forms(coll: str, size: str, expected: str) -> None:
    assert choice(coll, 16, MULTI_HOST[0][1], size)["algorithm"] == expected


def test_large_allreduce_across_four_hosts_is_pipelined() -> None:
    """From 1 MiB on 4 hosts the pieces overlap their host steps with the transfers
    (docs/notebook/builtin-rules-hosts.md, pipelined hier_sharded); below, one piece."""
    assert "pipeline=3" in choice("allreduce", 16, MULTI_HOST[0][1], "1M")["rule"]["text"]
    assert "pipeline" not in choice("allreduce", 16, MULTI_HOST[0][1], "512K")["rule"]["text"]


def test_large_alltoall_blocks_stay_flat() -> None:
    """Node-aware alltoall moves every byte three times: large blocks go flat."""
    assert choice("alltoall", 16, MULTI_HOST[0][1], "64K")["algorithm"] not in HIERARCHICAL


@pytest.mark.parametrize("coll", ["scan", "exscan", "reduce_scatter", "reduce_scatter_block"])
def test_rank_order_forms_need_block_placement(coll: str) -> None:
    data = choice(coll, 16, "hosts=4 ranks_per_host=4 placement=round-robin")
    assert data["algorithm"] not in HIERARCHICAL, data["rule"]


def test_noncommutative_allreduce_on_several_hosts() -> None:
    """hier_sharded's ring steps need a commutative operation: passed over for hier,
    which keeps rank order on block placement; round-robin goes flat."""
    block = choice("allreduce", 16, MULTI_HOST[0][1], "1M", "--noncommutative")
    assert block["algorithm"] == "hier"
    assert any("hier_sharded" in r["text"] for r in block["passed_over"])
    rr = choice("allreduce", 16, "hosts=4 ranks_per_host=4 placement=round-robin", "16",
                "--noncommutative")  # fmt: skip
    assert rr["algorithm"] not in HIERARCHICAL


@pytest.mark.parametrize("coll", COLLECTIVES)
def test_tuned_layout_cites_its_measurements(coll: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the tuned rules (the default), on the layout they were measured on a tuned
    rule, where one matches, gives the measurements behind it as its reason (a run's
    rounds, or an amendment's repetitions: bench/tune_amendments.rules); elsewhere the
    hand rules serve."""
    monkeypatch.delenv("TRELLIS_TUNED")
    for size in ("16", "64K", "1M"):
        data = choice(coll, *MULTI_HOST[0], size)
        assert data["rule"]["source"] in {"tuned", "built-in"}
        if data["rule"]["source"] == "tuned":
            assert "ranks=16 hosts=4 ranks_per_host=4" in data["rule"]["text"]
            assert " us" in data["reason"], data
            assert "rounds" in data["reason"] or "repetitions" in data["reason"], data


def test_explain_says_the_rule_and_its_reason(run_trellis) -> None:
    proc = run_trellis(
        "explain", "gather", "--ranks", "16", "--bytes", "8", "--layout", "hosts=4 ranks_per_host=4"
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    chosen = next(i for i, line in enumerate(lines) if line.startswith("chosen by: built-in:"))
    assert lines[chosen].split()[-1] == "hier"
    assert lines[chosen + 1].startswith("reason: Several hosts: gather and scatter through")
    assert "the rules saw: hosts=4 ranks_per_host=4 placement=block" in lines
