"""A reader of schedules as `trellis-info explain --steps` spells them out, and a run of
every rank's steps on symbolic data, element by element:

    rank 0: 3 steps, scratch 2 elements
      l1: recv   scratch+0 from 1 x2 tag 0
      l2: reduce scratch+0 -> recv+0 x2 after l1
      l3: send   recv+0 to 1 x2 tag 0 after l2

Every element of every buffer holds the contributions it is made of, in operand order:
rank r's input element i is ((r, i),), a reduce `a -> b` makes b the contributions of a
followed by those of b (a is the lower-ranked operand), a reduce `a, c -> b` (a copy
folded in) makes b those of a followed by those of c, and None is an element nothing
defined. What the call should leave in the receive buffers is computed here from the
collective's contract (src/algo/algo.h), independently of the C builders, so a run
shows whether every element lands where it should with exactly the right contributions.

The run also checks what a real executor relies on: no step reaches past the end of a
buffer, nothing writes the user's send buffer, and two steps of a rank that touch the
same elements (one of them writing) are ordered by the dependencies, directly or
through messages: otherwise the result would depend on timing.
"""

import re
from dataclasses import dataclass

Token = tuple[int, int]  # (rank, element index) of an input
Value = tuple[Token, ...] | None
Buffers = dict[tuple[int, str], list[Value]]  # (rank, "send" | "recv" | "scratch")

HEADER = re.compile(r"rank (\d+): (\d+) steps, scratch (\d+) elements")
PHASE = re.compile(r"phase .+:")
STEP = re.compile(r"l(\d+): (\w+) +(.*?)(?: after (l\d+(?:, l\d+)*))?")
REF = r"(send|recv|scratch)\+(\d+)"
BODY = {
    "send": re.compile(REF + r" to (\d+) x(\d+) tag (\d+)"),
    "recv": re.compile(REF + r" from (\d+) x(\d+) tag (\d+)"),
    "copy": re.compile(REF + r" -> " + REF + r" x(\d+)"),
    "reduce": re.compile(REF + r"(?:, " + REF + r")? -> " + REF + r" x(\d+)"),
    "nop": re.compile(r"x(\d+)"),
}

REDUCTIONS = frozenset(
    {"reduce", "allreduce", "reduce_scatter", "reduce_scatter_block", "scan", "exscan"}
)


class DataflowError(AssertionError):
    pass


@dataclass(frozen=True)
class Step:
    kind: str  # send, recv, copy, reduce or nop
    count: int
    src: tuple[str, int] | None = None  # what it reads: send, copy, reduce
    dst: tuple[str, int] | None = None  # what it writes: recv, copy, reduce (reads it too)
    other: tuple[str, int] | None = None  # a reduce's second operand, when not dst
    peer: int = -1
    tag: int = -1
    deps: tuple[int, ...] = ()  # indices of the steps it waits for


@dataclass
class StepSchedule:
    rank: int
    scratch: int
    steps: list[Step]


def parse_step(line: str, where: str) -> tuple[int, Step]:
    m = STEP.fullmatch(line)
    if not m or m[2] not in BODY:
        raise DataflowError(f"{where}: not a step")
    label, kind, body, after = int(m[1]), m[2], m[3].strip(), m[4]
    b = BODY[kind].fullmatch(body)
    if not b:
        raise DataflowError(f"{where}: malformed {kind} step")
    deps = tuple(int(d.strip()[1:]) - 1 for d in after.split(",")) if after else ()
    if kind == "send":
        fields = {"src": (b[1], int(b[2])), "peer": int(b[3]), "count": int(b[4])}
        fields["tag"] = int(b[5])
    elif kind == "recv":
        fields = {"dst": (b[1], int(b[2])), "peer": int(b[3]), "count": int(b[4])}
        fields["tag"] = int(b[5])
    elif kind == "nop":
        fields = {"count": int(b[1])}
    elif kind == "reduce":
        fields = {"src": (b[1], int(b[2])), "dst": (b[5], int(b[6])), "count": int(b[7])}
        if b[3]:
            fields["other"] = (b[3], int(b[4]))
    else:
        fields = {"src": (b[1], int(b[2])), "dst": (b[3], int(b[4])), "count": int(b[5])}
    return label, Step(kind=kind, deps=deps, **fields)


