"""Every algorithm of the C table, forced by a rule, explained at awkward rank counts,
sizes and roots: the GOAL text must be well formed, every send must pair with a receive
across the ranks, the steps must be able to run to completion, and the data must reach
where the collective says it goes, in two ways computed here, apart from the C code:

- who hears from whom (goal_text.causal_reach) and how many bytes move: the root of a
  reduce or gather hears from every rank, every rank of a scatter from the root, every
  rank of an allgather, alltoall or reduce_scatter from every rank, rank r of a scan
  from ranks 0..r (exscan: 0..r-1), ...;
- on the smaller shapes, every element, run through the steps (dataflow.py): it lands
  where the collective's contract puts it, made of exactly the right contributions, in
  rank order for algorithms that take non-commutative operations, with no step outside
  its buffers and no two steps of a rank racing.

The schedules come through trellis.cmd_explain.explain (the `trellis explain` command's
function) calling `trellis-info explain --json`."""

import json
from typing import Any

import pytest
from dataflow import (
    REDUCTIONS,
    call_buffers,
    check_results,
    parse_steps,
    reduce_scatter_counts,
    run,
)
from goal_text import RankSchedule, causal_reach, check_messages_pair, parse_goal

from trellis import native
from trellis.cmd_explain import explain

TABLE: list[dict[str, Any]] = json.loads(native.info("algorithms"))
# `tree` runs a file written for one size: the threads tier (tests/unit/check_layouts.c)
# and tests/python/test_topology_runs.py check it on generated and planned files.
# The intercommunicator algorithms (inter_*) serve intercommunicator calls
# only: the threads tier (tests/unit/check_inter.c) checks them, and
# test_explain.py their explanations (--remote-ranks).
INTER = [a for a in TABLE if a["name"].startswith("inter_")]
ALGORITHMS = [a for a in TABLE if not a["mpi"] and a["name"] != "tree" and a not in INTER]
TREES = [a for a in TABLE if a["name"] == "tree"]

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
        elif p["kind"] == "levels":
            value = "socket,host,world"
        elif p["kind"] == "choice":
            value = next(c for c in p["choices"].split("|") if c != p["default"])
        elif p["kind"] == "level algorithm":
            # linear serves every lower level (reduce and bcast at once, or a barrier's
            # tree); otherwise the table's last other algorithm a level can run.
            names = [a["name"] for a in ALGORITHMS if a["collective"] == p["of"]]
            others = [n for n in names if n not in {p["default"], "hier"}]
            value = "linear" if "linear" in others else others[-1]
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


ROOTED = frozenset({"bcast", "reduce", "gather", "gatherv", "scatter", "scatterv"})
COLLECTIVES = frozenset(
    {
        "bcast", "reduce", "allreduce", "barrier",
        "gather", "gatherv", "scatter", "scatterv",
        "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw",
        "reduce_scatter", "reduce_scatter_block", "scan", "exscan",
        "neighbor_allgather", "neighbor_allgatherv", "neighbor_alltoall", "neighbor_alltoallv",
        "neighbor_alltoallw",
    }
)  # fmt: skip
# Element by element (dataflow.py) on shapes up to this many elements per rank's block.
SIMULATE_COUNT = 7


