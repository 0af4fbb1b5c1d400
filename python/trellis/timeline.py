"""Timelines of collective calls and where their time goes: the records of
docs/trace-format.md read into columns, and the analysis `trellis simulate` prints (and
`trellis trace` prints for traced runs).

A timeline holds, for each call, every rank's entry and exit and every step's times
(ready, posted, done), kind, peer, bytes, phase and the link class its message crosses.
The analysis of one call gives:

- the time in each phase on the critical path (these add up to the call's time), and
  each phase's span (first start to last end over all ranks);
- per rank, its time in the call split into reducing, copying, transferring, waiting for
  a late peer (a receive posted before its matching send was, or a send before its
  receive), and the rest, in that
  order of precedence (a moment counts once, for the first of these going on);
- the critical path: from the last completion back through each step's last dependency
  to finish (`after`), or, for a receive whose sender posted later than it, through the
  message to the send, or, for a send that waited for its receiver, to the receive,
  until a rank's entry.

Calls are then aggregated per (collective, bytes, algorithm).
"""

import json
import statistics
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

KINDS = ("send", "recv", "copy", "reduce", "nop")
LINKS = ("socket", "host", "world")
LOCAL = len(LINKS)  # the link code of a step that sends nothing
SEND, RECV, COPY, REDUCE, NOP = range(len(KINDS))

# One row per step. Times in ns on the common clock; `after` is the step index of the
# dependency that completed last (-1: ready when the rank entered).
STEP_DTYPE = np.dtype([
    ("call", "<i4"), ("rank", "<i4"), ("step", "<i4"), ("kind", "u1"), ("link", "u1"),
    ("phase", "<u2"), ("peer", "<i4"), ("tag", "<i4"), ("after", "<i4"), ("bytes", "<u8"),
    ("t_ready", "<f8"), ("t_posted", "<f8"), ("t_done", "<f8"),
])  # fmt: skip
# One row per (call, rank).
ENTRY_DTYPE = np.dtype([("call", "<i4"), ("rank", "<i4"), ("t_enter", "<f8"),
                        ("t_exit", "<f8")])  # fmt: skip
# One row per rank: where it sits, and its clock against rank 0's (traces).
RANK_DTYPE = np.dtype([("rank", "<i4"), ("host", "<i4"), ("socket", "<i4"), ("numa", "<i4"),
                       ("clock_offset", "<f8"), ("clock_error", "<f8")])  # fmt: skip

# What trellis-info simulate --out writes (tools/info_simulate.c): steps.bin is
# STEP_DTYPE itself.
SIM_RANK_DTYPE = np.dtype([("t_enter", "<f8"), ("t_exit", "<f8"), ("rank", "<i4"),
                           ("host", "<i4"), ("socket", "<i4"), ("numa", "<i4")])  # fmt: skip


class TimelineError(Exception):
    """Records that do not make a timeline (a bad line, a missing field)."""


@dataclass
class Call:
    """What every rank's call record says alike."""

    call: int
    collective: str
    bytes: int
    ranks: int
    root: int | None
    algorithm: str
    rule: str | None = None
    hostnames: list[str] = field(default_factory=list)
    id: int | None = None  # the records' own number, where it is not `call` (traces)


@dataclass
class Timeline:
    phases: list[str]
    calls: dict[int, Call]
    ranks: np.ndarray  # RANK_DTYPE, sorted by rank
    entries: np.ndarray  # ENTRY_DTYPE, sorted by (call, rank)
    # STEP_DTYPE, grouped by call in call order; within a call each rank's steps
    # together and in step order (the ranks in any order).
    steps: np.ndarray
    hostnames: dict[int, str] = field(default_factory=dict)
    # (call, rank in the call's communicator) -> rank in MPI_COMM_WORLD, where the
    # records say (traces of sub-communicators); otherwise the two are the same.
    world_rank: dict[tuple[int, int], int] = field(default_factory=dict)

    def world(self, call: int, rank: int) -> int:
        return self.world_rank.get((call, rank), rank)