def parse_steps(text: str) -> StepSchedule:
    """One rank's schedule in the --steps form; DataflowError if anything is off."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines or not (m := HEADER.fullmatch(lines[0])):
        raise DataflowError(f"expected 'rank N: S steps, scratch K elements', got {lines[:1]}")
    rank, nsteps, scratch = int(m[1]), int(m[2]), int(m[3])
    steps: list[Step] = []
    for line in lines[1:]:
        if PHASE.fullmatch(line):  # the phase of the steps that follow
            continue
        where = f"rank {rank}: {line!r}"
        label, step = parse_step(line, where)
        if label != len(steps) + 1:
            raise DataflowError(f"{where}: expected label l{len(steps) + 1}")
        if any(not 0 <= d < len(steps) for d in step.deps):
            raise DataflowError(f"{where}: waits for a step that does not come before it")
        steps.append(step)
    if len(steps) != nsteps:
        raise DataflowError(f"rank {rank}: {len(steps)} steps listed, the header says {nsteps}")
    return StepSchedule(rank, scratch, steps)


def mine(rank: int, n: int, first: int = 0) -> list[Value]:
    """Elements first .. first+n-1 of rank's input."""
    return [((rank, i),) for i in range(first, first + n)]


def undefined(n: int) -> list[Value]:
    return [None] * n


