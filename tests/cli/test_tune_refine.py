"""`trellis tune`'s sizes between (tune_refine): where a collective's winner changes
between two tuned sizes far apart, the size halfway is measured with both winners among
its candidates, pass after pass; on a synthetic machine whose winner changes at a known
size, the rules written put the boundary next to it. `--check` then counts the sizes
between as tuned."""

import argparse
import json
import math
import re
import time
from pathlib import Path

import pytest

from trellis import cmd_tune, native, tune_check, tune_plan, tune_refine, tune_rules, tune_space
from trellis.tune_run import Session
from trellis.tune_space import Candidate, Layout
from trellis.tune_worker import Block

MODEL = Path(native.repo_root()) / "python" / "trellis" / "models" / "default.model"
LAYOUT = Layout(4, 1, 4)


def outcome(size: int, winner: str, coll: str = "bcast", builtin: str = "binomial",
            layout: Layout = LAYOUT) -> tune_rules.Outcome:  # fmt: skip
    return tune_rules.Outcome(
        coll=coll, layout=layout, sizes=[size], nbytes=tune_space.rule_bytes(coll, size, 4),
        winner=winner, winner_rule="" if winner == "built-in" else winner, builtin=builtin,
        measured=[tune_rules.Measured(winner, 10.0, 1.0, 1.0, 1.0, 3)], rounds=3)  # fmt: skip


def test_midpoint() -> None:
    assert tune_refine.midpoint(4, 256) == 32
    assert tune_refine.midpoint(256, 4096) == 1024
    assert tune_refine.midpoint(4096, 65536) == 16384
    assert tune_refine.midpoint(65536, 262144) == 131072
    assert tune_refine.midpoint(65536, 131072) is None  # closer than 4x
    assert tune_refine.midpoint(4, 8) is None
    assert tune_refine.midpoint(0, 64) is None


def test_gaps_where_the_choice_changes() -> None:
    other = Layout(16, 4, 4)
    outcomes = [
        outcome(4, "linear"), outcome(256, "linear"),  # the same: nothing between
        outcome(4096, "built-in", builtin="linear"),  # the built-in's choice is linear too
        outcome(65536, "pipeline segment=16K"),  # changed: 16K between
        outcome(262144, "built-in", builtin="binomial"),  # changed: 128K between
        outcome(1 << 20, "binomial"),  # the built-in's choice at 256K: the same
        outcome(4, "ring", coll="allgather"), outcome(64, "bruck", coll="allgather"),
        outcome(4, "linear", coll="alltoallv"), outcome(65536, "pairwise", coll="alltoallv"),
        outcome(4096, "linear", layout=other), outcome(65536, "binomial", layout=other),
        outcome(4, "ring", coll="allreduce"), outcome(4096, "built-in", coll="allreduce"),
        outcome(65536, "ring", coll="allreduce"),
    ]  # fmt: skip
    # allreduce: ring measured 2% slower than the built-in's choice (binomial) at 4K, and
    # binomial 1% slower than ring at 4B: either serves between. At 64K binomial was 5%
    # slower: 16K between.
    outcomes[-3].measured.append(tune_rules.Measured("binomial", 10.1, 1.01, 1.0, 1.02, 3))
    outcomes[-2].measured.append(tune_rules.Measured("ring", 10.2, 1.02, 1.0, 1.04, 3))
    outcomes[-1].measured.append(tune_rules.Measured("built-in", 10.5, 1.05, 1.03, 1.07, 3))
    found = [(p.coll, p.layout.ranks, p.sizes, lo.sizes[0], hi.sizes[0])
             for p, lo, hi in tune_refine.gaps(outcomes)]  # fmt: skip
    assert found == [("bcast", 4, (16384,), 4096, 65536),
                     ("bcast", 4, (131072,), 65536, 262144),
                     ("allgather", 4, (16,), 4, 64),
                     ("bcast", 16, (16384,), 4096, 65536),
                     ("allreduce", 4, (16384,), 4096, 65536)]  # fmt: skip


