"""The statistics of `trellis tune`: which candidate is fastest at one point, on a noisy
machine, with as few measurements as that takes.

A point's candidates are measured in rounds: one block each (ITERS calls, the median of
the calls' slowest-rank times), in an order that rotates from round to round, so that
drift hits all alike. Two candidates are compared by their paired ratios, block by block
within the same rounds: the estimate is the geometric mean of those ratios, its 95%
interval Student's t on their logarithms.

After MIN_ROUNDS rounds, and after each round from then on (the best: the candidate
still in the race with the lowest geometric mean):
- a candidate whose 99% interval against the best lies wholly above 1 (clearly slower),
  or wholly within 1 +- EQUAL (as fast as the best, within what matters), stops being
  measured (99%, not 95%: the test is made at every look, and a good candidate dropped
  on a few noisy rounds does not come back);
- the built-in choice is measured in every round (it is what a candidate must beat);
- the race ends when only the best and a settled built-in remain (its 95% interval
  against the best wholly above or wholly below 1 + MATERIAL), or after MAX_ROUNDS.

The best of many noisy candidates is the one whose blocks happened to run fast, so its
ratios from the rounds that picked it lean its way: with 300 candidates as fast as the
built-in under 25% noise a block, those rounds named one faster in 25 of 40 races. So a
best that is not the built-in is confirmed in rounds of its own: the two alone, up to
CONFIRM_ROUNDS, looked at after CONFIRM_LOOKS rounds and the last (each look is a chance
to be fooled: a few only). It replaces the built-in choice only when those fresh rounds
show it measurably faster (the built-in's 99% interval against it wholly above 1) and by
more than MATERIAL (the estimate); a gain they cannot tell keeps the built-in choice.
Out of time, a race still open goes to its confirmation all the same, which stops at its
first look; undecided there, the built-in stays (cut_short).
"""

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field

MIN_ROUNDS = 3
MAX_ROUNDS = 24
CONFIRM_ROUNDS = 24
CONFIRM_LOOKS = (3, 6, 12)  # and CONFIRM_ROUNDS
EQUAL = 0.02
MATERIAL = 0.03
PAIRS_FOR_INTERVAL = 2  # an interval needs two blocks at least

# Student's t, two-sided 95%, by degrees of freedom (1..30; beyond, 1.96 + a little).
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]  # fmt: skip


# 99%: for leaving the race, which happens at every look: a stricter interval keeps a
# good candidate from being dropped on a few noisy rounds.
_T99 = [63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169, 3.106, 3.055,
        3.012, 2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845, 2.831, 2.819, 2.807, 2.797,
        2.787, 2.779, 2.771, 2.763, 2.756, 2.750]  # fmt: skip


def t95(df: int) -> float:
    if df < 1:
        return math.inf
    return _T95[df - 1] if df <= len(_T95) else 1.96 + 2.4 / df


def t99(df: int) -> float:
    if df < 1:
        return math.inf
    return _T99[df - 1] if df <= len(_T99) else 2.576 + 5.0 / df


@dataclass(frozen=True)
class Ratio:
    """a / b from paired blocks: the estimate and its 95% interval, over n pairs."""

    estimate: float
    lo: float
    hi: float
    n: int

    def text(self) -> str:
        if self.n < PAIRS_FOR_INTERVAL:
            return f"{self.estimate:.3f}"
        return f"{self.estimate:.3f} [{self.lo:.3f}-{self.hi:.3f}]"


def ratio(a: dict[int, float], b: dict[int, float], t: Callable[[int], float] = t95) -> Ratio:
    """a's blocks over b's, paired by round; the interval's t by degrees of freedom (t95,
    or t99 for a 99% interval)."""
    logs = [math.log(a[r] / b[r]) for r in sorted(a.keys() & b.keys()) if a[r] > 0 and b[r] > 0]
    n = len(logs)
    if n == 0:
        return Ratio(math.nan, 0.0, math.inf, 0)
    mean = statistics.fmean(logs)
    if n == 1:
        return Ratio(math.exp(mean), 0.0, math.inf, 1)
    half = t(n - 1) * statistics.stdev(logs) / math.sqrt(n)
    return Ratio(math.exp(mean), math.exp(mean - half), math.exp(mean + half), n)


def median(blocks: dict[int, float]) -> float:
    return statistics.median(blocks.values()) if blocks else math.nan


def spread(blocks: dict[int, float]) -> float:
    """The standard deviation of a candidate's log block times: its relative noise from
    block to block (0.03: about 3%)."""
    logs = [math.log(v) for v in blocks.values() if v > 0]
    return statistics.stdev(logs) if len(logs) >= PAIRS_FOR_INTERVAL else math.nan


