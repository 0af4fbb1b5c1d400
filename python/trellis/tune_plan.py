"""Which candidates `trellis tune` measures at one point: the model (`trellis simulate`
on the calibrated machine) ranks the algorithm table's space and the best few are
measured, with the MPI library's own (`mpi`) and the built-in rules' choice always
among them.

The space is searched as tune_space says: every algorithm's structures level by level,
then the numbers of each algorithm's best structures, all under the model. A candidate
the model cannot run (the builder refuses the call) is never measured."""

import json
import math
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from trellis import native, tune_space
from trellis.native import TrellisError
from trellis.tune_space import Candidate, Layout

# Structures of each algorithm whose numbers are refined under the model.
REFINED_STRUCTURES = 2
# At most this share of the measured candidates (rounded up) from one algorithm, so the
# few measured are not all one algorithm's variations.
SAME_ALGORITHM_SHARE = 0.5


@dataclass(frozen=True)
class Point:
    """One thing to decide: a collective on a layout at one size (sizeless ones: all the
    sizes together)."""

    coll: str
    layout: Layout
    sizes: tuple[int, ...]  # nominal sizes (bench/latency's rows)

    @property
    def key(self) -> str:
        return f"{self.layout.ranks}x{self.layout.hosts}:{self.coll}:" + ",".join(
            map(str, self.sizes)
        )

    def rule_bytes(self, size: int) -> int:
        return tune_space.rule_bytes(self.coll, size, self.layout.ranks)


class Model:
    """The simulator on one model file: predicted ns of a candidate at a point's size
    (inf where it cannot run), remembered."""

    def __init__(self, model: Path, jobs: int | None = None) -> None:
        self.model = model
        self.jobs = jobs or max(2, os.cpu_count() or 2)
        self.memo: dict[tuple, float] = {}
        self.calls = 0

    def _args(self, coll: str, layout: Layout, nbytes: int) -> list[str]:
        args = [coll, "--ranks", str(layout.ranks), "--topology", layout.topology()]
        if coll != "barrier":
            args += ["--bytes", str(nbytes), "--elem-size", str(tune_space.elem_size(coll))]
        return args

    def _one(self, c: Candidate, layout: Layout, nbytes: int) -> float:
        try:
            out = native.info("simulate", *self._args(c.coll, layout, nbytes), "--model",
                              str(self.model), "--rules", c.rule())  # fmt: skip
        except TrellisError:
            return math.inf
        return float(json.loads(out)["predicted_ns"])

    def predict(self, cands: list[Candidate], layout: Layout, nbytes: int) -> list[float]:
        todo = [c for c in dict.fromkeys(cands) if (c, layout, nbytes) not in self.memo]
        if todo:
            with ThreadPoolExecutor(self.jobs) as pool:
                times = list(pool.map(lambda c: self._one(c, layout, nbytes), todo))
            self.calls += len(todo)
            for c, t in zip(todo, times, strict=True):
                self.memo[(c, layout, nbytes)] = t
        return [self.memo[(c, layout, nbytes)] for c in cands]

    def predict_point(self, cands: list[Candidate], point: Point) -> list[float]:
        """Over a point's sizes: the geometric mean of the predictions."""
        per_size = [self.predict(cands, point.layout, point.rule_bytes(s)) for s in point.sizes]
        return [math.exp(sum(math.log(max(t, 1e-9)) for t in ts) / len(ts))
                for ts in zip(*per_size, strict=True)]  # fmt: skip


def builtin_choice(point: Point, size: int, algorithms: list[dict]) -> Candidate:
    """What the built-in rules choose for the call, as a candidate (for labels and to
    measure it once, not twice): parameters equal to the table's defaults left out, as
    tune_space writes candidates."""
    coll, layout = point.coll, point.layout
    args = [coll, "--ranks", str(layout.ranks), "--topology", layout.topology(), "--json"]
    if coll != "barrier":
        args += ["--bytes", str(point.rule_bytes(size)),
                 "--elem-size", str(tune_space.elem_size(coll))]  # fmt: skip
    meta = json.loads(native.info("explain", *args))
    if meta["algorithm"] == "mpi":
        return tune_space.mpi(coll)
    algo = tune_space.table_index(algorithms)[(coll, meta["algorithm"])]
    given = {p["name"]: p["value"] for p in meta["params"]}
    return tune_space.candidate(coll, algo, given)


def ranked(point: Point, algorithms: list[dict], model: Model) -> dict[Candidate, float]:
    """The space under the model: each algorithm's structures level by level, then the
    numbers of its best structures. Every candidate predicted, with its prediction."""
    table = tune_space.table_index(algorithms)
    top_size = point.rule_bytes(max(point.sizes))

    def predict(cands: list[Candidate]) -> list[float]:
        return model.predict_point(cands, point)

    seen: dict[Candidate, float] = {}
    for algo in tune_space.algorithms_of(point.coll, algorithms):
        shapes = tune_space.descend(point.coll, algo, point.layout, predict)
        seen.update(shapes)
        best = sorted((c for c, t in shapes.items() if math.isfinite(t)), key=shapes.__getitem__)
        for s in best[:REFINED_STRUCTURES]:
            more = tune_space.refine(s, algo, table, top_size)
            seen.update(zip(more, predict(more), strict=True))
    return seen


def top(predicted: dict[Candidate, float], k: int) -> list[Candidate]:
    """The k fastest under the model that it could run, equal predictions of one
    algorithm counted once (its simplest form), no algorithm more than its share."""
    cap = max(1, math.ceil(k * SAME_ALGORITHM_SHARE))
    out: list[Candidate] = []
    per_algo: dict[str, int] = {}
    seen_times: set[tuple[str, float]] = set()
    order = sorted((c for c, t in predicted.items() if math.isfinite(t)),
                   key=lambda c: (predicted[c], len(c.params)))  # fmt: skip
    for c in order:
        key = (c.algorithm, predicted[c])
        if key in seen_times or per_algo.get(c.algorithm, 0) >= cap:
            continue
        seen_times.add(key)
        per_algo[c.algorithm] = per_algo.get(c.algorithm, 0) + 1
        out.append(c)
        if len(out) == k:
            break
    return out


Planner = Callable[[Point], tuple[list[Candidate], dict[Candidate, float]]]
