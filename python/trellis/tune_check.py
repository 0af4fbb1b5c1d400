"""`trellis tune --check RULES`: how close tuned rules come to the best measured, at the
sizes they were tuned at and between them.

At each point (a collective at a size) the rules file's choice ("tuned") is measured
with the built-in rules, `mpi` and the model's best few, interleaved as `trellis tune`
measures (tune_run, tune_stats, without a built-in to keep); its penalty is its median
over the best's, less one. The tuned sizes are those of the file's run (RULES.json: each
collective's, sizes between included) or --sizes; between two of them, their geometric
mean.

The best is the candidate that measured fastest, and on a noisy machine the fastest of
several equal candidates measures faster than it is: a penalty read from the blocks that
chose it leans high. So where another candidate won, the tuned choice and that winner are
measured again, CONFIRM_ROUNDS rounds of the two alone, and the held-out penalty is read
from those fresh blocks (0 where the tuned choice won). Both are reported.

And the noise itself is measured: the tuned rules run a second time at every point under
another name ("tuned again", the control), and its penalty, by the same reckoning, is
what an identical configuration scores here: a mean penalty no larger than the
control's is within what this measurement can resolve."""

import argparse
import itertools
import json
import math
import statistics
import sys
import time
from pathlib import Path

from trellis import cmd_tune, tune_plan, tune_rules, tune_space
from trellis.native import TrellisError
from trellis.tune_plan import Model
from trellis.tune_run import Session, confirm, run_point

CONFIRM_ROUNDS = 8