@dataclass
class Search:
    """The adaptive measurement of one point. ids: the candidates (builtin among them;
    None when there is no built-in choice to keep)."""

    ids: list[int]
    builtin: int | None
    min_rounds: int = MIN_ROUNDS
    max_rounds: int = MAX_ROUNDS
    blocks: dict[int, dict[int, float]] = field(default_factory=dict)
    active: list[int] = field(default_factory=list)
    dropped: dict[int, str] = field(default_factory=dict)  # id -> why
    rounds: int = 0
    champion: int | None = None  # the race's best, being confirmed against the built-in
    confirm_from: int = 0  # the first round of its confirmation
    decided: bool = False  # the confirmation stopped at one of its looks

    def __post_init__(self) -> None:
        self.active = list(self.ids)
        for i in self.ids:
            self.blocks.setdefault(i, {})

    def order(self) -> list[int]:
        """This round's candidates, rotated by the round's number."""
        k = self.rounds % len(self.active) if self.active else 0
        return self.active[k:] + self.active[:k]

    def record(self, cid: int, value: float) -> None:
        self.blocks[cid][self.rounds] = value

    def drop(self, cid: int, why: str) -> None:
        """Out of the race from now on (a wrong result, an error, or the statistics)."""
        if cid in self.active:
            self.active.remove(cid)
            self.dropped[cid] = why

    def best(self) -> int:
        """The active candidate with the lowest geometric mean block: the active ones were
        all measured in the same rounds. A dropped one never returns."""
        pool = [i for i in self.active if self.blocks[i]] or [i for i in self.ids
                                                              if self.blocks[i]]  # fmt: skip
        return min(pool, key=lambda i: statistics.fmean(map(math.log, self.blocks[i].values())))

    def end_round(self) -> bool:
        """Apply the rules after a round; True when the point is done."""
        self.rounds += 1
        if not self.active:
            return True
        if self.champion is not None:
            if not self._pair_in_play():
                return True
            self.decided = self._confirmed()
            return self.decided
        if self.rounds < self.min_rounds:
            return False
        best = self.best()
        for cid in list(self.active):
            if cid in (best, self.builtin):
                continue
            r = ratio(self.blocks[cid], self.blocks[best], t99)
            if r.lo > 1:
                self.drop(cid, f"slower than the best: {r.text()} (99%)")
            elif r.lo > 1 / (1 + EQUAL) and r.hi < 1 + EQUAL:
                self.drop(cid, f"as fast as the best within {EQUAL:.0%}: {r.text()}")
        others = [i for i in self.active if i not in (best, self.builtin)]
        race_over = (not others and self.builtin_settled(best)) or self.rounds >= self.max_rounds
        return race_over and not self._confirm(best)

    def _confirm(self, best: int) -> bool:
        """Start best's confirmation against the built-in; False when there is nothing
        to confirm (no built-in left, best is it, or even the race's leaning rounds put
        it within MATERIAL)."""
        if self.builtin not in self.active or best == self.builtin or self.builtin_close(best):
            return False
        self.champion, self.confirm_from = best, self.rounds  # fresh rounds, the two alone
        for cid in list(self.active):
            if cid not in (best, self.builtin):
                self.drop(cid, "in the race when it ended; not its best")
        self.active = [best, self.builtin]
        return True

    def cut_short(self) -> bool:
        """The point's time is up: whether to go on. The first MIN_ROUNDS rounds run
        regardless; a race still open goes to its confirmation, which runs to its first
        look and no further."""
        if self.rounds < self.min_rounds:
            return True  # a decision needs that many
        if self.champion is None:
            return self._confirm(self.best())
        first_look = self.rounds - self.confirm_from >= CONFIRM_LOOKS[0]
        return self._pair_in_play() and not self.decided and not first_look

    def _pair_in_play(self) -> bool:
        """Whether the champion and the built-in are both still measured (neither failed)."""
        return {self.champion, self.builtin} <= set(self.active)

    def confirmation(self) -> Ratio:
        """The built-in's blocks over the champion's, from the confirmation's rounds (99%)."""
        if self.champion is None or self.builtin is None:
            return Ratio(math.nan, 0.0, math.inf, 0)
        fresh = {r: v for r, v in self.blocks[self.builtin].items() if r >= self.confirm_from}
        return ratio(fresh, self.blocks[self.champion], t99)  # 99%: it looks every round

    def _confirmed(self) -> bool:
        """Whether the confirmation is over (after end_round counted its round)."""
        n = self.rounds - self.confirm_from
        if n >= CONFIRM_ROUNDS:
            return True
        if n not in CONFIRM_LOOKS:  # each look is a chance to adopt by luck: a few only
            return False
        r = self.confirmation()
        return (r.lo > 1 and r.estimate > 1 + MATERIAL) or r.hi < 1 + MATERIAL

    def builtin_settled(self, best: int) -> bool:
        if self.builtin is None or self.builtin == best or self.builtin not in self.active:
            return True
        r = ratio(self.blocks[self.builtin], self.blocks[best])
        return r.hi < 1 + MATERIAL or r.lo > 1 + MATERIAL

    def builtin_close(self, best: int) -> bool:
        """Whether the race's rounds put the built-in within MATERIAL of the best."""
        return ratio(self.blocks[self.builtin], self.blocks[best]).hi < 1 + MATERIAL

    def winner(self) -> int:
        """The best, unless it has not beaten the built-in choice measurably and by more
        than MATERIAL in its confirmation: then the built-in."""
        if not self.active:  # every candidate failed: no rule (the built-in rules stay)
            return self.builtin if self.builtin is not None else self.best()
        if self.builtin is None or self.builtin not in self.active or not self.blocks[self.builtin]:
            return self.champion if self.champion in self.active else self.best()
        if self.champion not in self.active or not self.decided:  # the built-in led or was
            return self.builtin  # close, or no look decided (time ran out; it failed)
        r = self.confirmation()
        return self.champion if r.lo > 1 and r.estimate > 1 + MATERIAL else self.builtin