def test_labels_read_back_as_candidates() -> None:
    for label in ("mpi", "ring segment=16K",
                  "hier host=knomial(radix=4) world=knomial(radix=4)"):  # fmt: skip
        c = tune_refine.from_label("bcast", label)
        assert c is not None
        assert c.label == label
        assert c.rule() == f"bcast {label}"
    for label in ("built-in", "tuned", "", "ring  segment=16K", "ring 16K"):
        assert tune_refine.from_label("bcast", label) is None
    lo = outcome(4096, "built-in", builtin="linear")
    hi = outcome(65536, "pipeline segment=16K")
    assert tune_refine.neighbours(lo, hi) == [Candidate("bcast", "linear"),
                                              Candidate("bcast", "pipeline",
                                                        (("segment", "16K"),))]  # fmt: skip


def test_expected_counts_pairs_far_apart() -> None:
    sizes = [4, 256, 4096, 65536, 262144, 1 << 20]
    assert tune_refine.expected(["bcast", "barrier", "alltoallv"], sizes) == 2.5
    assert tune_refine.expected(["bcast"], [4, 8]) == 0.0


class SizedMachine:
    """A synthetic machine whose fastest bcast changes at 20 KiB: linear below, chain
    above; every other configuration slower at every size."""

    def __init__(self) -> None:
        self.rules: dict[int, str] = {}
        self.sizes: list[int] = []

    def define(self, cid: int, rules: str) -> str | None:
        self.rules[cid] = rules
        return None

    def measure(self, coll: str, size: int, iters: int, ids: list[int],
                timeout: float) -> list[Block]:  # fmt: skip
        del coll, timeout
        self.sizes.append(size)
        out = []
        for cid in ids:
            rules = self.rules[cid]
            t = 100.0
            if rules == "bcast linear":
                t = 50.0 if size < 20 << 10 else 80.0
            elif rules == "bcast chain":
                t = 80.0 if size < 20 << 10 else 50.0
            out.append(Block(cid, "time", size, iters, t, t, t, t))
        return out


def test_refined_run_puts_the_boundary_where_the_winner_changes(tmp_path: Path) -> None:
    machine = SizedMachine()
    session = Session(machine.measure, machine.define, block_s=0.001)
    args = argparse.Namespace(top=2, exhaustive=False, block_ms=1.0, refine=True,
                              sizes=[4096, 1 << 20])  # fmt: skip
    algorithms = json.loads(native.info("algorithms"))
    ctx = {"outcomes": [], "done": set(), "model": tune_plan.Model(MODEL),
           "algorithms": algorithms, "state": tmp_path / "s.json", "config": {},
           "deadline": time.monotonic() + 600, "total": 2, "later": 0}  # fmt: skip
    # The two given sizes, each decided by the machine; both winners named by hand (the
    # model's few may not hold them).
    for size, win in ((4096, "linear"), (1 << 20, "chain")):
        point = tune_plan.Point("bcast", LAYOUT, (size,))
        plan = cmd_tune.plan_point(point, args, ctx["model"], algorithms,
                                   also=[Candidate("bcast", win)])  # fmt: skip
        cmd_tune.run_plans([plan], session, args, ctx, 0.0)
        assert ctx["outcomes"][-1].winner == win
    cmd_tune.refine_job(LAYOUT, session, args, ctx)
    got = {o.sizes[0]: o.winner for o in ctx["outcomes"]}
    # 64K between 4K and 1M, then 16K, then 32K: 16K is linear's, 32K chain's.
    assert got == {4096: "linear", 1 << 20: "chain", 65536: "chain", 16384: "linear",
                   32768: "chain"}  # fmt: skip
    assert cmd_tune.unrefined(LAYOUT, ctx) == []
    assert ctx["total"] == 5
    assert all(s in got for s in machine.sizes)
    # The boundary between linear and chain: the geometric mean of 16K and 32K.
    rules = [line for line in tune_rules.rules_file(ctx["outcomes"], []).splitlines()
             if line and not line.startswith("#")]  # fmt: skip
    head = "bcast ranks=4 hosts=1 ranks_per_host=4"
    assert rules == [f"{head} bytes=0-{int(math.sqrt(16384 * 32768))} linear",
                     f"{head} bytes={int(math.sqrt(16384 * 32768)) + 1}- chain"]  # fmt: skip
    # Over budget: no pass starts.
    ctx["outcomes"].append(outcome(1 << 22, "linear"))
    ctx["deadline"] = time.monotonic() - 1
    cmd_tune.refine_job(LAYOUT, session, args, ctx)
    assert [p.sizes for p, _, _ in cmd_tune.unrefined(LAYOUT, ctx)] == [(2 << 20,)]
    lines = cmd_tune.summary_lines(ctx["outcomes"][:-1], args, 1.0, unrefined=1)
    assert (
        "3 sizes between measured where the winner changed: bcast 64 KiB, bcast 16 KiB, "
        "bcast 32 KiB; 1 more not measured: the budget was spent"
    ) in lines