def between(sizes: list[int]) -> list[int]:
    """The sizes between adjacent tuned ones: their geometric means, in whole 4-byte
    elements."""
    out = []
    for a, b in itertools.pairwise(sizes):
        mid = max(4, int(math.sqrt(a * b)) // 4 * 4)
        if a < mid < b:
            out.append(mid)
    return out


def tuned_sizes(path: Path, args: argparse.Namespace) -> dict[str, list[int]]:
    """Each collective's tuned sizes: those its run measured (RULES.json, sizes between
    included), else --sizes."""
    state = path.with_suffix(path.suffix + ".json")
    if not state.is_file():
        return {c: sorted(args.sizes) for c in args.colls}
    saved = json.loads(state.read_text())
    out = {c: set(saved["config"]["sizes"]) for c in saved["config"]["colls"]}
    for o in saved["outcomes"]:
        if o["coll"] not in tune_space.SIZELESS:
            out[o["coll"]].update(o["sizes"])
    return {c: sorted(sizes) for c, sizes in out.items()}


def builtin_changed(path: Path) -> str:
    """A warning where the built-in rules in force differ from those the file's run
    measured against (RULES.json): the sizes the file leaves to the built-in rules would
    run other choices than the run kept there."""
    then = cmd_tune.recorded_builtin_rules(path)
    if then is None or then == cmd_tune.builtin_rules_id():
        return ""
    return (
        f"trellis tune --check: warning: the built-in rules differ from those {path.name} "
        f"was tuned against (the library rebuilt with other rules, or TRELLIS_TUNED set "
        f"otherwise): the sizes it leaves to the built-in rules run the current ones\n"
    )


def run(args: argparse.Namespace, extra: list[str]) -> str:
    path: Path = args.check
    if not path.is_file():
        raise TrellisError(f"trellis tune --check: no rules file {path}", 2)
    text = tune_rules.inline(path.read_text())
    try:
        sys.stderr.write(builtin_changed(path))
        sizes = tuned_sizes(path, args)
    except json.JSONDecodeError as e:
        raise TrellisError(
            f"trellis tune --check: {path}.json, its run's record, is not JSON "
            f"({e}): remove it to check at --sizes",
            2,
        ) from e
    mids = {c: set(between(s)) for c, s in sizes.items()}
    model = Model(args.model or cmd_tune.calibrate(args, extra, path.with_suffix(".model")))
    algorithms = json.loads(cmd_tune.native.info("algorithms"))
    counts = args.np or [None]
    rows: list[tuple[str, tune_rules.Outcome, float]] = []
    start = time.monotonic()
    deadline = start + args.budget
    csv_path = path.with_suffix(path.suffix + ".check.csv")
    csv_path.unlink(missing_ok=True)
    for ranks in counts:
        worker = cmd_tune.start_worker(args, extra, ranks)
        try:
            layout = tune_space.Layout(worker.ranks, worker.hosts, worker.ranks_per_host)
            session = Session(worker.measure, worker.define, csv_path=csv_path,
                              block_s=args.block_ms / 1000)  # fmt: skip
            points = [p for c, s in sizes.items()
                      for p in cmd_tune.points_for(layout, [c],
                                                   sorted({*s, *mids[c]}))]  # fmt: skip
            for i, point in enumerate(points):
                tuned = tune_space.Candidate(point.coll, tune_space.TUNED_NAME, text=text)
                predicted = tune_plan.ranked(point, algorithms, model)
                cands = [tuned, tune_space.again(tuned), tune_space.builtin(point.coll),
                         tune_space.mpi(point.coll),
                         *tune_plan.top(predicted, args.top)]  # fmt: skip
                share = max(deadline - time.monotonic(), 0.0) / (len(points) - i)
                o = run_point(session, point, list(dict.fromkeys(cands)), builtin_label="",
                              deadline=time.monotonic() + share)  # fmt: skip
                where = "between" if point.sizes[0] in mids[point.coll] else "tuned"
                rows.append((where, o, held_out(session, point, o, cands)))
                t = o.of("tuned")
                cmd_tune.bar(len(rows), len(points) * len(counts), deadline - time.monotonic(),
                             f"{point.coll} {tune_rules.size_words(point.sizes[0])} ({where}): "
                             f"tuned {t.ratio if t else math.nan:.3f}x the best")  # fmt: skip
        finally:
            worker.close()
    return report(rows)


def held_out(session: Session, point: tune_plan.Point, o: tune_rules.Outcome,
             cands: list[tune_space.Candidate]) -> float:  # fmt: skip
    """The tuned choice over the point's winner in fresh blocks of the two alone (1 where
    the tuned choice won; nan where either could not be measured again)."""
    if o.winner == "tuned":
        return 1.0
    by_label = {c.label: c for c in cands}
    if "tuned" not in by_label or o.winner not in by_label:
        return math.nan
    r = confirm(session, point, (by_label["tuned"], by_label[o.winner]), CONFIRM_ROUNDS,
                first_round=o.rounds)  # fmt: skip
    return r.estimate


def report(rows: list[tuple[str, tune_rules.Outcome, float]]) -> str:
    """A line per point, then the mean penalties: from the blocks that chose the best
    (in-sample) and from fresh ones (held out; below 0 where the tuned choice beat the
    winner there, counted as 0 in the mean penalty and as it is in the plain mean)."""
    lines = [(f"{'collective':<21} {'size':>9} {'where':<8} {'tuned us':>9} {'penalty':>8} "
             f"{'held out':>8} {'best':<40} {'built-in':>9} {'mpi':>7}")]  # fmt: skip
    penalties: dict[str, list[float]] = {"tuned": [], "between": []}
    held: dict[str, list[float]] = {"tuned": [], "between": []}
    control: dict[str, list[float]] = {"tuned": [], "between": []}
    for where, o, again in rows:
        t, b, m, c = o.of("tuned"), o.of("built-in"), o.of("mpi"), o.of("tuned again")
        pen = (t.ratio - 1) if t and math.isfinite(t.ratio) else math.nan
        penalties[where].append(max(pen, 0.0))
        if c and math.isfinite(c.ratio):
            control[where].append(max(c.ratio - 1, 0.0))
        if math.isfinite(again):
            held[where].append(again - 1)
        size = "-" if o.coll == "barrier" else tune_rules.size_words(o.sizes[0])
        tuned_us = t.median_us if t else math.nan
        b_ratio, m_ratio = (x.ratio if x else math.nan for x in (b, m))
        lines.append(f"{o.coll:<21} {size:>9} {where:<8} {tuned_us:>9.1f} {100 * pen:>7.1f}% "
                     f"{100 * (again - 1):>7.1f}% {o.winner[:40]:<40} {b_ratio:>8.2f}x "
                     f"{m_ratio:>6.2f}x")  # fmt: skip
    for where, ps in penalties.items():
        cs, hs = control[where], held[where]
        if ps:
            lines.append(f"mean penalty against the best at the {where} sizes: "
                         f"{100 * statistics.fmean(ps):.1f}% over {len(ps)} points "
                         f"(max {100 * max(ps):.1f}%)")  # fmt: skip
        if cs:
            lines.append(f"control (the tuned rules again, under another name) at the {where} "
                         f"sizes: mean penalty {100 * statistics.fmean(cs):.1f}% over "
                         f"{len(cs)} points: the noise of this measure")  # fmt: skip
        if hs:
            lines.append(f"held out, at the {where} sizes: mean penalty "
                         f"{100 * statistics.fmean(max(h, 0.0) for h in hs):.1f}% over "
                         f"{len(hs)} points (max {100 * max(hs):.1f}%); mean of the "
                         f"ratios less one {100 * statistics.fmean(hs):+.1f}%")  # fmt: skip
    return "\n".join(lines) + "\n"
