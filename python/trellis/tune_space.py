"""The candidates `trellis tune` considers for one collective on one layout at one size,
generated from the algorithm table (`trellis algorithms --json`), never from a hand list.

Every algorithm of the collective that can serve a plain (intra)communicator call and
needs no file (`tree`) is a candidate, with its parameters:

- the structure first: which levels a hierarchy has (`levels=`, from the layout) and
  which algorithm each level or step runs (`host=knomial`, `reduce=chain`: the names the
  table says that parameter may take), in every combination, each with default numbers;
- then numbers, for the structures the model ranks best (`refine`): every integer and
  size parameter over a grid within the table's range (radix 2, 4, 8, 16; segments of
  4 KiB to 4 MiB smaller than the message), and each level's own numbers, one level at a
  time.

Nested levels never run a hierarchy themselves (`hier` inside `host=`): the levels
parameter says what a hierarchy is made of. `mpi` (the library's own) and the built-in
choice are added by the caller."""

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

# Message sizes a segment parameter tries (bytes): 4 KiB x 4^k.
SEGMENTS = [4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20]
# The largest integer tried (radix, pipeline depth): beyond 16 ranks a tree of radix 16
# is flat enough.
INT_CAP = 16
REDUCTIONS = {"reduce", "allreduce", "reduce_scatter", "reduce_scatter_block", "scan",
              "exscan"}  # fmt: skip
# Collectives whose rules may not filter on bytes (docs/rules.md): one winner for all
# sizes.
SIZELESS = {"barrier", "gatherv", "scatterv", "alltoallv", "alltoallw"}
LEVEL_NAMES = ("numa", "socket", "group", "host", "world")


@dataclass(frozen=True)
class Layout:
    """Where the ranks of the tuned communicator sit: hosts of equal size, by block."""

    ranks: int
    hosts: int
    ranks_per_host: int

    def topology(self) -> str:
        return f"hosts={self.hosts} ranks_per_host={self.ranks_per_host}"

    def filters(self) -> str:
        return f"ranks={self.ranks} hosts={self.hosts} ranks_per_host={self.ranks_per_host}"


@dataclass(frozen=True)
class Candidate:
    """One configuration: an algorithm with the parameters it sets (in table order,
    defaults left out). `mpi` is the library's own; BUILTIN the built-in rules' choice."""

    coll: str
    algorithm: str
    params: tuple[tuple[str, str], ...] = field(default=())
    text: str = ""  # TUNED_NAME: the rules, inline

    @property
    def label(self) -> str:
        if self.algorithm == BUILTIN_NAME:
            return "built-in"
        if self.algorithm == TUNED_NAME:
            return "tuned"
        if self.algorithm == AGAIN_NAME:
            return "tuned again"
        return " ".join([self.algorithm, *(f"{k}={v}" for k, v in self.params)])

    def rule(self, filters: str = "") -> str:
        """The rules that choose this candidate: BUILTIN none (empty), TUNED a file's."""
        if self.algorithm == BUILTIN_NAME:
            return ""
        if self.algorithm == TUNED_NAME:
            return self.text
        if self.algorithm == AGAIN_NAME:  # the same rules, told apart by a comment
            return f"{self.text} # again"
        return " ".join(x for x in (self.coll, filters, self.label) if x)


BUILTIN_NAME = "(built-in)"
TUNED_NAME = "(tuned)"
# --check's control: the tuned rules a second time, under another name and worker id, so
# that how far apart two names of one configuration measure is measured too.
AGAIN_NAME = "(tuned again)"


def builtin(coll: str) -> Candidate:
    return Candidate(coll, BUILTIN_NAME)


def again(tuned: Candidate) -> Candidate:
    return Candidate(tuned.coll, AGAIN_NAME, text=tuned.text)


def mpi(coll: str) -> Candidate:
    return Candidate(coll, "mpi")


