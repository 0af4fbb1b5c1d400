"""Where `trellis tune` measures between the sizes it was given: a rule covers sizes up to
the geometric mean of two tuned sizes, so where the winner changes between two sizes far
apart, no one knows which of the two serves the sizes between them. `--check` found such
points beaten by up to 1.8x (docs/notebook/tune.md). So, after the given sizes, tune
measures the size halfway (on a log scale, a power of two) between each such pair, with
both neighbours' winners among its candidates, and again between the new pairs, until
neighbours are less than REFINE_RATIO apart or the budget is spent. Where each winner was
measured on the other side too, within the material difference of the winner there,
either serves between, and nothing is measured (on a noisy machine equal candidates take
turns winning).

A collective with one point over all its sizes (tune_space.SIZELESS) has nothing between."""

import itertools
import math

from trellis import tune_space, tune_stats
from trellis.tune_plan import Point
from trellis.tune_rules import Outcome
from trellis.tune_space import Candidate

# Two tuned sizes at least this far apart get a size between them where their winners
# differ: the size between is then at least 2x from each.
REFINE_RATIO = 4


def choice(o: Outcome) -> str:
    """What serves the calls at o's size: its winner, or the built-in rules' choice where
    they kept it (a label either way)."""
    return o.builtin if o.winner == "built-in" else o.winner


def is_between(coll: str, size: int, given: list[int]) -> bool:
    """Whether a point at this size is a size between: not one of the sizes given, of a
    collective that has sizes."""
    return coll not in tune_space.SIZELESS and size not in given


def ratio_at(o: Outcome, label: str) -> float:
    """How much slower the choice `label` measured at o than o's winner (nan where it was
    not measured there)."""
    m = o.of(label) or (o.of("built-in") if o.builtin == label else None)
    return m.ratio if m else math.nan


def interchangeable(lo: Outcome, hi: Outcome) -> bool:
    """Each side's choice measured on the other side too, and there within the material
    difference (tune_stats.MATERIAL) of the winner: either serves the sizes between."""
    near = 1 + tune_stats.MATERIAL
    return ratio_at(lo, choice(hi)) <= near and ratio_at(hi, choice(lo)) <= near


def midpoint(a: int, b: int) -> int | None:
    """The power of two halfway between a and b on a log scale; None where a and b are
    less than REFINE_RATIO apart."""
    if a <= 0 or b < a * REFINE_RATIO:
        return None
    mid = 1 << round((math.log2(a) + math.log2(b)) / 2)
    return mid if a < mid < b else None


def gaps(outcomes: list[Outcome]) -> list[tuple[Point, Outcome, Outcome]]:
    """Each size between two neighbouring measured sizes of one collective on one layout
    whose choices differ (and are not interchangeable), with the two outcomes around it,
    in the order tuned."""
    groups: dict[tuple, list[Outcome]] = {}
    for o in outcomes:
        if o.coll not in tune_space.SIZELESS:  # barrier among them
            groups.setdefault((o.layout, o.coll), []).append(o)
    out = []
    for (layout, coll), group in groups.items():
        by_size = sorted(group, key=lambda o: o.sizes[0])
        for lo, hi in itertools.pairwise(by_size):
            mid = midpoint(lo.sizes[0], hi.sizes[0])
            # A size whose call is a neighbour's (a reduce_scatter of fewer bytes than
            # one element a rank) would measure that call again.
            call = tune_space.rule_bytes(coll, mid, layout.ranks) if mid else None
            if (mid is not None and call not in (lo.nbytes, hi.nbytes)
                    and choice(lo) != choice(hi) and not interchangeable(lo, hi)):  # fmt: skip
                out.append((Point(coll, layout, (mid,)), lo, hi))
    return out


def from_label(coll: str, label: str) -> Candidate | None:
    """The candidate a label names ("ring segment=16K", "mpi"), or None where the label
    does not read back as itself (the built-in rules' own names)."""
    if not label or label in ("built-in", "tuned", "tuned again"):
        return None
    algorithm, *words = label.split(" ")
    if not all("=" in w for w in words):
        return None
    params = tuple((k, v) for k, v in (w.split("=", 1) for w in words))
    c = Candidate(coll, algorithm, params)
    return c if c.label == label else None


def neighbours(lo: Outcome, hi: Outcome) -> list[Candidate]:
    """The choices on either side of a size between, as candidates to measure there."""
    found = (from_label(lo.coll, choice(o)) for o in (lo, hi))
    return list(dict.fromkeys(c for c in found if c is not None))


def expected(colls: list[str], sizes: list[int]) -> float:
    """How many sizes between one job may measure, for the budget's shares: half the
    pairs of neighbouring sizes far enough apart, of each collective with sizes (a
    guess: where it is more, the last of them get less time)."""
    pairs = sum(1 for a, b in itertools.pairwise(sorted(sizes)) if midpoint(a, b))
    sized = sum(1 for c in colls if c not in tune_space.SIZELESS)
    return 0.5 * pairs * sized
