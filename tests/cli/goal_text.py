"""A strict reader of GOAL schedules (LogGOPSim's text format) as Trellis writes them,
and checks across the ranks of one schedule:

    num_ranks 4
    rank 0 {
    l1: send 8b to 1 tag 0
    l2: recv 8b from 1 tag 0
    l3: calc 8
    l3 requires l2
    }
"""

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

HEADER = re.compile(r"num_ranks (\d+)")
RANK_OPEN = re.compile(r"rank (\d+) \{")
SEND = re.compile(r"(l\d+): send (\d+)b to (\d+) tag (\d+)")
RECV = re.compile(r"(l\d+): recv (\d+)b from (\d+) tag (\d+)")
CALC = re.compile(r"(l\d+): calc (\d+)")
REQUIRES = re.compile(r"(l\d+) requires (l\d+)")


@dataclass(frozen=True)
class Op:
    kind: str  # send, recv or calc
    nbytes: int
    peer: int = -1
    tag: int = -1


@dataclass
class RankSchedule:
    rank: int
    ops: dict[str, Op] = field(default_factory=dict)
    requires: list[tuple[str, str]] = field(default_factory=list)

    def of_kind(self, kind: str) -> list[tuple[str, Op]]:
        return [(label, op) for label, op in self.ops.items() if op.kind == kind]


class GoalError(AssertionError):
    pass


def parse_op(line: str, where: str) -> tuple[str, Op]:
    if m := SEND.fullmatch(line):
        return m.group(1), Op("send", int(m[2]), int(m[3]), int(m[4]))
    if m := RECV.fullmatch(line):
        return m.group(1), Op("recv", int(m[2]), int(m[3]), int(m[4]))
    if m := CALC.fullmatch(line):
        return m.group(1), Op("calc", int(m[2]))
    raise GoalError(f"{where}: not a GOAL statement")


def parse_rank_blocks(lines: list[str], num_ranks: int) -> list[RankSchedule]:
    ranks: list[RankSchedule] = []
    current: RankSchedule | None = None
    for lineno, line in enumerate(lines, 1):
        where = f"line {lineno}: {line!r}"
        if current is None:
            m = RANK_OPEN.fullmatch(line)
            if not m:
                raise GoalError(f"{where}: expected 'rank N {{'")
            current = RankSchedule(int(m.group(1)))
            continue
        if line == "}":
            ranks.append(current)
            current = None
            continue
        if m := REQUIRES.fullmatch(line):
            step, dep = m.group(1), m.group(2)
            if step not in current.ops or dep not in current.ops:
                raise GoalError(f"{where}: requires names a label not defined above")
            current.requires.append((step, dep))
            continue
        label, op = parse_op(line, where)
        if current.requires:
            raise GoalError(f"{where}: an operation after the dependencies")
        if label in current.ops:
            raise GoalError(f"{where}: label {label} defined twice")
        if op.kind != "calc" and not (0 <= op.peer < num_ranks and op.peer != current.rank):
            raise GoalError(f"{where}: peer {op.peer} is not another rank of {num_ranks}")
        current.ops[label] = op
    if current is not None:
        raise GoalError(f"rank {current.rank}: block not closed")
    return ranks


def parse_goal(text: str) -> tuple[int, list[RankSchedule]]:
    """num_ranks and the rank blocks of a GOAL file; GoalError if anything is off."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines or not (m := HEADER.fullmatch(lines[0])):
        raise GoalError(f"expected 'num_ranks N' first, got {lines[:1]}")
    num_ranks = int(m.group(1))
    return num_ranks, parse_rank_blocks(lines[1:], num_ranks)


def check_messages_pair(ranks: list[RankSchedule]) -> int:
    """Every `send Nb to d tag t` of rank s has exactly one `recv Nb from s tag t` in
    rank d and the other way round. Returns the number of messages."""
    sends = Counter(
        (r.rank, op.peer, op.tag, op.nbytes) for r in ranks for _, op in r.of_kind("send")
    )
    recvs = Counter(
        (op.peer, r.rank, op.tag, op.nbytes) for r in ranks for _, op in r.of_kind("recv")
    )
    unmatched_sends = sends - recvs
    unmatched_recvs = recvs - sends
    if unmatched_sends or unmatched_recvs:
        raise GoalError(
            "messages do not pair up (src, dst, tag, bytes): "
            f"sends without a receive {sorted(unmatched_sends)[:5]}, "
            f"receives without a send {sorted(unmatched_recvs)[:5]}"
        )
    duplicated = [key for key, n in sends.items() if n > 1]
    if duplicated:
        raise GoalError(f"two messages with one (src, dst, tag, bytes): {duplicated[:5]}")
    return sum(sends.values())


def causal_reach(ranks: list[RankSchedule]) -> dict[int, int]:
    """Run the schedules in dependency order (a step after the steps it requires, a
    receive after its send) and return, for each rank, the set of ranks (a bit mask)
    whose steps precede some step of it. GoalError if the steps cannot all run (a
    dependency cycle through messages: the schedule would deadlock)."""
    preds: dict[tuple[int, str], list[tuple[int, str]]] = {}
    for r in ranks:
        for label in r.ops:
            preds[(r.rank, label)] = []
        for step, dep in r.requires:
            preds[(r.rank, step)].append((r.rank, dep))
    send_of = {
        (r.rank, op.peer, op.tag): (r.rank, label) for r in ranks for label, op in r.of_kind("send")
    }
    for r in ranks:
        for label, op in r.of_kind("recv"):
            preds[(r.rank, label)].append(send_of[(op.peer, r.rank, op.tag)])

    succs: dict[tuple[int, str], list[tuple[int, str]]] = {node: [] for node in preds}
    waiting = {node: len(p) for node, p in preds.items()}
    for node, p in preds.items():
        for q in p:
            succs[q].append(node)
    ready = [node for node, n in waiting.items() if n == 0]
    heard: dict[tuple[int, str], int] = {}
    done = 0
    while ready:
        node = ready.pop()
        done += 1
        heard[node] = (1 << node[0]) | _union(heard[q] for q in preds[node])
        for nxt in succs[node]:
            waiting[nxt] -= 1
            if waiting[nxt] == 0:
                ready.append(nxt)
    if done != len(preds):
        stuck = sorted(node for node, n in waiting.items() if n > 0)[:5]
        raise GoalError(f"the schedule cannot complete (dependency cycle), e.g. at {stuck}")
    reach = {r.rank: 1 << r.rank for r in ranks}
    for (rank, _), mask in heard.items():
        reach[rank] |= mask
    return reach


def _union(masks: Iterable[int]) -> int:
    out = 0
    for m in masks:
        out |= m
    return out
