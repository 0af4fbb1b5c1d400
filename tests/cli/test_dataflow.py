"""The element-by-element run used by the schedule tests catches what it is meant to
catch: data in the wrong place, a wrong order of combination, steps outside their
buffers, a write to a send buffer, and steps of a rank that race."""

import pytest
from dataflow import (
    DataflowError,
    call_buffers,
    check_results,
    parse_steps,
    reduce_scatter_counts,
    run,
)

# A linear gather of 2-element blocks to root 0 on 3 ranks.
GATHER = [
    """rank 0: 5 steps, scratch 0 elements
  l1: copy   send+0 -> recv+0 x2
  l2: recv   recv+2 from 1 x2 tag 0
  l3: recv   recv+4 from 2 x2 tag 0
  l4: nop    x0 after l1, l2
  l5: nop    x0 after l4, l3
""",
    """rank 1: 1 steps, scratch 0 elements
  l1: send   send+0 to 0 x2 tag 0
""",
    """rank 2: 1 steps, scratch 0 elements
  l1: send   send+0 to 0 x2 tag 0
""",
]

# A linear reduce of 1 element to root 0 on 3 ranks, in rank order: x0 op (x1 op x2).
REDUCE = [
    """rank 0: 4 steps, scratch 1 elements
  l1: recv   recv+0 from 2 x1 tag 0
  l2: recv   scratch+0 from 1 x1 tag 0
  l3: reduce scratch+0 -> recv+0 x1 after l1, l2
  l4: reduce send+0 -> recv+0 x1 after l3
""",
    """rank 1: 1 steps, scratch 0 elements
  l1: send   send+0 to 0 x1 tag 0
""",
    """rank 2: 1 steps, scratch 0 elements
  l1: send   send+0 to 0 x1 tag 0
""",
]


def outcome(texts: list[str], collective: str, count: int, *, commutative: bool) -> None:
    scheds = [parse_steps(t) for t in texts]
    start, want = call_buffers(collective, len(scheds), count, 0)
    check_results(run(scheds, start, commutative=commutative), want, commutative=commutative)


def test_good_schedules() -> None:
    outcome(GATHER, "gather", 2, commutative=True)
    outcome(REDUCE, "reduce", 1, commutative=False)


def test_parse_steps() -> None:
    s = parse_steps(GATHER[0])
    assert (s.rank, s.scratch, len(s.steps)) == (0, 0, 5)
    assert s.steps[1].kind == "recv"
    assert (s.steps[1].dst, s.steps[1].peer, s.steps[1].count) == (("recv", 2), 1, 2)
    assert s.steps[4].deps == (3, 2)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (GATHER[1].replace("1 steps", "2 steps"), "header says 2"),
        (GATHER[1].replace("l1: send", "l2: send"), "expected label l1"),
        (GATHER[1].replace("send+0 to 0", "send+0 towards 0"), "malformed send"),
        (GATHER[1].replace("send ", "sned "), "not a step"),
        (GATHER[0].replace("after l1, l2", "after l1, l7"), "does not come before"),
    ],
)
def test_malformed_steps_are_rejected(bad: str, message: str) -> None:
    with pytest.raises(DataflowError, match=message):
        parse_steps(bad)


@pytest.mark.parametrize(
    ("texts", "message"),
    [
        # Rank 2's block lands in rank 1's slot and the other way round.
        (
            [
                GATHER[0]
                .replace("recv+2 from 1", "recv+4 from 1")
                .replace("recv+4 from 2", "recv+2 from 2"),
                *GATHER[1:],
            ],
            "wrong elements",
        ),
        # The root forgets its own block.
        (
            [GATHER[0].replace("copy   send+0 -> recv+0 x2", "nop    x0"), *GATHER[1:]],
            "recv\\+0 holds nothing defined",
        ),
        ([GATHER[0].replace("recv+4 from 2", "recv+5 from 2"), *GATHER[1:]], "past the end"),
        (
            [GATHER[0].replace("send+0 -> recv+0", "recv+0 -> send+0"), *GATHER[1:]],
            "writes the send buffer",
        ),
        ([GATHER[0], GATHER[1].replace("tag 0", "tag 1"), GATHER[2]], "no send from 1 tag 0"),
    ],
)
def test_misplaced_data_is_caught(texts: list[str], message: str) -> None:
    with pytest.raises(DataflowError, match=message):
        outcome(texts, "gather", 2, commutative=True)


