"""The run-time tracer (TRELLIS_TRACE, `trellis run --trace`) and `trellis trace`: real
mpirun jobs of tests/mpi/trace_prog (a known sequence of collectives, one rank late in
its last allreduce), their records against `trellis explain`'s schedules, the clocks,
the bound on memory, and what `trellis trace` makes of them (issue 15)."""

import itertools
import json
import os
import re
import subprocess
import sys

import pytest
from test_runtime import BUILD, LIBRARY, mpirun, trellis_run

from trellis import timeline

PROGRAM = str(BUILD / "tests" / "mpi" / "trace_prog")
RULES = "allreduce recursive_doubling; bcast binomial"
RANKS = 4
LATE_RANK, LATE_MS = 2, 300


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    """One traced run of 4 ranks, rank 2 late by 300 ms in the last big allreduce."""
    out = tmp_path_factory.mktemp("trace")
    proc = trellis_run("-np", str(RANKS), "--trace", str(out), "--rules", RULES, PROGRAM,
                       str(LATE_RANK), str(LATE_MS), timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "trace_prog ranks=4: ok" in proc.stdout
    return out


def lines(directory):
    return [json.loads(line) for f in sorted(directory.glob("rank-*.jsonl"))
            for line in f.read_text().splitlines()]  # fmt: skip


def explained(collective: str, nbytes: int, **extra: str) -> dict:
    args = [str(BUILD / "trellis-info"), "explain", collective, "--ranks", str(RANKS),
            "--bytes", str(nbytes), "--rules", RULES, "--json"]  # fmt: skip
    for k, v in extra.items():
        args += [f"--{k.replace('_', '-')}", v]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def test_every_rank_writes_its_calls_in_order(traced) -> None:
    recs = lines(traced)
    files = sorted(p.name for p in traced.glob("rank-*.jsonl"))
    assert files == [f"rank-{r:05d}.jsonl" for r in range(RANKS)]
    calls = [r for r in recs if r["type"] == "call" and r["rank"] == 0]
    got = [(c["collective"], c["bytes"], c["algorithm"]) for c in calls]
    want = [("allreduce", 4096, "recursive_doubling")] * 3 + [("bcast", 4096, "binomial")] * 2
    want += [("allreduce", 4096, "recursive_doubling"), ("allreduce", 4, "recursive_doubling")]
    assert got == want
    assert all(c["rule"].startswith("TRELLIS_RULES:") for c in calls)
    assert [c["root"] for c in calls if c["collective"] == "bcast"] == [1, 1]
    # The same call has the same number on every rank, and no two calls share one.
    ids = {r["rank"]: [c["call"] for c in recs if c["type"] == "call" and c["rank"] == r["rank"]]
           for r in recs if r["type"] == "rank"}  # fmt: skip
    assert all(v == ids[0] for v in ids.values())
    assert len(set(ids[0])) == len(ids[0])


@pytest.mark.parametrize("which", [0, 3, 6])
def test_the_steps_are_the_schedule(traced, which) -> None:
    """A traced call's step records are `trellis explain`'s schedule step for step: kind,
    peer, tag, bytes and phase; each step's times in order; sends pair with receives."""
    recs = lines(traced)
    call_id = [c["call"] for c in recs if c["type"] == "call" and c["rank"] == 0][which]
    call = next(c for c in recs if c["type"] == "call" and c["call"] == call_id)
    extra = {"root": "1"} if call["collective"] == "bcast" else {}
    if call["collective"] == "allreduce":
        extra["elem_size"] = "4"
    plan = explained(call["collective"], call["bytes"], **extra)
    steps = [r for r in recs if r["type"] == "step" and r["call"] == call_id]
    for s in plan["schedules"]:
        mine = sorted((r for r in steps if r["rank"] == s["rank"]), key=lambda r: r["step"])
        assert len(mine) == s["nsteps"]
        assert [r["phase"] for r in mine] == s["phases"]
        listed = [re.match(r"\s+l\d+: (\w+)\s+(.*)", line)
                  for line in s["steps"].splitlines()[1:]]  # fmt: skip
        assert [m.group(1) for m in listed] == [r["kind"] for r in mine]
        for m, r in zip(listed, mine, strict=True):
            if r["kind"] in ("send", "recv"):
                peer = int(re.search(r"(?:to|from) (\d+)", m.group(2)).group(1))
                tag = int(re.search(r"tag (\d+)", m.group(2)).group(1))
                assert (r["peer"], r["tag"], r["level"]) == (peer, tag, "socket")
            count = int(re.search(r" x(\d+)", m.group(2)).group(1))
            assert r["bytes"] == count * plan["elem_size"]
            assert r["t_ready"] <= r["t_posted"] <= r["t_done"]
    sends = {(r["rank"], r["peer"], r["tag"]) for r in steps if r["kind"] == "send"}
    recvs = {(r["peer"], r["rank"], r["tag"]) for r in steps if r["kind"] == "recv"}
    assert sends
    assert sends == recvs


def test_a_late_rank_shows_as_the_others_waiting(traced) -> None:
    tl = timeline.read_records(sorted(traced.glob("rank-*.jsonl")))
    order = sorted(tl.calls, key=lambda c: tl.entries["t_enter"][tl.entries["call"] == c].min())
    report = timeline.analyze_call(tl, order[5])  # the late allreduce
    # The others wait on messages the late rank holds up: receives posted before their
    # sends (waiting), sends whose receiver is not there yet (counted as transferring).
    held = report.per_rank["waiting"] + report.per_rank["transferring"]
    held_up = dict(zip(report.ranks.tolist(), held.tolist(), strict=True))
    others = [w for r, w in held_up.items() if r != LATE_RANK]
    assert min(others) > 0.5 * LATE_MS * 1e6, held_up
    assert held_up[LATE_RANK] < 0.25 * min(others), held_up
    first = report.path[0]
    assert (first.what, first.rank) == ("entry", LATE_RANK)
    assert report.total >= LATE_MS * 1e6


def test_clock_offsets_are_within_their_stated_error(traced) -> None:
    """All ranks share this machine's clock, so the true offset is 0: each estimate must
    be within its own stated error of it."""
    ranks = [r for r in lines(traced) if r["type"] == "rank"]
    assert len(ranks) == RANKS
    for r in ranks:
        assert abs(r["clock_offset_ns"]) <= r["clock_error_ns"], r
        assert r["clock_error_ns"] > 0 or r["rank"] == 0


def test_trace_command_writes_perfetto_and_png(traced, tmp_path) -> None:
    perfetto, picture = tmp_path / "t.json", tmp_path / "t.png"
    proc = subprocess.run(
        [sys.executable, "-m", "trellis", "trace", str(traced), "--perfetto", str(perfetto),
         "--png", str(picture), "--calls", "2"],
        capture_output=True, text=True, check=False,
        env={**os.environ, "TRELLIS_BUILD": str(BUILD)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "7 traced calls, 4 ranks" in proc.stdout
    assert "allreduce, 4096 bytes, recursive_doubling: 4 calls" in proc.stdout
    assert "waiting for a late peer" in proc.stdout
    events = json.loads(perfetto.read_text())["traceEvents"]
    steps = [e for e in events if e["ph"] == "X" and e["cat"] != "call"]
    assert len(steps) == sum(1 for r in lines(traced) if r["type"] == "step")
    starts = [e for e in events if e["ph"] == "s"]
    ends = [e for e in events if e["ph"] == "f"]
    assert starts
    assert sorted(e["id"] for e in starts) == sorted(e["id"] for e in ends)
    # Slices on one track never overlap unless nested (what trace viewers need).
    by_track: dict = {}
    for e in steps:
        by_track.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for spans in by_track.values():
        spans.sort()
        assert all(a[1] <= b[0] + 1e-6 for a, b in itertools.pairwise(spans))
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_memory_is_bounded_by_the_calls_kept(tmp_path) -> None:
    proc = trellis_run("-np", "2", "--trace", str(tmp_path), PROGRAM,
                       env={"TRELLIS_TRACE_CALLS": "2"}, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for f in tmp_path.glob("rank-*.jsonl"):
        recs = [json.loads(line) for line in f.read_text().splitlines()]
        (rank,) = [r for r in recs if r["type"] == "rank"]
        assert (rank["calls"], rank["calls_kept"]) == (7, 2)
        assert [r["bytes"] for r in recs if r["type"] == "call"] == [4096, 4]


def test_trace_of_a_directory_without_records_says_why(tmp_path) -> None:
    proc = subprocess.run([sys.executable, "-m", "trellis", "trace", str(tmp_path)],
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert proc.returncode != 0
    assert "holds no rank-*.jsonl files" in proc.stderr


def trace_json(where, *extra: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "trellis", "trace", str(where), "--json",
                           "--calls", "0", *extra],
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_reused_directory_is_read_one_run_at_a_time(tmp_path) -> None:
    """Issue 35: a run of 3 ranks, then one of 2 into the same directory: each file
    names its run, `trellis trace` reads the newest run's files only and says what it
    left out, and `trellis run --trace` clears what an earlier trace left."""
    out = tmp_path / "trz"
    proc = trellis_run("-np", "3", "--trace", str(out), PROGRAM, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # TRELLIS_TRACE set directly, as a batch script would: nothing clears the directory.
    proc = mpirun("-np", "2", "-x", f"LD_PRELOAD={LIBRARY}", "-x", f"TRELLIS_TRACE={out}",
                  PROGRAM, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    heads = {f.name: json.loads(f.read_text().splitlines()[0])
             for f in sorted(out.glob("rank-*.jsonl"))}  # fmt: skip
    assert len(heads) == 3
    new, old = heads["rank-00000.jsonl"], heads["rank-00002.jsonl"]
    assert heads["rank-00001.jsonl"]["run"] == new["run"] != old["run"]
    assert (new["world_size"], old["world_size"]) == (2, 3)
    got = trace_json(out)
    assert (got["run"], got["ranks"]) == (new["run"], 2)
    assert "holds the files of 2 runs" in got["notes"][0]
    assert f"left out run {old['run']}: rank-00002.jsonl" in got["notes"][0]
    # The earlier run on its own, with the ranks it lost said.
    got = trace_json(out, "--run", old["run"][:6])
    assert (got["run"], got["ranks"]) == (old["run"], 1)
    assert (
        "had 3 ranks, 1 of them left a file (missing: rank-00000.jsonl, rank-00001.jsonl)"
    ) in got["notes"][0]
    proc = trellis_run("-np", "2", "--trace", str(out), PROGRAM, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    said = "removed what an earlier trace left there (3 rank files, trace.json, timeline.png)"
    assert said in proc.stderr
    assert sorted(f.name for f in out.iterdir()) == ["rank-00000.jsonl", "rank-00001.jsonl"]


NEIGHBOR_PROGRAM = str(BUILD / "tests" / "mpi" / "coll_check_neighbor")
COMBINE = 64
NEIGHBOR_RULES = "; ".join(f"neighbor_{c} locality combine={COMBINE}"
                           for c in ("alltoallv", "allgatherv", "alltoallw"))  # fmt: skip


def test_a_neighbourhood_calls_sizes_open_its_record(tmp_path) -> None:
    """A blocking v or w neighbourhood call under `locality` exchanges its block sizes
    within each host before its schedule runs, and sends the blocks above combine= with
    them: those steps open the call's record (phases `sizes`, then `direct`), the call
    starts when they do, the schedule's steps and `after` follow them, and sends still
    pair with receives by tag over the whole record; `trellis trace` reads it."""
    out = tmp_path / "nb"
    proc = trellis_run("-np", "4", "--topology", "hosts=2 ranks_per_host=2",
                       "--trace", str(out), "--rules", NEIGHBOR_RULES, NEIGHBOR_PROGRAM,
                       "--quick", timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 failed" in proc.stdout, proc.stdout
    recs = lines(out)
    forms = {f"neighbor_{c}" for c in ("alltoallv", "allgatherv", "alltoallw")}
    calls = [c for c in recs if c["type"] == "call" and c["collective"] in forms]
    assert {c["algorithm"] for c in calls} == {"locality"}
    steps: dict = {}
    for r in recs:
        if r["type"] == "step":
            steps.setdefault((r["call"], r["rank"]), []).append(r)
    opened, direct = set(), 0
    for c in calls:
        mine = sorted(steps.get((c["call"], c["rank"]), []), key=lambda r: r["step"])
        assert [r["step"] for r in mine] == list(range(len(mine)))
        phases = [r["phase"] for r in mine]
        ahead = sum(1 for p in phases if p in ("sizes", "direct"))
        # The helper's steps first, the exchange before the blocks that ride with it.
        n_sizes = phases.count("sizes")
        assert phases[:ahead] == ["sizes"] * n_sizes + ["direct"] * (ahead - n_sizes), phases
        if ahead:
            opened.add(c["collective"])
            assert all(r["bytes"] % 8 == 0 for r in mine if r["phase"] == "sizes")
            assert all(r["bytes"] > COMBINE for r in mine if r["phase"] == "direct")
            direct += phases.count("direct")
        for i, r in enumerate(mine):
            assert c["t_enter"] <= r["t_ready"] <= r["t_posted"] <= r["t_done"] <= c["t_exit"]
            if r["after"] is not None:
                # A schedule's step waits on its own steps, numbered after the helper's.
                assert (r["after"] < ahead) == (i < ahead), (i, ahead, r)
                assert mine[r["after"]]["t_done"] <= r["t_ready"], (r, mine[r["after"]])
    assert opened == forms
    assert direct
    ids = {c["call"] for c in calls}
    every = [r for r in recs if r["type"] == "step" and r["call"] in ids]
    sends = [(r["call"], r["rank"], r["peer"], r["tag"]) for r in every if r["kind"] == "send"]
    recvs = [(r["call"], r["peer"], r["rank"], r["tag"]) for r in every if r["kind"] == "recv"]
    assert len(set(sends)) == len(sends)  # the k-th message from a to b: tag k, once
    assert sorted(sends) == sorted(recvs)
    got = trace_json(out)
    assert got["ranks"] == 4
