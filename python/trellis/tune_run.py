"""The measuring loop of `trellis tune`: for each point, its candidates defined in the
worker, a probe for the block length, then rounds of interleaved blocks until the
statistics (tune_stats) settle the point or its share of the budget is spent.

`measure` is the worker's (tune_worker.Worker.measure) in a run; tests give a synthetic
one with known answers."""

import csv
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from trellis import tune_space, tune_stats
from trellis.native import TrellisError
from trellis.tune_plan import Point
from trellis.tune_rules import Measured, Outcome
from trellis.tune_space import Candidate
from trellis.tune_worker import Block

# One block: about this long, in ITERS calls from MIN_ITERS to MAX_ITERS.
BLOCK_S = 0.02
MIN_ITERS, MAX_ITERS = 3, 2000
PROBE_ITERS = 3
WORKER_IDS = 65536  # the candidates one tune_worker job holds (bench/tune_worker.c)
MEASURE_TIMEOUT_S = 900.0

CSV_FIELDS = ["ranks", "hosts", "ranks_per_host", "collective", "size", "bytes", "round",
              "candidate", "rule", "status", "iters", "median_us", "p10_us", "p90_us",
              "min_us"]  # fmt: skip

Measure = Callable[[str, int, int, list[int], float], list[Block]]
Define = Callable[[int, str], str | None]


@dataclass
class Session:
    """What every point of one worker job shares: its calls, the ids given out so far,
    and where every measurement is written."""

    measure: Measure
    define: Define
    csv_path: Path | None = None
    block_s: float = BLOCK_S
    max_rounds: int = tune_stats.MAX_ROUNDS
    next_id: int = 0
    ids: dict[str, int] = field(default_factory=dict)  # rules text -> id in the worker

    def id_for(self, rules: str) -> tuple[int, str | None]:
        """The worker's id of these rules, defined on first use; and the rules' error."""
        if rules in self.ids:
            return self.ids[rules], None
        cid = self.next_id
        if cid >= WORKER_IDS:
            raise TrellisError(f"trellis tune: more than {WORKER_IDS} candidates in one job; "
                               "give fewer --colls or --sizes per run")  # fmt: skip
        self.next_id += 1
        err = self.define(cid, rules)
        self.ids[rules] = cid
        return cid, err

    def write(self, point: Point, size: int, rnd: int, cands: dict[int, Candidate],
              blocks: list[Block]) -> None:  # fmt: skip
        if not self.csv_path:
            return
        new = not self.csv_path.exists()
        with self.csv_path.open("a", newline="") as f:
            w = csv.writer(f)
            if new:
                w.writerow(CSV_FIELDS)
            lay = point.layout
            for b in blocks:
                c = cands[b.cid]
                w.writerow([lay.ranks, lay.hosts, lay.ranks_per_host, point.coll, size,
                            point.rule_bytes(size), rnd, c.label, c.rule(), b.status,
                            b.iters, b.median_us, b.p10_us, b.p90_us, b.min_us])  # fmt: skip


def _iters(probe_us: float, block_s: float) -> int:
    if probe_us <= 0:
        return MAX_ITERS
    return max(MIN_ITERS, min(MAX_ITERS, int(block_s * 1e6 / probe_us)))


@dataclass
class Race:
    """One point being measured: its candidates by worker id, those that failed, and the
    search."""

    point: Point
    by_id: dict[int, Candidate]
    failed: dict[int, str]
    search: tune_stats.Search


def _enter(s: Session, point: Point, cands: list[Candidate]) -> Race:
    by_id: dict[int, Candidate] = {}
    failed: dict[int, str] = {}
    for c in cands:
        cid, err = s.id_for(c.rule())
        by_id[cid] = c
        if err:
            failed[cid] = f"rules refused: {err}"
    ids = [i for i in by_id if i not in failed]
    builtin_id = ids[0] if ids and by_id[ids[0]].algorithm == tune_space.BUILTIN_NAME else None
    return Race(point, by_id, failed, tune_stats.Search(ids, builtin_id, max_rounds=s.max_rounds))


def _block_iters(s: Session, race: Race) -> dict[int, int]:
    """Calls per block at each size: the first candidate's (the built-in's) probe sets
    every block's length."""
    iters = {}
    for size in race.point.sizes:
        probe = s.measure(race.point.coll, size, PROBE_ITERS, race.search.ids[:1],
                          MEASURE_TIMEOUT_S)  # fmt: skip
        ok = probe and probe[0].status == "time"
        iters[size] = _iters(probe[0].median_us if ok else 0.0, s.block_s)
    return iters