def reduce_scatter_counts(collective: str, size: int, count: int) -> list[int]:
    """Each rank's block of the whole vector of `count` elements, as `trellis-info
    explain` splits it: equal blocks for reduce_scatter_block, as evenly as it goes
    (the first count % size ranks one more) for reduce_scatter."""
    if collective == "reduce_scatter_block":
        return [count // size] * size
    return [count // size + (r < count % size) for r in range(size)]


def neighbor_ring(collective: str, p: int, r: int, n: int) -> tuple[list, list, list]:
    """Rank r's send, start and wanted receive buffers of a neighbourhood collective on
    explain's default graph, a periodic ring (neighbours r-1, then r+1). Receive block 0
    comes from the negative neighbour's block 1 (what it sent in the positive direction),
    block 1 from the positive neighbour's block 0 (MPI's Cartesian pairing); allgather
    sends its one block both ways."""
    lo, hi = (r - 1) % p, (r + 1) % p
    gather = collective.startswith("neighbor_allgather")
    want = mine(lo, n, first=0 if gather else n) + mine(hi, n)
    return mine(r, n if gather else 2 * n), undefined(2 * n), want


def call_buffers(  # noqa: PLR0912 -- one branch per kind of collective
    collective: str, size: int, count: int, root: int | None
) -> tuple[Buffers, Buffers]:
    """The buffers every rank starts with, and what the call must leave in them, for
    `trellis-info explain COLLECTIVE --ranks size --bytes count*elem_size`: count is the
    message, one rank's block (gather, scatter, allgather, alltoall and their v and w
    variants, every block alike) or the whole vector (reduce_scatter(_block)).
    A buffer a rank does not have (the receive buffer of a gather's other ranks, ...) is
    empty. Only the receive buffers are expected; None in them: left untouched."""
    p, n = size, count
    root = 0 if root is None else root
    start: Buffers = {}
    want: Buffers = {}
    for r in range(p):
        if collective == "bcast":
            start[r, "send"] = []
            start[r, "recv"] = mine(root, n) if r == root else undefined(n)
            want[r, "recv"] = mine(root, n)
        elif collective in {"reduce", "allreduce", "scan", "exscan"}:
            start[r, "send"] = mine(r, n)
            has_recv = collective != "reduce" or r == root
            start[r, "recv"] = undefined(n if has_recv else 0)
            upto = {"reduce": p, "allreduce": p, "scan": r + 1, "exscan": r}[collective]
            if has_recv:
                want[r, "recv"] = [
                    tuple((j, i) for j in range(upto)) if upto else None for i in range(n)
                ]
        elif collective == "barrier":
            start[r, "send"] = start[r, "recv"] = []
        elif collective in {"gather", "gatherv"}:
            start[r, "send"] = mine(r, n)
            start[r, "recv"] = undefined(p * n if r == root else 0)
            if r == root:
                want[r, "recv"] = [v for j in range(p) for v in mine(j, n)]
        elif collective in {"scatter", "scatterv"}:
            start[r, "send"] = mine(root, p * n) if r == root else []
            start[r, "recv"] = undefined(n)
            want[r, "recv"] = mine(root, n, first=r * n)
        elif collective in {"allgather", "allgatherv"}:
            start[r, "send"] = mine(r, n)
            start[r, "recv"] = undefined(p * n)
            want[r, "recv"] = [v for j in range(p) for v in mine(j, n)]
        elif collective in {"alltoall", "alltoallv", "alltoallw"}:
            start[r, "send"] = mine(r, p * n)
            start[r, "recv"] = undefined(p * n)
            want[r, "recv"] = [v for j in range(p) for v in mine(j, n, first=r * n)]
        elif collective in {"reduce_scatter", "reduce_scatter_block"}:
            counts = reduce_scatter_counts(collective, p, n)
            first = sum(counts[:r])
            start[r, "send"] = mine(r, n)
            start[r, "recv"] = undefined(counts[r])
            want[r, "recv"] = [tuple((j, first + k) for j in range(p)) for k in range(counts[r])]
        elif collective.startswith("neighbor_"):
            start[r, "send"], start[r, "recv"], want[r, "recv"] = neighbor_ring(collective, p, r, n)
        else:
            raise DataflowError(f"no contract for collective {collective!r}")
    return start, want


@dataclass(frozen=True)
class Access:
    node: int
    lo: int
    hi: int
    write: bool


def _combine(a: Value, b: Value) -> Value:
    return None if a is None or b is None else a + b


def run(scheds: list[StepSchedule], start: Buffers, *, commutative: bool) -> Buffers:
    """Run every rank's steps in an order the dependencies and messages allow, on
    copies of the start buffers (plus each rank's scratch), and return the buffers.
    DataflowError for a step outside its buffers, a write to a send buffer, a message
    without its other side, a cycle, or two unordered steps that conflict.

    The executors run a rank's local steps one at a time, so with a commutative
    operation two reduces into the same elements may come in either order (combining
    in order of arrival): only they may be unordered."""
    state = _Run(scheds, start)
    state.run()
    state.check_order(commutative=commutative)
    return state.buffers


class _Run:
    def __init__(self, scheds: list[StepSchedule], start: Buffers) -> None:
        self.buffers: Buffers = {key: list(values) for key, values in start.items()}
        self.nodes: list[tuple[int, int]] = []  # (rank, step index), numbered
        self.steps: list[Step] = []
        number: dict[tuple[int, int], int] = {}
        for s in scheds:
            self.buffers[s.rank, "scratch"] = undefined(s.scratch)
            for i, st in enumerate(s.steps):
                number[s.rank, i] = len(self.nodes)
                self.nodes.append((s.rank, i))
                self.steps.append(st)
        self.send_node = {
            (rank, st.peer, st.tag): node
            for node, ((rank, _), st) in enumerate(zip(self.nodes, self.steps, strict=True))
            if st.kind == "send"
        }
        self.preds: list[list[int]] = []
        for (rank, i), st in zip(self.nodes, self.steps, strict=True):
            preds = [number[rank, d] for d in st.deps]
            if st.kind == "recv":
                key = (st.peer, rank, st.tag)
                if key not in self.send_node:
                    raise DataflowError(
                        f"rank {rank} l{i + 1}: no send from {st.peer} tag {st.tag}"
                    )
                preds.append(self.send_node[key])
            self.preds.append(preds)
        self.before = [0] * len(self.nodes)  # bit masks of the nodes that happen before
        self.in_flight: dict[int, list[Value]] = {}

    def run(self) -> None:
        succs: list[list[int]] = [[] for _ in self.nodes]
        waiting = [len(p) for p in self.preds]
        for node, preds in enumerate(self.preds):
            for q in preds:
                succs[q].append(node)
        ready = [node for node, w in enumerate(waiting) if w == 0]
        done = 0
        while ready:
            node = ready.pop()
            done += 1
            for q in self.preds[node]:
                self.before[node] |= self.before[q] | (1 << q)
            self.execute(node)
            for nxt in succs[node]:
                waiting[nxt] -= 1
                if waiting[nxt] == 0:
                    ready.append(nxt)
        if done != len(self.nodes):
            stuck = [f"rank {r} l{i + 1}" for n, (r, i) in enumerate(self.nodes) if waiting[n]]
            raise DataflowError(f"the steps cannot all run (a dependency cycle), e.g. {stuck[:5]}")

    def window(self, node: int, ref: tuple[str, int], *, write: bool) -> list[Value]:
        """The buffer a step reads or writes, once its range is known to fit."""
        (rank, i), st = self.nodes[node], self.steps[node]
        buf, off = ref
        data = self.buffers[rank, buf]
        where = f"rank {rank} l{i + 1} ({st.kind})"
        if write and buf == "send":
            raise DataflowError(f"{where}: writes the send buffer, which is read only")
        if off + st.count > len(data):
            raise DataflowError(
                f"{where}: {buf}+{off} x{st.count} runs past the end of the "
                f"{len(data)}-element {buf} buffer"
            )
        return data

    def execute(self, node: int) -> None:
        (rank, i), st = self.nodes[node], self.steps[node]
        n = st.count
        if st.kind == "send":
            assert st.src is not None
            off = st.src[1]
            self.in_flight[node] = self.window(node, st.src, write=False)[off : off + n]
        elif st.kind == "recv":
            assert st.dst is not None
            payload = self.in_flight.pop(self.send_node[st.peer, rank, st.tag])
            if len(payload) != n:
                raise DataflowError(
                    f"rank {rank} l{i + 1}: {len(payload)} elements sent, {n} received"
                )
            off = st.dst[1]
            self.window(node, st.dst, write=True)[off : off + n] = payload
        elif st.kind in {"copy", "reduce"}:
            assert st.src is not None
            assert st.dst is not None
            src = self.window(node, st.src, write=False)[st.src[1] : st.src[1] + n]
            data, off = self.window(node, st.dst, write=True), st.dst[1]
            if st.kind == "reduce":
                if st.other is None:
                    into = data[off : off + n]
                else:
                    o = st.other[1]
                    into = self.window(node, st.other, write=False)[o : o + n]
                src = [_combine(a, b) for a, b in zip(src, into, strict=True)]
            data[off : off + n] = src

    def check_order(self, *, commutative: bool) -> None:
        """Two steps of a rank that touch the same elements, one of them writing, must
        be ordered (by dependencies, directly or through messages), but for two
        reduces into them when the operation is commutative (plain ones: a reduce with a
        copy folded in overwrites what it writes)."""
        touched: dict[tuple[int, str], list[Access]] = {}
        for node, ((rank, _), st) in enumerate(zip(self.nodes, self.steps, strict=True)):
            for ref, write in ((st.src, False), (st.other, False), (st.dst, True)):
                if ref is not None and st.count:
                    touched.setdefault((rank, ref[0]), []).append(
                        Access(node, ref[1], ref[1] + st.count, write)
                    )
        for (rank, buf), accesses in touched.items():
            accesses.sort(key=lambda a: a.lo)
            for k, a in enumerate(accesses):
                for b in accesses[k + 1 :]:
                    if b.lo >= a.hi:
                        break
                    if a.node == b.node or not (a.write or b.write):
                        continue
                    if self.ordered(a.node, b.node):
                        continue
                    pair = (self.steps[a.node], self.steps[b.node])
                    combine = all(st.kind == "reduce" and st.other is None for st in pair)
                    if not (commutative and combine and a.write and b.write):
                        la, lb = sorted((self.nodes[a.node][1] + 1, self.nodes[b.node][1] + 1))
                        raise DataflowError(
                            f"rank {rank}: l{la} and l{lb} both touch {buf}+{max(a.lo, b.lo)} "
                            "(at least one writing) in no fixed order"
                        )

    def ordered(self, a: int, b: int) -> bool:
        return bool(self.before[a] >> b & 1 or self.before[b] >> a & 1)


def check_results(buffers: Buffers, want: Buffers, *, commutative: bool) -> None:
    """Every expected element holds exactly the expected contributions (in operand order
    unless the operation is commutative); DataflowError naming the first few that do
    not."""

    def norm(v: Value) -> Value:
        return v if v is None or not commutative else tuple(sorted(v))

    wrong = []
    for (rank, buf), expected in sorted(want.items()):
        got = buffers[rank, buf]
        for i, (g, e) in enumerate(zip(got, expected, strict=True)):
            if norm(g) != norm(e):
                wrong.append(f"rank {rank} {buf}+{i} holds {_show(g)}, expected {_show(e)}")
    if wrong:
        raise DataflowError(f"{len(wrong)} wrong elements: " + "; ".join(wrong[:4]))


def _show(v: Value) -> str:
    if v is None:
        return "nothing defined"
    text = " op ".join(f"r{r}[{i}]" for r, i in v)
    return text if len(text) < 80 else text[:77] + "..."