def counts_for(collective: str, size: int) -> list[int]:
    """Elements in --bytes: the message, one rank's block, or (reduce_scatter_block) a
    whole vector that splits into `size` equal blocks."""
    if collective == "barrier":
        return [0]
    if collective == "reduce_scatter_block":
        return [size * c for c in COUNTS[:-1]] + [size * (COUNTS[-1] // size)]
    return COUNTS


def shapes(collective: str) -> list[tuple[int, int, int | None]]:
    """(ranks, count, root) to explain."""
    out = []
    for size in RANKS:
        roots: list[int | None] = (
            sorted({0, size - 1, size // 2}) if collective in ROOTED else [None]
        )
        for count in counts_for(collective, size):
            out += [(size, count, root) for root in roots]
        if collective != "barrier" and size in BIG_RANKS:
            big = BIG_COUNT
            if collective == "reduce_scatter_block":
                big -= BIG_COUNT % size
            out += [(size, big, root) for root in roots]
    return out


def block_counts(collective: str, size: int, count: int) -> list[int]:
    """Each rank's block in elements: count for the block collectives (explain gives
    the v and w variants every block alike), the split vector for reduce_scatter(_block),
    the message otherwise."""
    if collective in {"reduce_scatter", "reduce_scatter_block"}:
        return reduce_scatter_counts(collective, size, count)
    return [count] * size


def received(rank: RankSchedule) -> int:
    return sum(op.nbytes for _, op in rank.of_kind("recv"))


def sent(rank: RankSchedule) -> int:
    return sum(op.nbytes for _, op in rank.of_kind("send"))


def check_reach(  # noqa: PLR0912, PLR0915 -- one branch per kind of collective
    collective: str, ranks: list[RankSchedule], count: int, root: int | None
) -> None:
    """Who must hear from whom (causal_reach, over steps and messages), and the least
    number of bytes a rank must receive (or send) for the data to get where it goes."""
    size = len(ranks)
    reach = causal_reach(ranks)
    everyone = (1 << size) - 1
    nbytes = count * ELEM_SIZE
    blocks = [b * ELEM_SIZE for b in block_counts(collective, size, count)]
    if collective == "barrier" or (collective == "allreduce" and count > 0):
        for rank, mask in reach.items():
            assert mask == everyone, f"rank {rank} completes without hearing from every rank"
    elif count == 0:
        return
    elif collective == "reduce":
        assert reach[root] == everyone, "the root completes without every contribution"
    elif collective == "bcast":
        for r in ranks:
            assert reach[r.rank] >> root & 1, f"rank {r.rank} never hears from the root"
            if r.rank != root:
                got = received(r)
                assert got >= nbytes, f"rank {r.rank} receives {got} of {nbytes} bytes"
    elif collective in {"gather", "gatherv"}:
        assert reach[root] == everyone, "the root completes without every rank's block"
        need = sum(blocks) - blocks[root]
        got = received(ranks[root])
        assert got >= need, f"the root receives {got} of the others' {need} bytes"
        for r in ranks:
            if r.rank != root:
                assert sent(r) >= blocks[r.rank], f"rank {r.rank} does not send its block"
    elif collective in {"scatter", "scatterv"}:
        for r in ranks:
            assert reach[r.rank] >> root & 1, f"rank {r.rank} never hears from the root"
            if r.rank != root:
                got = received(r)
                assert got >= blocks[r.rank], f"rank {r.rank} receives {got} of {nbytes} bytes"
        need = sum(blocks) - blocks[root]
        assert sent(ranks[root]) >= need, "the root does not send the others' blocks"
    elif collective in {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"}:
        for r in ranks:
            assert reach[r.rank] == everyone, f"rank {r.rank} misses some rank's block"
            need = sum(blocks) - blocks[r.rank]
            got = received(r)
            assert got >= need, f"rank {r.rank} receives {got} of the others' {need} bytes"
            if collective.startswith("alltoall"):
                assert sent(r) >= need, f"rank {r.rank} sends {sent(r)} of {need} bytes"
    elif collective in {"reduce_scatter", "reduce_scatter_block"}:
        for r in ranks:
            if blocks[r.rank]:  # a rank with an empty block need not hear anything
                assert reach[r.rank] == everyone, f"rank {r.rank} misses a contribution"
                got = received(r)
                assert got >= blocks[r.rank], f"rank {r.rank} receives {got} bytes"
    elif collective.startswith("neighbor_"):  # explain's default graph: a periodic ring
        for r in ranks:
            for peer in ((r.rank - 1) % size, (r.rank + 1) % size):
                assert reach[r.rank] >> peer & 1, f"rank {r.rank} never hears from {peer}"
    elif collective in {"scan", "exscan"}:
        for r in ranks:
            upto = r.rank + 1 if collective == "scan" else r.rank
            lower = (1 << upto) - 1
            assert reach[r.rank] & lower == lower, f"rank {r.rank} misses a lower rank"
            if r.rank > 0:
                got = received(r)
                assert got >= nbytes, f"rank {r.rank} receives {got} of {nbytes} bytes"


def needs_commutative(algo: dict[str, Any], params: str) -> bool:
    """Whether the algorithm, or one its parameters name (a level's too), takes
    commutative operations only (the rules pass it over for a non-commutative one).
    The hierarchies' layouts here are block, where they keep rank order."""
    given = dict(word.split("=", 1) for word in params.split())
    spec = next((p for p in algo["params"] if p["kind"] == "levels"), None)
    levels = None
    if spec:
        levels = {lv.split(":")[0] for lv in given.get("levels", spec["default"]).split(",")}
    for p in algo["params"]:
        if p["kind"] == "level algorithm" and levels is not None and p["name"] not in levels:
            continue  # a level the hierarchy does not have
        if p["kind"] in {"algorithm", "level algorithm"}:
            name = given.get(p["name"], p["default"]).split("(")[0]
            other = next(a for a in ALGORITHMS if (a["collective"], a["name"]) == (p["of"], name))
            if needs_commutative(other, ""):
                return True
    return "commutative" in algo["restrictions"]


def layout_for(algo: dict[str, Any], size: int) -> str | None:
    """The hierarchies and the neighbourhood's locality: two hosts of two sockets each,
    block placement (one rank: no layout, one host)."""
    if not (algo["name"].startswith("hier") or algo["name"] == "locality") or size < 2:
        return None
    return f"hosts=2 ranks_per_host={(size + 1) // 2},{size // 2} sockets_per_host=2"


def explain_json(  # noqa: PLR0913 -- one keyword per option of explain
    algo: dict[str, Any],
    params: str,
    size: int,
    count: int,
    root: int | None,
    *,
    noncommutative: bool = False,
) -> dict[str, Any]:
    collective = algo["collective"]
    rule = f"{collective} {algo['name']} {params}".strip()
    data: dict[str, Any] = json.loads(
        explain(
            collective,
            ranks=size,
            nbytes=None if collective == "barrier" else count * ELEM_SIZE,
            elem_size=None if collective == "barrier" else ELEM_SIZE,
            root=root,
            noncommutative=noncommutative,
            rules=rule,
            topology=layout_for(algo, size),
            form="json",
        )
    )
    # The rule, not a fallback, chose the algorithm.
    assert data["algorithm"] == algo["name"]
    assert data["rule"]["source"] == "TRELLIS_RULES"
    assert data["rejected"] is None
    return data


def simulate(data: dict[str, Any], count: int, root: int | None) -> None:
    """Run the steps element by element and compare with the collective's contract."""
    scheds = [parse_steps(s["steps"]) for s in data["schedules"]]
    assert [s.rank for s in scheds] == list(range(data["ranks"]))
    start, want = call_buffers(data["collective"], data["ranks"], count, root)
    buffers = run(scheds, start, commutative=data["commutative"])
    check_results(buffers, want, commutative=data["commutative"])


def check_one(algo: dict[str, Any], params: str, size: int, count: int, root: int | None) -> None:
    collective = algo["collective"]
    data = explain_json(algo, params, size, count, root)
    schedules = data["schedules"]
    goal = f"num_ranks {size}\n" + "".join(s["goal"] for s in schedules)
    num_ranks, ranks = parse_goal(goal)
    assert num_ranks == size
    assert [r.rank for r in ranks] == list(range(size))
    for r, s in zip(ranks, schedules, strict=True):
        assert len(r.ops) == s["nsteps"]

    messages = check_messages_pair(ranks)
    if size == 1:
        causal_reach(ranks)
        assert messages == 0
    else:
        check_reach(collective, ranks, count, root)
    if max(block_counts(collective, size, count)) <= SIMULATE_COUNT:
        simulate(data, count, root)
        # Algorithms that take any operation must keep the ranks' order.
        if collective in REDUCTIONS and count and not needs_commutative(algo, params):
            simulate(explain_json(algo, params, size, count, root, noncommutative=True),
                     count, root)  # fmt: skip


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
    assert len(covered) == len(ALGORITHMS)
    assert {a["collective"] for a in ALGORITHMS} == COLLECTIVES
    # Every collective has an "mpi" entry besides, which has no schedule to check.
    assert len(covered) == len(TABLE) - len(COLLECTIVES) - len(TREES) - len(INTER)
    assert {a["collective"] for a in TABLE if a["mpi"]} == COLLECTIVES