def test_order_of_combination() -> None:
    # Rank 0 folds its own data in first: x1 op (x0 op x2), right only if commutative.
    l3 = "l3: reduce scratch+0 -> recv+0 x1 after l1, l2"
    l4 = "l4: reduce send+0 -> recv+0 x1 after l3"
    root = REDUCE[0].replace(l3, "l3: reduce send+0 -> recv+0 x1 after l1")
    root = root.replace(l4, "l4: reduce scratch+0 -> recv+0 x1 after l2, l3")
    own_first = [root, *REDUCE[1:]]
    outcome(own_first, "reduce", 1, commutative=True)
    with pytest.raises(DataflowError, match="holds r1\\[0\\] op r0\\[0\\] op r2\\[0\\]"):
        outcome(own_first, "reduce", 1, commutative=False)


def test_races_are_caught() -> None:
    # The reduce reads the scratch that a receive may still be writing.
    racy = [REDUCE[0].replace("after l1, l2", "after l1"), *REDUCE[1:]]
    with pytest.raises(DataflowError, match="l2 and l3 both touch scratch\\+0"):
        outcome(racy, "reduce", 1, commutative=True)
    # Two reduces into one buffer in either order: fine for a commutative operation.
    either = [REDUCE[0].replace("send+0 -> recv+0 x1 after l3", "send+0 -> recv+0 x1 after l1"),
              *REDUCE[1:]]  # fmt: skip
    outcome(either, "reduce", 1, commutative=True)
    with pytest.raises(DataflowError, match="l3 and l4 both touch recv\\+0"):
        outcome(either, "reduce", 1, commutative=False)


# The linear reduce with the copy of a receive folded into the first reduce
# (trl_sched_finish): recv = x1 op x2, then x0 op that.
FOLDED = [
    """rank 0: 4 steps, scratch 2 elements
  l1: recv   scratch+0 from 1 x1 tag 0
  l2: recv   scratch+1 from 2 x1 tag 0
  l3: reduce scratch+0, scratch+1 -> recv+0 x1 after l1, l2
  l4: reduce send+0 -> recv+0 x1 after l3
""",
    *REDUCE[1:],
]


def test_folded_copy() -> None:
    outcome(FOLDED, "reduce", 1, commutative=False)
    # Its second operand is read like the first: unordered with the receive, a race.
    racy = [FOLDED[0].replace("x1 after l1, l2", "x1 after l1"), *FOLDED[1:]]
    with pytest.raises(DataflowError, match="l2 and l3 both touch scratch\\+1"):
        outcome(racy, "reduce", 1, commutative=True)
    # It overwrites recv+0, so another reduce into it must be ordered with it even when
    # the operation is commutative (two plain reduces need not be).
    either = [FOLDED[0].replace("x1 after l3", "x1 after l1"), *FOLDED[1:]]
    with pytest.raises(DataflowError, match="l3 and l4 both touch recv\\+0"):
        outcome(either, "reduce", 1, commutative=True)


def test_cycle_is_caught() -> None:
    cyclic = [
        f"rank {r}: 2 steps, scratch 0 elements\n  l1: recv   recv+0 from {1 - r} x1 tag 0\n"
        f"  l2: send   send+0 to {1 - r} x1 tag 0 after l1\n"
        for r in (0, 1)
    ]
    with pytest.raises(DataflowError, match="cannot all run"):
        outcome(cyclic, "allgather", 1, commutative=True)


def test_contracts() -> None:
    _, want = call_buffers("alltoall", 3, 2, None)
    # Rank 1 receives elements 2 and 3 (its block) of every rank's send buffer.
    assert want[1, "recv"] == [((j, i),) for j in range(3) for i in (2, 3)]
    _, want = call_buffers("exscan", 3, 1, None)
    assert want[0, "recv"] == [None]  # untouched
    assert want[2, "recv"] == [((0, 0), (1, 0))]
    start, want = call_buffers("scatter", 3, 1, 2)
    assert start[0, "send"] == []
    assert want[0, "recv"] == [((2, 0),)]
    assert reduce_scatter_counts("reduce_scatter", 4, 6) == [2, 2, 1, 1]
    start, want = call_buffers("reduce_scatter", 4, 6, None)
    assert want[2, "recv"] == [tuple((j, 4) for j in range(4))]
    assert start[3, "recv"] == [None]