def rule_bytes(coll: str, nominal: int, ranks: int) -> int:
    """The size as rules mean `bytes` for a tuned row of nominal size (bench/latency's
    rows, 4-byte elements: latency_colls.c coll_row)."""
    if coll == "barrier":
        return 0
    if coll in ("reduce_scatter", "reduce_scatter_block"):
        return max(1, nominal // 4 // ranks) * ranks * 4
    return max(1, nominal // 4) * 4


def elem_size(coll: str) -> int:
    """Bytes per element as the runtime sees a tuned call: 4 for reductions (float);
    data movers move bytes."""
    return 4 if coll in REDUCTIONS else 1


def serves_intra(algo: dict) -> bool:
    """Can serve a tuned call: an intracommunicator algorithm of Trellis that needs no
    file."""
    return (not algo["mpi"] and "intercommunicator" not in algo["restrictions"]
            and not any(p["required"] for p in algo["params"]))  # fmt: skip


def level_names(layout: Layout) -> list[str]:
    """The `levels=` values worth trying on this layout: host,world, and groups of K
    ranks within a host for K a power of two below the ranks per host."""
    out = ["host,world"]
    k = 2
    while k < layout.ranks_per_host:
        out.append(f"group:{k},host,world")
        k *= 2
    return out


def _used_levels(levels: str) -> list[str]:
    return [part.split(":")[0] for part in levels.split(",")]


def _nested(param: dict) -> list[str]:
    """What an ALGO or LEVEL parameter may name, hierarchies left out."""
    return [name for name in param["runs"] or [] if not name.startswith("hier")]


def int_values(param: dict) -> list[str]:
    lo, hi = max(param["min"], 1), min(param["max"], INT_CAP)
    values, v = set(), 1
    while v <= hi:
        if v >= lo:
            values.add(v)
        v *= 2
    values.add(int(param["default"]))
    return [str(v) for v in sorted(values)]


def size_values(param: dict, nbytes: int) -> list[str]:
    """Segments smaller than the message (a larger one does not cut it); the default
    stays, standing for no cut where it is not smaller."""
    keep = [s for s in SEGMENTS if param["min"] <= s <= param["max"] and s < nbytes]
    texts = [size_text(s) for s in keep]
    if param["default"] not in texts:
        texts.append(param["default"])
    return texts


def size_text(n: int) -> str:
    for suffix, shift in (("M", 20), ("K", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{suffix}"
    return str(n)


def candidate(coll: str, algo: dict, chosen: dict[str, str]) -> Candidate:
    """The candidate with these values, in table order, defaults dropped."""
    params = tuple((p["name"], chosen[p["name"]]) for p in algo["params"]
                   if p["name"] in chosen and chosen[p["name"]] != p["default"])  # fmt: skip
    return Candidate(coll, algo["name"], params)


def _axes(algo: dict, levels: str | None) -> list[tuple[str, list[str]]]:
    """The structural parameters of an algorithm with a given `levels=` (None: it has
    none) and the values each may take; levels the hierarchy does not have are left
    out."""
    used = _used_levels(levels) if levels else None
    axes: list[tuple[str, list[str]]] = []
    for p in algo["params"]:
        if p["kind"] == "level algorithm" and used is not None and p["name"] not in used and \
                p["name"] in LEVEL_NAMES:  # fmt: skip
            continue
        if p["kind"] in ("level algorithm", "algorithm"):
            axes.append((p["name"], _nested(p)))
        elif p["kind"] == "choice" and p["choices"]:
            axes.append((p["name"], p["choices"].split("|")))
    return axes


def _level_choices(algo: dict, layout: Layout) -> list[str | None]:
    has_levels = any(p["kind"] == "levels" for p in algo["params"])
    return list(level_names(layout)) if has_levels else [None]


def _with_levels(algo: dict, chosen: dict[str, str], levels: str | None) -> dict[str, str]:
    if levels:
        name = next(p["name"] for p in algo["params"] if p["kind"] == "levels")
        chosen = {**chosen, name: levels}
    return chosen


def structures(coll: str, algo: dict, layout: Layout) -> list[Candidate]:
    """Every structure of the algorithm: levels and each step's algorithm in every
    combination, numbers at their defaults (the exhaustive search's)."""
    out: list[Candidate] = []
    for levels in _level_choices(algo, layout):
        axes = _axes(algo, levels)
        names = [name for name, _ in axes]
        for combo in itertools.product(*(values for _, values in axes)):
            chosen = _with_levels(algo, dict(zip(names, combo, strict=True)), levels)
            out.append(candidate(coll, algo, chosen))
    return _unique(out)


Predict = Callable[[list[Candidate]], list[float]]


def descend(coll: str, algo: dict, layout: Layout, predict: Predict,
            passes: int = 2) -> dict[Candidate, float]:  # fmt: skip
    """The structures of the algorithm searched level by level under the model: for
    each `levels=`, each step's algorithm in turn takes the value the model predicts
    fastest with the others held, twice over. Returns every structure predicted (a
    prediction of inf: the model could not run it)."""
    seen: dict[Candidate, float] = {}

    def score(cands: list[Candidate]) -> list[float]:
        todo = [c for c in dict.fromkeys(cands) if c not in seen]
        for c, t in zip(todo, predict(todo) if todo else [], strict=True):
            seen[c] = t
        return [seen[c] for c in cands]

    for levels in _level_choices(algo, layout):
        axes = _axes(algo, levels)
        current = {name: _default(algo, name) for name, _ in axes}
        score([candidate(coll, algo, _with_levels(algo, current, levels))])
        for _ in range(passes if axes else 0):
            for name, values in axes:
                options = [{**current, name: v} for v in values]
                cands = [candidate(coll, algo, _with_levels(algo, o, levels)) for o in options]
                times = score(cands)
                current = options[min(range(len(options)), key=times.__getitem__)]
    return seen


def _default(algo: dict, name: str) -> str:
    return next(p["default"] for p in algo["params"] if p["name"] == name)


def refine(c: Candidate, algo: dict, table: dict[tuple[str, str], dict],
           nbytes: int) -> list[Candidate]:  # fmt: skip
    """The numbers of one structure: its own integer and size parameters in every
    combination, then each level's algorithm's own numbers, one level at a time."""
    chosen = dict(c.params)
    axes = []
    for p in algo["params"]:
        if p["kind"] == "int":
            axes.append((p["name"], int_values(p)))
        elif p["kind"] == "size":
            axes.append((p["name"], size_values(p, nbytes)))
    out = [c]
    names = [name for name, _ in axes]
    for combo in itertools.product(*(values for _, values in axes)):
        out.append(candidate(c.coll, algo, {**chosen, **dict(zip(names, combo, strict=True))}))
    for p in algo["params"]:
        if p["kind"] != "level algorithm":
            continue
        name = chosen.get(p["name"], p["default"])
        if "(" in name:
            continue
        inner = table.get((p["of"], name))
        if not inner:
            continue
        inner_axes = [(q["name"], int_values(q) if q["kind"] == "int" else
                       size_values(q, nbytes)) for q in inner["params"]
                      if q["kind"] in ("int", "size")]  # fmt: skip
        for combo in itertools.product(*(values for _, values in inner_axes)):
            set_ = [
                f"{k}={v}"
                for (k, _), v in zip(inner_axes, combo, strict=True)
                if v != next(q["default"] for q in inner["params"] if q["name"] == k)
            ]
            if set_:
                out.append(
                    candidate(c.coll, algo, {**chosen, p["name"]: f"{name}({','.join(set_)})"})
                )
    return _unique(out)


def _unique(cands: list[Candidate]) -> list[Candidate]:
    return list(dict.fromkeys(cands))


def table_index(algorithms: list[dict]) -> dict[tuple[str, str], dict]:
    return {(a["collective"], a["name"]): a for a in algorithms}


def algorithms_of(coll: str, algorithms: list[dict]) -> list[dict]:
    return [a for a in algorithms if a["collective"] == coll and serves_intra(a)]


def space(coll: str, layout: Layout, nbytes: int, algorithms: list[dict]) -> list[Candidate]:
    """The whole space: every structure of every algorithm, each with every number
    (the exhaustive search's candidates)."""
    table = table_index(algorithms)
    out = []
    for algo in algorithms_of(coll, algorithms):
        for s in structures(coll, algo, layout):
            out += refine(s, algo, table, nbytes)
    return _unique(out)
