"""What `trellis tune` decided, and the rules file it writes from it.

An Outcome is one point's decision with the measurements behind it. The rules file has,
per collective and layout, one rule per run of sizes with the same winner (runs of the
built-in choice get no rule: the built-in rules serve them), the boundary between two
tuned sizes at their geometric mean; every rule opens with a comment that gives, at each
size it covers, the winner, the built-in choice and `mpi` (median us; ratio to the winner
with its 95% interval; rounds measured)."""

import itertools
import math
from dataclasses import asdict, dataclass, field

from trellis import tune_space
from trellis.tune_space import Layout


@dataclass
class Measured:
    """One candidate at a point: its median block (us) and its ratio to the winner."""

    label: str
    median_us: float
    ratio: float
    lo: float
    hi: float
    rounds: int
    note: str = ""


@dataclass
class Outcome:
    coll: str
    layout: Layout
    sizes: list[int]  # nominal sizes measured (one, or all for a sizeless collective)
    nbytes: int  # the size as rules mean bytes (the first size's for a sizeless one)
    winner: str  # a candidate's label, or "built-in"
    winner_rule: str  # the winner's rule without filters ("" for the built-in)
    builtin: str  # what the built-in rules chose there
    measured: list[Measured] = field(default_factory=list)
    rounds: int = 0
    noise: float = math.nan  # the winner's block-to-block spread (log sd)
    model_rank: int | None = None  # the winner's place in the model's order (1: first)
    model_top: bool | None = None  # exhaustive runs: the winner among the model's top few
    # Exhaustive runs: the best median of what the pruned search measures (the model's
    # top few, built-in, mpi) over the winner's (1.0: the pruned search finds the winner).
    model_gap: float | None = None
    seconds: float = 0.0
    # Where another candidate led the race: its rounds alone against the built-in, which
    # alone decide (tune_stats.py).
    confirmed: str = ""

    def to_json(self) -> dict:
        d = asdict(self)
        d["layout"] = asdict(self.layout)
        return d

    @staticmethod
    def from_json(d: dict) -> "Outcome":
        d = dict(d)
        d["layout"] = Layout(**d["layout"])
        d["measured"] = [Measured(**m) for m in d["measured"]]
        return Outcome(**d)

    def of(self, label: str) -> Measured | None:
        return next((m for m in self.measured if m.label == label), None)


def size_words(n: int) -> str:
    """4 B, 64 KiB, 1 MiB."""
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def _figure(m: Measured | None, name: str) -> str:
    if m is None:
        return f"{name} not measured"
    interval = f" [{m.lo:.2f}-{m.hi:.2f}]" if m.rounds >= 2 and math.isfinite(m.hi) else ""  # noqa: PLR2004
    return f"{name} {m.median_us:.1f} us ({m.ratio:.2f}x{interval})"


def comment(o: Outcome) -> str:
    """One line of measurements: where, the winner, the built-in, mpi."""
    where = ", ".join(size_words(s) for s in o.sizes) if o.coll != "barrier" else "barrier"
    w = o.of(o.winner)
    parts = [f"{where}: {o.winner} {w.median_us:.1f} us" if w else f"{where}: {o.winner}"]
    if o.winner != "built-in":
        parts.append(_figure(o.of("built-in"), f"built-in ({o.builtin})"))
    else:
        parts[0] += f" (built-in: {o.builtin})"
    if o.winner != "mpi":
        parts.append(_figure(o.of("mpi"), "mpi"))
    if o.confirmed:
        parts.append(o.confirmed)
    return "; ".join(parts) + f"; {o.rounds} rounds"


def cuts(values: list[int]) -> list[int]:
    """The boundary after each tuned size but the last: the geometric mean of it and the
    next, rounded down."""
    return [int(math.sqrt(a * b)) for a, b in itertools.pairwise(values)]


def range_text(lo: int, hi: int | None) -> str:
    t = tune_space.size_text
    return f"{t(lo)}-" if hi is None else f"{t(lo)}-{t(hi)}"


def rules_for(outcomes: list[Outcome]) -> list[str]:
    """The lines for one collective on one layout, outcomes in size order."""
    o0 = outcomes[0]
    filters = o0.layout.filters()
    if o0.coll in tune_space.REDUCTIONS:
        filters += " commutative=yes"  # measured with MPI_SUM
    lines = [(f"# {o0.coll} on {o0.layout.ranks} ranks, {o0.layout.hosts} host(s) x "
              f"{o0.layout.ranks_per_host}:")]  # fmt: skip
    if o0.coll in tune_space.SIZELESS:
        lines.append(f"#   {comment(o0)}")
        if o0.winner != "built-in":
            lines.append(f"{o0.coll} {filters} {o0.winner_rule}".rstrip())
        return lines
    bounds = cuts([o.nbytes for o in outcomes])
    lo = 0
    i = 0
    while i < len(outcomes):
        j = i
        while j + 1 < len(outcomes) and outcomes[j + 1].winner_rule == outcomes[i].winner_rule:
            j += 1
        hi = bounds[j] if j < len(bounds) else None
        if i:  # a blank line: `trellis explain` gives a rule the comments just above it
            lines.append("")
        for o in outcomes[i : j + 1]:
            lines.append(f"#   {comment(o)}")
        if hi is not None and hi < lo:  # the call of the size before (the same bytes)
            lines.append("#   (the same call as the size before: no range of its own)")
            i = j + 1
            continue
        if outcomes[i].winner != "built-in":
            lines.append(f"{o0.coll} {filters} bytes={range_text(lo, hi)} "
                         f"{outcomes[i].winner_rule}")  # fmt: skip
        else:
            lines.append(f"#   (bytes={range_text(lo, hi)}: the built-in rules stay)")
        lo = (hi or 0) + 1
        i = j + 1
    return lines


def rules_file(outcomes: list[Outcome], header: list[str]) -> str:
    """The whole file: the header, then each layout's collectives in the order tuned."""
    groups: dict[tuple, list[Outcome]] = {}
    for o in outcomes:
        groups.setdefault((o.layout, o.coll), []).append(o)
    out = [f"# {h}" if h else "#" for h in header]
    for group in groups.values():
        out.append("")
        out += rules_for(sorted(group, key=lambda o: o.nbytes))
    return "\n".join(out) + "\n"


def inline(text: str) -> str:
    """A rules file as one line for the worker: comments dropped, rules joined by ';'."""
    rules = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    return ";".join(r for r in rules if r)
