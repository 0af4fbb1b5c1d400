"""The GOAL checks used by the schedule tests catch what they are meant to catch."""

import pytest
from goal_text import GoalError, causal_reach, check_messages_pair, parse_goal

GOOD = """num_ranks 3
rank 0 {
l1: send 8b to 1 tag 0
l2: send 8b to 2 tag 0
}
rank 1 {
l1: recv 8b from 0 tag 0
l2: calc 8
l2 requires l1
}
rank 2 {
l1: recv 8b from 0 tag 0
}
"""


def test_good_schedule() -> None:
    num_ranks, ranks = parse_goal(GOOD)
    assert num_ranks == 3
    assert check_messages_pair(ranks) == 2
    assert causal_reach(ranks) == {0: 0b001, 1: 0b011, 2: 0b101}


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (GOOD.replace("num_ranks 3\n", ""), "num_ranks"),
        (GOOD.replace("l2: calc 8", "l2: frobnicate 8"), "not a GOAL statement"),
        (GOOD.replace("l2 requires l1", "l2 requires l7"), "label not defined"),
        (GOOD.replace("send 8b to 2", "send 8b to 3"), "not another rank"),
        (GOOD.replace("send 8b to 2", "send 8b to 0"), "not another rank"),
        (GOOD[: GOOD.rindex("}")], "not closed"),
    ],
)
def test_malformed_text_is_rejected(bad: str, message: str) -> None:
    with pytest.raises(GoalError, match=message):
        parse_goal(bad)


@pytest.mark.parametrize(
    "bad",
    [
        GOOD.replace("l1: recv 8b from 0 tag 0\n}", "l1: calc 0\n}"),  # a send nobody takes
        GOOD.replace("recv 8b from 0 tag 0\nl2", "recv 4b from 0 tag 0\nl2"),  # sizes differ
        GOOD.replace("recv 8b from 0 tag 0\nl2", "recv 8b from 0 tag 1\nl2"),  # tags differ
        GOOD.replace("rank 2 {\n", "rank 2 {\nl2: recv 8b from 1 tag 0\n"),  # no such send
    ],
)
def test_unpaired_messages_are_caught(bad: str) -> None:
    _, ranks = parse_goal(bad)
    with pytest.raises(GoalError, match="do not pair up"):
        check_messages_pair(ranks)


def test_deadlock_is_caught() -> None:
    # Each rank waits for the other's message before sending its own.
    text = """num_ranks 2
rank 0 {
l1: recv 1b from 1 tag 0
l2: send 1b to 1 tag 0
l2 requires l1
}
rank 1 {
l1: recv 1b from 0 tag 0
l2: send 1b to 0 tag 0
l2 requires l1
}
"""
    _, ranks = parse_goal(text)
    assert check_messages_pair(ranks) == 2
    with pytest.raises(GoalError, match="cannot complete"):
        causal_reach(ranks)