def _round(s: Session, race: Race, iters: dict[int, int]) -> bool:
    """One round: a block of every active candidate at every size; True when done."""
    search, point = race.search, race.point
    order = search.order()
    values: dict[int, list[float]] = {i: [] for i in order}
    for size in point.sizes:
        blocks = s.measure(point.coll, size, iters[size], order, MEASURE_TIMEOUT_S)
        s.write(point, size, search.rounds, race.by_id, blocks)
        for b in blocks:
            if b.status == "time":
                values[b.cid].append(b.median_us)
            else:
                race.failed[b.cid] = f"{b.status}: {b.message}".rstrip(": ")
                search.drop(b.cid, race.failed[b.cid])
    for cid, vs in values.items():  # over sizes: the geometric mean
        if cid in search.active and len(vs) == len(point.sizes):
            search.record(cid, math.exp(sum(map(math.log, vs)) / len(vs)))
    return search.end_round()


def _measured(race: Race, wins: int) -> list[Measured]:
    search, out = race.search, []
    for cid in search.ids:
        if search.blocks[cid]:
            r = tune_stats.ratio(search.blocks[cid], search.blocks[wins])
            out.append(Measured(race.by_id[cid].label, tune_stats.median(search.blocks[cid]),
                                r.estimate, r.lo, r.hi, len(search.blocks[cid]),
                                search.dropped.get(cid, "")))  # fmt: skip
    for cid, why in race.failed.items():
        if not search.blocks.get(cid):
            out.append(Measured(race.by_id[cid].label, math.nan, math.nan, math.nan, math.nan,
                                0, why))  # fmt: skip
    return out


def run_point(  # noqa: PLR0913 -- one point's inputs, each different
    s: Session, point: Point, cands: list[Candidate], *, builtin_label: str,
    deadline: float, model_order: list[Candidate] | None = None,
) -> Outcome:  # fmt: skip
    """Measure one point's candidates (the first is the built-in choice, named
    'built-in') until decided, or the deadline passed after the first rounds."""
    start = time.monotonic()
    race = _enter(s, point, cands)
    if not race.search.ids:
        raise TrellisError(f"trellis tune: {point.coll}: every candidate's rules were refused ("
                           + "; ".join(sorted(set(race.failed.values()))) + ")", 1)  # fmt: skip
    iters = _block_iters(s, race)
    search = race.search
    while not _round(s, race, iters):
        if time.monotonic() > deadline and not search.cut_short():
            break
    if not any(search.blocks[i] for i in search.ids):
        raise TrellisError(f"trellis tune: {point.coll}: no candidate measured ("
                           + "; ".join(sorted(set(race.failed.values()))) + ")", 1)  # fmt: skip
    wins = search.winner()
    winner = race.by_id[wins]
    confirmed = ""
    if search.champion is not None:
        r = search.confirmation()
        confirmed = (f"{race.by_id[search.champion].label} led the race, then alone against "
                     f"the built-in: built-in {r.text()} (99%, {r.n} rounds)")  # fmt: skip
    is_builtin = winner.algorithm == tune_space.BUILTIN_NAME
    rank = None
    if model_order and not is_builtin:
        rank = next((k + 1 for k, c in enumerate(model_order) if c == winner), None)
    return Outcome(
        coll=point.coll, layout=point.layout, sizes=list(point.sizes),
        nbytes=point.rule_bytes(point.sizes[0]), winner=winner.label,
        winner_rule="" if is_builtin else winner.label, builtin=builtin_label,
        measured=_measured(race, wins), rounds=search.rounds,
        noise=tune_stats.spread(search.blocks[wins]), model_rank=rank,
        seconds=time.monotonic() - start, confirmed=confirmed,
    )  # fmt: skip


def confirm(s: Session, point: Point, pair: tuple[Candidate, Candidate], rounds: int, *,
            first_round: int = 0) -> tune_stats.Ratio:  # fmt: skip
    """pair's first candidate's time over its second's, measured afresh: `rounds` rounds of
    the two alone (numbered on from first_round in the CSV). The best of several noisy
    candidates is picked for measuring fast, so its ratios from the blocks that picked it
    lean its way; fresh blocks do not."""
    race = _enter(s, point, list(pair))
    if len(race.search.ids) < 2:  # noqa: PLR2004 -- the two of them
        return tune_stats.Ratio(math.nan, 0.0, math.inf, 0)
    ids = race.search.ids
    last = first_round + rounds
    race.search = tune_stats.Search(ids, None, min_rounds=last, max_rounds=last,
                                    rounds=first_round)  # fmt: skip
    iters = _block_iters(s, race)
    while not _round(s, race, iters):
        pass
    return tune_stats.ratio(race.search.blocks[ids[0]], race.search.blocks[ids[1]])