def test_check_counts_sizes_between_as_tuned(tmp_path: Path) -> None:
    rules = tmp_path / "t.rules"
    rules.write_text("bcast linear\n")
    args = argparse.Namespace(colls=["bcast", "alltoallv"], sizes=[4, 4096])
    assert tune_check.tuned_sizes(rules, args) == {"bcast": [4, 4096], "alltoallv": [4, 4096]}
    outcomes = [outcome(4, "linear"), outcome(4096, "binomial"), outcome(64, "linear"),
                outcome(4, "linear", coll="alltoallv")]  # fmt: skip
    outcomes[-1].sizes = [4, 4096]
    config = {"colls": ["bcast", "alltoallv"], "sizes": [4, 4096]}
    (tmp_path / "t.rules.json").write_text(json.dumps(
        {"config": config, "outcomes": [o.to_json() for o in outcomes]}))  # fmt: skip
    sizes = tune_check.tuned_sizes(rules, args)
    assert sizes == {"bcast": [4, 64, 4096], "alltoallv": [4, 4096]}
    assert tune_check.between(sizes["bcast"]) == [16, 512]


@pytest.mark.parametrize("flag", ["--refine", "--no-refine"])
def test_refine_is_an_option(flag: str) -> None:
    parser = argparse.ArgumentParser()
    cmd_tune.add_parser(parser.add_subparsers())
    args = parser.parse_args(["tune", flag])
    assert args.refine is (flag == "--refine")
    assert parser.parse_args(["tune"]).refine is True


def test_no_size_between_repeats_a_neighbours_call() -> None:
    # reduce_scatter on 16 ranks: under 64 bytes every size is a call of one element a
    # rank, so 32 B between 4 B and 256 B would measure 4 B's call again.
    layout = Layout(16, 4, 4)
    sized = []
    for size, winner in ((4, "recursive_halving"), (256, "built-in"), (4096, "recursive_halving")):
        o = outcome(size, winner, coll="reduce_scatter", builtin="hier", layout=layout)
        o.nbytes = tune_space.rule_bytes("reduce_scatter", size, 16)
        sized.append(o)
    assert tune_refine.gaps(sized[:2]) == []
    assert [p.sizes for p, _, _ in tune_refine.gaps(sized[1:])] == [(1024,)]


def test_sizes_of_one_call_get_no_empty_range() -> None:
    # A run whose sizes share a call (as one before the check above could measure) still
    # writes a file the rules' grammar takes: no range runs backwards.
    layout = Layout(16, 4, 4)
    sized = []
    for size, winner in ((4, "built-in"), (32, "recursive_halving"), (16, "built-in"),
                         (256, "recursive_halving")):  # fmt: skip
        o = outcome(size, winner, coll="reduce_scatter", builtin="hier", layout=layout)
        o.nbytes = tune_space.rule_bytes("reduce_scatter", size, 16)
        sized.append(o)
    text = tune_rules.rules_file(sized, ["h"])
    ranges = re.findall(r"bytes=(\d+)-(\d*)", text)
    assert ranges, text
    assert all(not hi or int(lo) <= int(hi) for lo, hi in ranges), text
    assert "(the same call as the size before: no range of its own)" in text
    rules = [line for line in text.splitlines() if line and not line.startswith("#")]
    head = "reduce_scatter ranks=16 hosts=4 ranks_per_host=4 commutative=yes"
    assert rules == [f"{head} bytes=129- recursive_halving"], text