def _sorted(steps: np.ndarray, entries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Records in the order a Timeline keeps them."""
    steps = steps[np.lexsort((steps["step"], steps["rank"], steps["call"]))]
    entries = entries[np.lexsort((entries["rank"], entries["call"]))]
    return steps, entries


def load_simulation(directory: Path) -> tuple[Timeline, dict]:
    """The timeline `trellis-info simulate --out DIR` wrote, and its summary."""
    meta = json.loads((directory / "meta.json").read_text())
    steps = np.fromfile(directory / "steps.bin", dtype=STEP_DTYPE)
    ranks_raw = np.fromfile(directory / "ranks.bin", dtype=SIM_RANK_DTYPE)
    ranks_raw = ranks_raw[np.argsort(ranks_raw["rank"], kind="stable")]
    entries = np.zeros(len(ranks_raw), dtype=ENTRY_DTYPE)
    for name in ("rank", "t_enter", "t_exit"):
        entries[name] = ranks_raw[name]
    ranks = np.zeros(len(ranks_raw), dtype=RANK_DTYPE)
    for name in ("rank", "host", "socket", "numa"):
        ranks[name] = ranks_raw[name]
    rule = meta.get("rule")
    call = Call(
        0, meta["collective"], meta["bytes"], meta["ranks"], meta.get("root"),
        meta["algorithm"], f"{rule['source']}:{rule['line']}: {rule['text']}" if rule else None,
    )  # fmt: skip
    return Timeline(meta["phases"], {0: call}, ranks, entries, steps), meta


# ---- the record format (docs/trace-format.md) ---------------------------------------


def _need(rec: dict, name: str, where: str) -> object:
    if name not in rec:
        raise TimelineError(f"{where}: a {rec.get('type')} record without {name!r}")
    return rec[name]


def read_records(paths: Iterable[Path]) -> Timeline:
    """Every record of the given JSON-lines files (one per rank, or any split)."""
    phases: dict[str, int] = {"": 0}
    calls: dict[int, Call] = {}
    ranks: dict[int, tuple] = {}
    hostnames: dict[int, str] = {}
    entries: list[tuple] = []
    steps: list[tuple] = []
    # Calls are numbered densely in reading order: a tracer's numbers are 64-bit.
    ids: dict[int, int] = {}
    world_rank: dict[tuple[int, int], int] = {}
    kinds = {k: i for i, k in enumerate(KINDS)}
    links = {k: i for i, k in enumerate(LINKS)}
    for path in paths:
        with Path(path).open() as f:
            for lineno, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                where = f"{path}:{lineno}"
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as err:
                    raise TimelineError(f"{where}: not JSON: {err}") from None
                kind = rec.get("type")
                if kind == "rank":
                    r = int(_need(rec, "rank", where))
                    ranks[r] = (r, rec.get("host", -1), rec.get("socket", -1),
                                rec.get("numa", -1), rec.get("clock_offset_ns", 0.0),
                                rec.get("clock_error_ns", 0.0))  # fmt: skip
                    if "hostname" in rec:
                        hostnames[r] = rec["hostname"]
                elif kind == "call":
                    raw = int(_need(rec, "call", where))
                    c = ids.setdefault(raw, len(ids))
                    if c not in calls:
                        calls[c] = Call(
                            c, str(_need(rec, "collective", where)),
                            int(_need(rec, "bytes", where)), int(_need(rec, "ranks", where)),
                            rec.get("root"), str(_need(rec, "algorithm", where)), rec.get("rule"),
                            id=raw,
                        )  # fmt: skip
                    if "world_rank" in rec:
                        world_rank[(c, int(rec["rank"]))] = int(rec["world_rank"])
                    entries.append((c, int(_need(rec, "rank", where)),
                                    float(_need(rec, "t_enter", where)),
                                    float(_need(rec, "t_exit", where))))  # fmt: skip
                elif kind == "step":
                    name = rec.get("phase") or ""
                    phase = phases.setdefault(name, len(phases))
                    level = rec.get("level")
                    raw = int(_need(rec, "call", where))
                    steps.append((
                        ids.setdefault(raw, len(ids)), int(_need(rec, "rank", where)),
                        int(_need(rec, "step", where)), kinds[_need(rec, "kind", where)],
                        links.get(level, LOCAL) if level else LOCAL, phase,
                        rec.get("peer", -1) if rec.get("peer") is not None else -1,
                        rec.get("tag", -1) if rec.get("tag") is not None else -1,
                        rec.get("after", -1) if rec.get("after") is not None else -1,
                        int(rec.get("bytes", 0)), float(_need(rec, "t_ready", where)),
                        float(_need(rec, "t_posted", where)), float(_need(rec, "t_done", where)),
                    ))  # fmt: skip
                elif kind not in {"trace"}:
                    raise TimelineError(f"{where}: unknown record type {kind!r}")
    step_arr, entry_arr = _sorted(np.array(steps, dtype=STEP_DTYPE),
                                  np.array(entries, dtype=ENTRY_DTYPE))  # fmt: skip
    rank_arr = np.array(sorted(ranks.values()), dtype=RANK_DTYPE)
    names = sorted(phases, key=phases.__getitem__)
    return Timeline(names, calls, rank_arr, entry_arr, step_arr, hostnames, world_rank)


def records(tl: Timeline, source: str = "simulate") -> Iterator[dict]:
    """The timeline as the records of docs/trace-format.md, rank by rank."""
    yield {"type": "trace", "version": 1, "source": source, "clock": "ns"}
    for r in tl.ranks:
        rec = {"type": "rank", "rank": int(r["rank"]), "host": int(r["host"]),
               "socket": int(r["socket"]), "numa": int(r["numa"]),
               "clock_offset_ns": float(r["clock_offset"]),
               "clock_error_ns": float(r["clock_error"])}  # fmt: skip
        if int(r["rank"]) in tl.hostnames:
            rec["hostname"] = tl.hostnames[int(r["rank"])]
        yield rec
    for e in tl.entries:
        c = tl.calls[int(e["call"])]
        yield {"type": "call", "call": c.id if c.id is not None else c.call,
               "rank": int(e["rank"]),
               "collective": c.collective, "bytes": c.bytes, "ranks": c.ranks, "root": c.root,
               "algorithm": c.algorithm, "rule": c.rule, "t_enter": float(e["t_enter"]),
               "t_exit": float(e["t_exit"])}  # fmt: skip
    for s in tl.steps:
        kind = int(s["kind"])
        message = kind in (SEND, RECV)
        c = tl.calls.get(int(s["call"]))
        yield {"type": "step", "call": c.id if c and c.id is not None else int(s["call"]),
               "rank": int(s["rank"]),
               "step": int(s["step"]), "kind": KINDS[kind],
               "peer": int(s["peer"]) if message else None,
               "tag": int(s["tag"]) if message else None, "bytes": int(s["bytes"]),
               "phase": tl.phases[int(s["phase"])],
               "level": LINKS[int(s["link"])] if message else None,
               "after": int(s["after"]) if s["after"] >= 0 else None,
               "t_ready": float(s["t_ready"]), "t_posted": float(s["t_posted"]),
               "t_done": float(s["t_done"])}  # fmt: skip


def write_records(tl: Timeline, path: Path, source: str = "simulate") -> None:
    with path.open("w") as f:
        for rec in records(tl, source):
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")


# ---- analysis ------------------------------------------------------------------------


@dataclass
class Segment:
    """A stretch of the critical path: what a rank was doing (or a message in flight)."""

    what: str  # "message", "send", "reduce", "copy", "nop", "queued", "entry"
    rank: int
    start: float
    end: float
    phase: str
    step: int = -1
    peer: int = -1  # message: the sender; rank is the receiver
    link: str = ""


CATEGORIES = ("reducing", "copying", "transferring", "waiting", "other")
CATEGORY_WORDS = ("reducing", "copying", "transferring", "waiting for a late peer", "other")
DUST_NS = 1e-3


@dataclass
class CallReport:
    call: Call
    start: float
    end: float
    phase_on_path: dict[str, float]
    phase_span: dict[str, tuple[float, float]]
    per_rank: dict[str, np.ndarray]  # CATEGORIES -> ns per rank (in entries' order)
    ranks: np.ndarray  # the ranks of per_rank's rows
    path: list[Segment]

    @property
    def total(self) -> float:
        return self.end - self.start


def _match_sends(st: np.ndarray) -> np.ndarray:
    """For each row, the row of the send its receive matches (-1: not a receive, or its
    send is not in the timeline)."""
    match = np.full(len(st), -1, dtype=np.int64)
    send_rows = np.flatnonzero(st["kind"] == SEND)
    recv_rows = np.flatnonzero(st["kind"] == RECV)
    if not len(send_rows) or not len(recv_rows):
        return match

    def key(src: np.ndarray, dst: np.ndarray, tag: np.ndarray) -> np.ndarray:
        return (src.astype(np.int64) << 42) | (dst.astype(np.int64) << 21) | tag.astype(np.int64)

    skey = key(st["rank"][send_rows], st["peer"][send_rows], st["tag"][send_rows])
    rkey = key(st["peer"][recv_rows], st["rank"][recv_rows], st["tag"][recv_rows])
    order = np.argsort(skey, kind="stable")
    skey = skey[order]
    pos = np.searchsorted(skey, rkey)
    pos_ok = pos < len(skey)
    found = np.zeros(len(rkey), dtype=bool)
    found[pos_ok] = skey[pos[pos_ok]] == rkey[pos_ok]
    match[recv_rows[found]] = send_rows[order[pos[found]]]
    return match


def _match_recvs(match: np.ndarray) -> np.ndarray:
    """For each row, the row of the receive its send matches (-1: none)."""
    out = np.full(len(match), -1, dtype=np.int64)
    recv_rows = np.flatnonzero(match >= 0)
    out[match[recv_rows]] = recv_rows
    return out


def _exclusive(intervals: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], n: int,
               ncat: int) -> np.ndarray:  # fmt: skip
    """Per owner (0..n-1) and category (0..ncat-1), the time in which the category is
    the first (lowest-numbered) of the owner's intervals [start, end) going on;
    intervals is (owner, start, end, category) per interval."""
    owner, start, end, cat = intervals
    keep = end > start
    owner, start, end, cat = owner[keep], start[keep], end[keep], cat[keep]
    out = np.zeros((n, ncat + 1))
    if not len(owner):
        return out[:, :ncat]
    lo = min(start.min(), end.min())
    span = max(start.max(), end.max()) - lo + 1.0
    # One sweep over every interval's ends: each owner in its own stretch of the line.
    # Starts come first in the arrays, so at equal times a stable sort opens before it
    # closes and no count goes below zero. What each point is (owner, category, open or
    # close) rides in one integer, so the sort's order is applied once.
    m = len(start)
    t = np.concatenate((start, end)) - lo + np.concatenate((owner, owner)) * span
    order = np.argsort(t, kind="stable")
    t = t[order]
    code = np.concatenate((owner, owner)).astype(np.int64) * 16 + np.concatenate((cat, cat)) * 2
    code[m:] += 1  # closes
    code = code[order]
    who, which, closes = code >> 4, (code >> 1) & 7, code & 1
    # The number of intervals of each category going on, two categories to an int64 (32
    # bits each: counts stay below 2^31).
    counts = []
    for pair in range(0, ncat, 2):
        delta = np.zeros(len(t), dtype=np.int64)
        for k in range(pair, min(pair + 2, ncat)):
            shift = 32 * (k - pair)
            delta += np.where(which == k, (1 - 2 * closes) << shift, 0)
        acc = np.cumsum(delta)
        counts += [(acc >> (32 * j)) & 0xFFFFFFFF for j in range(min(2, ncat - pair))]
    top = np.full(len(t), ncat)  # the category going on after each point, ncat: none
    for k in reversed(range(ncat)):
        top[counts[k] > 0] = k
    length = np.diff(t)
    same = who[1:] == who[:-1]
    bins = who[:-1][same] * (ncat + 1) + top[:-1][same]
    out += np.bincount(bins, weights=length[same], minlength=n * (ncat + 1)).reshape(n, ncat + 1)
    return out[:, :ncat]


def _per_rank(st: np.ndarray, match: np.ndarray, ent: np.ndarray) -> dict[str, np.ndarray]:
    n = len(ent)
    ranks = ent["rank"]
    # Each step's owner row; when every rank 0..n-1 is there (a simulation), the rank.
    whole = n > 0 and ranks[0] == 0 and ranks[-1] == n - 1
    index = st["rank"] if whole else np.searchsorted(ranks, st["rank"])
    kind = st["kind"]
    posted, done = st["t_posted"], st["t_done"]
    # The other side's posting: a receive's send, a send's receive.
    other = np.maximum(match, _match_recvs(match))
    peer_posted = np.where(other >= 0, st["t_posted"][np.maximum(other, 0)], -np.inf)
    sends, recvs = kind == SEND, kind == RECV
    moving_from = np.where(sends | recvs, np.maximum(posted, peer_posted), posted)
    # A receive posted before its send, or a send (one the receiver must match:
    # rendezvous, flow control) before its receive: waiting for a late peer.
    late = (sends | recvs) & (peer_posted > posted)
    # The intervals of each category, in order of precedence (CATEGORIES).
    parts = [
        (kind == REDUCE, posted, done),
        (kind == COPY, posted, done),
        (sends | recvs, moving_from, done),
        (late, posted, np.minimum(peer_posted, done)),
    ]
    owner = np.concatenate([index[m] for m, _, _ in parts])
    start = np.concatenate([a[m] for m, a, _ in parts])
    end = np.concatenate([b[m] for m, _, b in parts])
    cat = np.concatenate([np.full(int(m.sum()), k) for k, (m, _, _) in enumerate(parts)])
    times = _exclusive((owner, start, end, cat), n, len(parts))
    out = {name: times[:, k] for k, name in enumerate(CATEGORIES[:4])}
    out["other"] = (ent["t_exit"] - ent["t_enter"]) - times.sum(axis=1)
    # Sums of differences leave rounding dust (1e-7 ns) where there is nothing.
    return {name: np.where(np.abs(v) < DUST_NS, 0.0, v) for name, v in out.items()}


def _critical_path(st: np.ndarray, match: np.ndarray, ent: np.ndarray, phases: list[str],
                   start: float) -> list[Segment]:  # fmt: skip
    if not len(st):
        return []
    runs = np.concatenate(([0], np.flatnonzero(np.diff(st["rank"])) + 1))
    first = np.full(int(ent["rank"].max()) + 1, -1, dtype=np.int64)
    first[st["rank"][runs]] = runs  # each rank's first row
    entry_row = np.searchsorted(ent["rank"], np.arange(len(first)))
    latest = np.flatnonzero(st["t_done"] == st["t_done"].max())
    last = int(latest[np.argmax(st["step"][latest])])
    recv_of = _match_recvs(match)
    path: list[Segment] = []
    cur = last
    while True:
        s = st[cur]
        rank, phase = int(s["rank"]), phases[int(s["phase"])]
        kind = int(s["kind"])
        m = int(match[cur])
        r = int(recv_of[cur])
        if kind == SEND and r >= 0 and s["t_posted"] < st["t_posted"][r] <= s["t_done"]:
            # A send held until its receiver came: the path goes on at the receive.
            path.append(Segment("send", rank, float(st["t_posted"][r]), float(s["t_done"]),
                                phase, int(s["step"]), -1,
                                LINKS[int(s["link"])] if s["link"] < LOCAL else ""))  # fmt: skip
            cur, s = r, st[r]
            rank, phase = int(s["rank"]), phases[int(s["phase"])]
        elif kind == RECV and m >= 0 and st["t_posted"][m] >= s["t_posted"]:
            # The sender was the later: the path goes through the message to it.
            path.append(Segment("message", rank, float(st["t_posted"][m]), float(s["t_done"]),
                                phase, int(s["step"]), int(s["peer"]),
                                LINKS[int(s["link"])] if s["link"] < LOCAL else ""))  # fmt: skip
            cur, s = m, st[m]
            rank, phase = int(s["rank"]), phases[int(s["phase"])]
        else:
            path.append(Segment(KINDS[kind] if kind != RECV else "message", rank,
                                float(s["t_posted"]), float(s["t_done"]), phase, int(s["step"]),
                                int(s["peer"]) if kind == RECV else -1,
                                LINKS[int(s["link"])] if s["link"] < LOCAL else ""))  # fmt: skip
        if s["t_posted"] > s["t_ready"]:
            path.append(Segment("queued", rank, float(s["t_ready"]), float(s["t_posted"]), phase,
                                int(s["step"])))  # fmt: skip
        if s["after"] < 0:
            entered = float(ent["t_enter"][entry_row[rank]])
            if s["t_ready"] > entered:
                path.append(Segment("queued", rank, entered, float(s["t_ready"]), phase))
            if entered > start:
                path.append(Segment("entry", rank, start, entered, ""))
            break
        cur = int(first[rank]) + int(s["after"])
    path.reverse()
    return path


def analyze_call(tl: Timeline, call: int) -> CallReport:
    lo, hi = np.searchsorted(tl.steps["call"], [call, call + 1])
    st = tl.steps[lo:hi]
    elo, ehi = np.searchsorted(tl.entries["call"], [call, call + 1])
    ent = tl.entries[elo:ehi]
    start, end = float(ent["t_enter"].min()), float(ent["t_exit"].max())
    match = _match_sends(st)
    path = _critical_path(st, match, ent, tl.phases, start)
    on_path: dict[str, float] = defaultdict(float)
    for seg in path:
        if seg.end > seg.start:  # not the joins (nop) a phase ends with
            on_path[seg.phase] += seg.end - seg.start
    span: dict[str, tuple[float, float]] = {}
    work = st["kind"] != NOP
    for p in np.unique(st["phase"][work]):
        m = work & (st["phase"] == p)
        span[tl.phases[int(p)]] = (float(st["t_posted"][m].min()) - start,
                                   float(st["t_done"][m].max()) - start)  # fmt: skip
    return CallReport(tl.calls[call], start, end, dict(on_path), span,
                      _per_rank(st, match, ent), ent["rank"].copy(), path)  # fmt: skip


def analyze(tl: Timeline) -> list[CallReport]:
    return [analyze_call(tl, c) for c in sorted(tl.calls)]


@dataclass
class Aggregate:
    collective: str
    bytes: int
    algorithm: str
    calls: int
    total: float  # median over the calls
    total_min: float
    total_max: float
    phase_on_path: dict[str, float]  # median over the calls
    per_rank_mean: dict[str, float]  # mean over calls and ranks


def aggregate(reports: list[CallReport]) -> list[Aggregate]:
    groups: dict[tuple, list[CallReport]] = defaultdict(list)
    for r in reports:
        groups[(r.call.collective, r.call.bytes, r.call.algorithm)].append(r)
    out = []
    for (coll, nbytes, algo), rs in sorted(groups.items()):
        totals = [r.total for r in rs]
        names = dict.fromkeys(p for r in rs for p in r.phase_on_path)
        out.append(Aggregate(
            coll, nbytes, algo, len(rs), statistics.median(totals), min(totals), max(totals),
            {p: statistics.median(r.phase_on_path.get(p, 0.0) for r in rs) for p in names},
            {c: float(np.mean(np.concatenate([r.per_rank[c] for r in rs]))) for c in CATEGORIES},
        ))  # fmt: skip
    return out


# ---- printing ------------------------------------------------------------------------


def report_json(rep: CallReport) -> dict:
    """A call's breakdown as JSON: phases on the path, their spans, mean per-rank times
    and the critical path."""
    return {
        "total_ns": rep.total,
        "phase_on_path_ns": rep.phase_on_path,
        "phase_span_ns": {k: list(v) for k, v in rep.phase_span.items()},
        "per_rank_mean_ns": {c: float(rep.per_rank[c].mean()) for c in CATEGORIES},
        "critical_path": [vars(s) for s in rep.path],
    }  # fmt: skip


def aggregate_json(a: Aggregate) -> dict:
    return vars(a).copy()


def us(ns: float) -> str:
    """A time for people: ns, us, ms or s with 4 significant digits."""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if abs(ns) >= scale:
            return f"{ns / scale:.4g} {unit}"
    return f"{ns:.4g} ns"


def phase_label(name: str, algorithm: str) -> str:
    """A phase as printed: its name; the steps outside any named phase (all the steps of
    a flat algorithm such as recursive_doubling) under the algorithm's name."""
    return name or algorithm


def format_phases(report: CallReport) -> str:
    lines = [f"  {'phase':<40} {'on the critical path':>22}   span (from the first entry)"]
    names = list(dict.fromkeys([*report.phase_on_path, *report.phase_span]))
    for name in names:
        t = report.phase_on_path.get(name, 0.0)
        share = 100 * t / report.total if report.total else 0.0
        lo, hi = report.phase_span.get(name, (0.0, 0.0))
        label = phase_label(name, report.call.algorithm)
        span = f"{us(lo)} .. {us(hi)}" if name in report.phase_span else "-"
        lines.append(f"  {label:<40} {us(t):>14} {share:5.1f}%   {span}")
    return "\n".join(lines)


def format_ranks(report: CallReport, most: int = 16) -> str:
    head = f"  {'rank':>8} " + " ".join(f"{c:>13}" for c in CATEGORIES)
    lines = [head]
    n = len(report.ranks)
    if n <= most:
        for i, r in enumerate(report.ranks):
            cells = " ".join(f"{us(report.per_rank[c][i]):>13}" for c in CATEGORIES)
            lines.append(f"  {int(r):>8} {cells}")
        return "\n".join(lines)
    for label, fn in (("min", np.min), ("median", np.median), ("mean", np.mean),
                      ("max", np.max)):  # fmt: skip
        cells = " ".join(f"{us(float(fn(report.per_rank[c]))):>13}" for c in CATEGORIES)
        lines.append(f"  {label:>8} {cells}")
    worst = int(np.argmax(report.per_rank["waiting"]))
    longest = us(report.per_rank["waiting"][worst])
    lines.append(f"  (over {n} ranks; the longest wait for a late peer: rank "
                 f"{int(report.ranks[worst])}, {longest})")  # fmt: skip
    return "\n".join(lines)


def format_path(report: CallReport, most: int = 24) -> str:
    path = report.path
    messages = [s for s in path if s.what == "message"]
    crossing = sum(1 for s in messages if s.link == "world")
    ranks = len(dict.fromkeys(s.rank for s in path))
    by_what: dict[str, float] = defaultdict(float)
    for s in path:
        by_what[s.what] += s.end - s.start
    parts = ", ".join(f"{w} {us(t)}" for w, t in sorted(by_what.items(), key=lambda x: -x[1]))
    summary = (f"  {len(path)} segments over {ranks} ranks, {len(messages)} messages "
               f"({crossing} across hosts); {parts}")  # fmt: skip
    lines = [summary]
    half = most // 2
    shown = path if len(path) <= most else [*path[:half], None, *path[-half:]]
    for s in shown:
        if s is None:
            lines.append(f"  ... {len(path) - 2 * half} more ...")
            continue
        at = f"{us(s.start - report.start):>10} .. {us(s.end - report.start):<10}"
        if s.what == "message":
            where = f"rank {s.peer} -> {s.rank} ({s.link})" if s.peer >= 0 else f"rank {s.rank}"
        else:
            where = f"rank {s.rank}"
        step = f" l{s.step + 1}" if s.step >= 0 else ""
        phase = phase_label(s.phase, report.call.algorithm) if s.step >= 0 else s.phase
        lines.append(f"  {at} {s.what:<8} {where:<28}{step:<6} {phase}".rstrip())
    return "\n".join(lines)


def format_aggregates(aggs: list[Aggregate]) -> str:
    """One block per (collective, bytes, algorithm): the calls' median time (fastest,
    slowest), the median time of each phase on the critical path, and the mean time per
    rank in each category."""
    lines = []
    for a in aggs:
        lines.append(f"{a.collective}, {a.bytes} bytes, {a.algorithm}: {a.calls} call"
                     f"{'s' if a.calls != 1 else ''}, median {us(a.total)} "
                     f"({us(a.total_min)} .. {us(a.total_max)})")  # fmt: skip
        for name, t in sorted(a.phase_on_path.items(), key=lambda x: -x[1]):
            share = 100 * t / a.total if a.total else 0.0
            lines.append(f"  {phase_label(name, a.algorithm):<40} {us(t):>14} {share:5.1f}%")
        means = ", ".join(f"{w} {us(a.per_rank_mean[c])}"
                          for c, w in zip(CATEGORIES, CATEGORY_WORDS, strict=True))  # fmt: skip
        lines.append(f"  per rank, mean: {means}")
    return "\n".join(lines) + "\n"


def format_report(report: CallReport, path_rows: int = 24) -> str:
    ranks = "ranks (time in the call: " + ", ".join(CATEGORY_WORDS) + "):"
    return "\n".join([
        "phases:", format_phases(report), ranks, format_ranks(report),
        "critical path:", format_path(report, path_rows),
    ]) + "\n"  # fmt: skip
