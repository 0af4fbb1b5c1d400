"""Every algorithm of the C table, forced by a rule, explained at awkward rank counts,
sizes and roots: the GOAL text must be well formed, every send must pair with a receive
across the ranks, the steps must be able to run to completion, and the data must reach
where the collective says it goes (the root of a reduce hears from every rank, ...).

The schedules come through trellis.cmd_explain.explain (the `trellis explain` command's
function) calling `trellis-info explain --json`."""

import json
from typing import Any

import pytest
from goal_text import causal_reach, check_messages_pair, parse_goal

from trellis import native
from trellis.cmd_explain import explain

TABLE: list[dict[str, Any]] = json.loads(native.info("algorithms"))
ALGORITHMS = [a for a in TABLE if not a["mpi"]]

RANKS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16]
COUNTS = [0, 1, 7, 1000]  # elements of ELEM_SIZE bytes
BIG_COUNT, BIG_RANKS = 100003, [3, 8, 13]  # several pipeline segments and ring pieces
ELEM_SIZE = 8


def variant_params(algo: dict[str, Any]) -> str:
    """Every parameter of the algorithm set away from its default, as a rule writes it."""
    words = []
    for p in algo["params"]:
        if p["kind"] == "int":
            value = str(min(max(3, p["min"]), p["max"]))
        elif p["kind"] == "size":
            value = "1K"
        else:  # another algorithm of p["of"]: the last one of the table, not the default
            others = [
                a["name"]
                for a in ALGORITHMS
                if a["collective"] == p["of"] and a["name"] != p["default"]
            ]
            value = others[-1]
        words.append(f"{p['name']}={value}")
    return " ".join(words)


def cases() -> list[Any]:
    out = []
    for algo in ALGORITHMS:
        name = f"{algo['collective']}-{algo['name']}"
        out.append(pytest.param(algo, "", id=name))
        if algo["params"]:
            params = variant_params(algo)
            out.append(pytest.param(algo, params, id=f"{name}-{params.replace(' ', ',')}"))
    return out


def shapes(collective: str) -> list[tuple[int, int, int | None]]:
    """(ranks, count, root) to explain."""
    rooted = collective in {"bcast", "reduce"}
    counts = [0] if collective == "barrier" else COUNTS
    out = []
    for size in RANKS:
        roots: list[int | None] = sorted({0, size - 1, size // 2}) if rooted else [None]
        for count in counts:
            out += [(size, count, root) for root in roots]
        if collective != "barrier" and size in BIG_RANKS:
            out += [(size, BIG_COUNT, root) for root in roots]
    return out


def check_one(algo: dict[str, Any], params: str, size: int, count: int, root: int | None) -> None:
    collective = algo["collective"]
    rule = f"{collective} {algo['name']} {params}".strip()
    data = json.loads(
        explain(
            collective,
            ranks=size,
            nbytes=None if collective == "barrier" else count * ELEM_SIZE,
            elem_size=None if collective == "barrier" else ELEM_SIZE,
            root=root,
            rules=rule,
            form="json",
        )
    )
    # The rule, not a fallback, chose the algorithm.
    assert data["algorithm"] == algo["name"]
    assert data["rule"]["source"] == "TRELLIS_RULES"
    assert data["rejected"] is None

    schedules = data["schedules"]
    goal = f"num_ranks {size}\n" + "".join(s["goal"] for s in schedules)
    num_ranks, ranks = parse_goal(goal)
    assert num_ranks == size
    assert [r.rank for r in ranks] == list(range(size))
    for r, s in zip(ranks, schedules, strict=True):
        assert len(r.ops) == s["nsteps"]

    messages = check_messages_pair(ranks)
    reach = causal_reach(ranks)
    everyone = (1 << size) - 1
    if size == 1:
        assert messages == 0
        return
    nbytes = count * ELEM_SIZE
    if collective == "barrier" or (collective == "allreduce" and count > 0):
        for rank, mask in reach.items():
            assert mask == everyone, f"rank {rank} completes without hearing from every rank"
    elif collective == "reduce" and count > 0:
        assert reach[root] == everyone, "the root completes without every contribution"
    elif collective == "bcast" and count > 0:
        for r in ranks:
            assert reach[r.rank] >> root & 1, f"rank {r.rank} never hears from the root"
            if r.rank != root:
                got = sum(op.nbytes for _, op in r.of_kind("recv"))
                assert got >= nbytes, f"rank {r.rank} receives {got} of {nbytes} bytes"


@pytest.mark.parametrize(("algo", "params"), cases())
def test_schedules_pair_up_and_complete(algo: dict[str, Any], params: str) -> None:
    failures = []
    for size, count, root in shapes(algo["collective"]):
        try:
            check_one(algo, params, size, count, root)
        except (AssertionError, native.TrellisError) as err:
            failures.append(f"ranks={size} count={count} root={root}: {err}")
    assert not failures, f"{len(failures)} failing shapes:\n" + "\n".join(failures[:10])


def test_every_algorithm_is_covered() -> None:
    covered = {(a["collective"], a["name"]) for a in ALGORITHMS}
    assert len(covered) == len(TABLE) - 4  # all but the four "mpi" entries
    assert {a["collective"] for a in ALGORITHMS} == {"bcast", "reduce", "allreduce", "barrier"}
