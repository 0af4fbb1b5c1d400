"""`trellis explain`: the choice, the rule that made it, and the schedule's form."""

import json
import re

import pytest
from goal_text import check_messages_pair, parse_goal

from trellis import native


def chosen_by(stdout: str) -> tuple[str, int, str]:
    m = re.search(r"^chosen by: (.+?):(\d+): (.+)$", stdout, re.MULTILINE)
    assert m, stdout
    return m.group(1), int(m.group(2)), m.group(3)


def algorithm(stdout: str) -> str:
    m = re.search(r"^algorithm: (\w+): ", stdout, re.MULTILINE)
    assert m, stdout
    return m.group(1)


def goal_part(stdout: str) -> str:
    return stdout[stdout.index("num_ranks") :]


def test_builtin_rule_is_named_by_its_line(run_trellis) -> None:
    proc = run_trellis("explain", "allreduce", "--ranks", "4", "--bytes", "8")
    assert proc.returncode == 0, proc.stderr
    source, line, text = chosen_by(proc.stdout)
    assert source == "built-in"
    builtin = native.info("builtin-rules").splitlines()
    assert builtin[line - 1].strip() == text
    assert algorithm(proc.stdout) == text.split()[-1]


def test_user_rule_chooses_and_the_schedule_follows(run_trellis) -> None:
    proc = run_trellis(
        "explain", "bcast", "--ranks", "4", "--bytes", "4K", "--rules", "bcast linear"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("bcast, 4 ranks, 4096 bytes")
    assert algorithm(proc.stdout) == "linear"
    assert chosen_by(proc.stdout) == ("TRELLIS_RULES", 1, "bcast linear")
    num_ranks, ranks = parse_goal(goal_part(proc.stdout))
    assert num_ranks == 4
    assert [r.rank for r in ranks] == [0, 1, 2, 3]
    # The linear bcast: the root sends the whole buffer to each other rank.
    assert sorted(op.peer for _, op in ranks[0].of_kind("send")) == [1, 2, 3]
    assert all(op.nbytes == 4096 for _, op in ranks[0].of_kind("send"))
    assert check_messages_pair(ranks) == 3


def test_environment_rules_apply_without_the_option(run_trellis) -> None:
    proc = run_trellis(
        "explain", "bcast", "--ranks", "3", "--bytes", "8", env={"TRELLIS_RULES": "bcast linear"}
    )
    assert proc.returncode == 0, proc.stderr
    assert chosen_by(proc.stdout) == ("TRELLIS_RULES", 1, "bcast linear")


def test_rules_file_is_named_by_path_and_line(run_trellis, tmp_path) -> None:
    rules = tmp_path / "my.rules"
    rules.write_text("# comment\nreduce bytes=1M- binomial\nreduce linear\n")
    proc = run_trellis("explain", "reduce", "--ranks", "5", "--bytes", "64", "--rules", str(rules))
    assert proc.returncode == 0, proc.stderr
    assert chosen_by(proc.stdout) == (str(rules), 3, "reduce linear")
    assert algorithm(proc.stdout) == "linear"


def test_rule_that_cannot_serve_is_passed_over(run_trellis) -> None:
    proc = run_trellis(
        "explain",
        "allreduce",
        "--ranks",
        "4",
        "--bytes",
        "64",
        "--noncommutative",
        "--rules",
        "allreduce ring",
    )
    assert proc.returncode == 0, proc.stderr
    assert "non-commutative operation" in proc.stdout.splitlines()[0]
    assert re.search(
        r"^passed over: TRELLIS_RULES:1: allreduce ring: .*commutative", proc.stdout, re.MULTILINE
    )
    assert chosen_by(proc.stdout)[0] == "built-in"
    assert algorithm(proc.stdout) != "ring"


def test_every_rule_passed_over_is_named(run_trellis) -> None:
    """Two of the user's rules and a built-in one cannot serve a non-commutative 64 KiB
    allreduce: all three are named, in the order tried, before the one that runs."""
    args = ["explain", "allreduce", "--ranks", "4", "--bytes", "64K", "--noncommutative",
            "--rules", "allreduce ring; allreduce rabenseifner"]  # fmt: skip
    proc = run_trellis(*args)
    assert proc.returncode == 0, proc.stderr
    builtin = native.info("builtin-rules").splitlines()
    raben = next(i for i, ln in enumerate(builtin, 1) if re.fullmatch(
        r"allreduce\s+bytes=32K-\s+rabenseifner", ln))  # fmt: skip
    passed = re.findall(r"^passed over: (\S+?):(\d+): (.*): (.*)$", proc.stdout, re.MULTILINE)
    why = "it needs a commutative operation"
    assert passed == [("TRELLIS_RULES", "1", "allreduce ring", why),
                      ("TRELLIS_RULES", "2", "allreduce rabenseifner", why),
                      ("built-in", str(raben), builtin[raben - 1], why)]  # fmt: skip
    source, line, _ = chosen_by(proc.stdout)
    assert (source, algorithm(proc.stdout)) == ("built-in", "recursive_doubling")
    assert line > raben
    data = json.loads(run_trellis(*args, "--json").stdout)
    assert [(p["line"], p["text"]) for p in data["passed_over"]] == [
        (int(line), text) for _, line, text, _ in passed
    ]
    assert data["rejected"] == data["passed_over"][0]


def test_errors_of_the_c_side_come_without_its_usage_text(run_trellis) -> None:
    for args in (["allreduce", "--ranks", "4", "--bytes", "8", "--root", "1"],
                 ["bcast", "--ranks", "4", "--bytes", "8", "--root", "4"],
                 ["allreduce", "--ranks", "4"]):  # fmt: skip
        proc = run_trellis("explain", *args)
        assert proc.returncode == 2
        assert "usage" not in proc.stderr
        assert "trellis-info" not in proc.stderr
        assert len(proc.stderr.splitlines()) == 1, proc.stderr


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ("bcast hier host=knomial(radix=1)",
         "TRELLIS_RULES:1:12: host=knomial(radix=1): radix=1: value out of range (2..1024)"),
        ("allreduce hier world=linear",
         ("TRELLIS_RULES:1:16: world=linear: not an algorithm a level can run (expected one of: "
         "reduce_bcast, recursive_doubling, ring, rabenseifner, knomial, direct, hier, "
         "hier_sharded)")),
    ],
)  # fmt: skip
def test_level_errors_say_what_is_accepted(run_trellis, rules: str, message: str) -> None:
    proc = run_trellis("explain", "bcast", "--ranks", "4", "--bytes", "8", "--rules", rules)
    assert proc.returncode == 2
    assert proc.stderr == f"trellis: {message}\n"


def test_parameters_given_and_defaults(run_trellis) -> None:
    given = run_trellis(
        "explain", "bcast", "--ranks", "8", "--bytes", "1K", "--rules", "bcast knomial radix=3"
    )
    assert given.returncode == 0, given.stderr
    assert re.search(r"^parameters: radix=3$", given.stdout, re.MULTILINE), given.stdout
    default = run_trellis(
        "explain", "bcast", "--ranks", "8", "--bytes", "1K", "--rules", "bcast knomial"
    )
    assert default.returncode == 0, default.stderr
    assert re.search(r"^parameters: radix=4 \(default\)$", default.stdout, re.MULTILINE)


def test_mpi_algorithm_has_no_schedule(run_trellis) -> None:
    proc = run_trellis(
        "explain", "allreduce", "--ranks", "4", "--bytes", "8", "--rules", "allreduce mpi"
    )
    assert proc.returncode == 0, proc.stderr
    assert algorithm(proc.stdout) == "mpi"
    assert "no schedule: the MPI library's own MPI_Allreduce runs" in proc.stdout
    assert "rank 0 {" not in proc.stdout


def test_one_rank_only(run_trellis) -> None:
    proc = run_trellis(
        "explain", "bcast", "--ranks", "4", "--bytes", "8", "--rules", "bcast linear", "--rank", "2"
    )
    assert proc.returncode == 0, proc.stderr
    goal = goal_part(proc.stdout)
    assert goal.splitlines()[0] == "num_ranks 4"
    assert re.findall(r"^rank (\d+) \{$", goal, re.MULTILINE) == ["2"]
    assert "l1: recv 8b from 0 tag 0" in goal


def test_steps_form(run_trellis) -> None:
    proc = run_trellis(
        "explain", "bcast", "--ranks", "3", "--bytes", "16", "--elem-size", "8", "--steps",
        "--rules", "bcast linear",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "num_ranks" not in proc.stdout
    assert "(2 elements of 8 bytes)" in proc.stdout
    assert re.findall(r"^rank (\d+): \d+ steps", proc.stdout, re.MULTILINE) == ["0", "1", "2"]
    assert re.search(r"^\s+l1: send\s+recv\+0 to 1 x2 tag 0$", proc.stdout, re.MULTILINE)


def test_goal_form_is_the_json_goal(run_trellis) -> None:
    args = ["explain", "reduce", "--ranks", "6", "--bytes", "96", "--elem-size", "8",
            "--root", "5", "--rules", "reduce linear"]  # fmt: skip
    goal = run_trellis(*args, "--goal")
    data = run_trellis(*args, "--json")
    assert goal.returncode == 0, goal.stderr
    assert data.returncode == 0, data.stderr
    info = json.loads(data.stdout)
    assert info["algorithm"] == "linear"
    assert info["root"] == 5
    assert info["count"] == 12
    assert info["rule"] == {"source": "TRELLIS_RULES", "line": 1, "text": "reduce linear"}
    assert info["rejected"] is None
    assert info["passed_over"] == []
    assert [s["rank"] for s in info["schedules"]] == list(range(6))
    assert goal.stdout == "num_ranks 6\n" + "".join(s["goal"] for s in info["schedules"])
    num_ranks, ranks = parse_goal(goal.stdout)
    assert num_ranks == 6
    # The linear reduce: every rank sends its 96 bytes to the root, rank 5.
    assert sorted(op.peer for _, op in ranks[5].of_kind("recv")) == [0, 1, 2, 3, 4]
    assert check_messages_pair(ranks) == 5


def test_bytes_suffixes(run_trellis) -> None:
    for text, nbytes in (("2K", 2048), ("1M", 1 << 20), ("3k", 3072), ("100", 100)):
        proc = run_trellis(
            "explain", "bcast", "--ranks", "2", "--bytes", text, "--rules", "bcast linear"
        )
        assert proc.returncode == 0, proc.stderr
        assert f"l1: send {nbytes}b to 1 tag 0" in proc.stdout


def test_bad_rule_is_reported_with_its_position(run_trellis) -> None:
    proc = run_trellis(
        "explain", "allreduce", "--ranks", "4", "--bytes", "8", "--rules", "allreduce nosuch"
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    # Column 11: the algorithm's name.
    assert re.match(r"trellis: TRELLIS_RULES:1:11: .*nosuch", proc.stderr), proc.stderr


def test_bad_second_rule_is_reported_on_its_line(run_trellis) -> None:
    proc = run_trellis(
        "explain", "bcast", "--ranks", "4", "--bytes", "8",
        "--rules", "bcast linear;bcast bytes=oops linear",
    )  # fmt: skip
    assert proc.returncode == 2
    assert re.match(r"trellis: TRELLIS_RULES:2:\d+: ", proc.stderr), proc.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["allgatherz", "--ranks", "4", "--bytes", "8"], "unknown collective"),
        (["bcast", "--ranks", "0", "--bytes", "8"], "--ranks"),
        (["bcast", "--bytes", "8"], "--ranks"),
        (["bcast", "--ranks", "4"], "--bytes"),
        (["bcast", "--ranks", "4", "--bytes", "8", "--root", "4"], "--root 4 is not a rank of 4"),
        (["scatterv", "--ranks", "3", "--bytes", "8", "--root", "3"], "--root 3 is not a rank"),
        (["allreduce", "--ranks", "4", "--bytes", "8", "--root", "1"],
         "--root applies to rooted collectives only (allreduce has no root)"),
        (["allgather", "--ranks", "4", "--bytes", "8", "--root", "0"],
         "--root applies to rooted collectives only (allgather has no root)"),
        (["exscan", "--ranks", "4", "--bytes", "8", "--root", "0"], "(exscan has no root)"),
        (["bcast", "--ranks", "4", "--bytes", "8", "--rank", "9"], "--rank"),
        (["bcast", "--ranks", "4", "--bytes", "9", "--elem-size", "2"], "whole number"),
        (["barrier", "--ranks", "4", "--bytes", "8"], "no data"),
        (["bcast", "--ranks", "4", "--bytes", "8", "--noncommutative"],
         "--noncommutative applies to reductions only (bcast has no operation)"),
        (["alltoall", "--ranks", "4", "--bytes", "8", "--noncommutative"],
         "--noncommutative applies to reductions only (alltoall has no operation)"),
        (["gatherv", "--ranks", "4"], "--bytes B is required for gatherv"),
        (["reduce_scatter_block", "--ranks", "4", "--bytes", "30"],
         "--bytes 30 (the whole vector) does not split into 4 equal blocks"),
        (["reduce_scatter_block", "--ranks", "4", "--bytes", "24", "--elem-size", "8"],
         "does not split into 4 equal blocks of 8-byte elements"),
        (["bcast", "--ranks", "4", "--bytes", "8x"], "--bytes"),
        (["bcast", "--ranks", "4", "--bytes", "8", "--goal", "--json"], "not allowed"),
    ],
)  # fmt: skip
def test_bad_arguments_exit_2(run_trellis, args, message) -> None:
    proc = run_trellis("explain", *args)
    assert proc.returncode == 2, proc.stdout
    assert message in proc.stderr
    assert proc.stdout == ""


def test_missing_build_says_how_to_get_it(run_trellis, tmp_path) -> None:
    proc = run_trellis(
        "explain", "bcast", "--ranks", "2", "--bytes", "8", env={"TRELLIS_BUILD": str(tmp_path)}
    )
    assert proc.returncode == 1
    assert proc.stderr.startswith("trellis: no trellis-info: looked in ")
    assert (
        f"{tmp_path / 'trellis-info'}; TRELLIS_BUILD names a build directory without it"
        in proc.stderr
    )


def test_builtin_rules_are_shown_numbered_as_cited(run_trellis) -> None:
    shown = run_trellis("explain", "--builtin-rules")
    assert shown.returncode == 0, shown.stderr
    numbered = {
        int(m.group(1)): m.group(2).strip()
        for m in re.finditer(r"^\s*(\d+)  (.*)$", shown.stdout, re.MULTILINE)
    }
    # Every collective's choice cites a line that the listing shows with that text.
    collectives = {a["collective"] for a in json.loads(native.info("algorithms"))}
    assert len(collectives) == 22
    for coll in sorted(collectives):
        extra = {"barrier": [], "bcast": ["--bytes", "1M"], "allreduce": ["--bytes", "64K"],
                 "reduce_scatter_block": ["--bytes", "40"]}.get(coll, ["--bytes", "8"])  # fmt: skip
        proc = run_trellis("explain", coll, "--ranks", "5", *extra)
        assert proc.returncode == 0, proc.stderr
        source, line, text = chosen_by(proc.stdout)
        assert source == "built-in"
        assert numbered[line] == text


def test_explain_without_a_call_is_a_usage_error(run_trellis) -> None:
    proc = run_trellis("explain", "bcast")
    assert proc.returncode == 2
    assert "--ranks" in proc.stderr


def test_rooted_collective_with_its_root(run_trellis) -> None:
    proc = run_trellis(
        "explain", "gather", "--ranks", "4", "--bytes", "16", "--root", "2", "--rules",
        "gather linear",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("gather, 4 ranks, 16 bytes (16 elements of 1 byte), root 2\n")
    num_ranks, ranks = parse_goal(goal_part(proc.stdout))
    assert num_ranks == 4
    # The linear gather: every other rank sends its 16-byte block to the root.
    assert sorted(op.peer for _, op in ranks[2].of_kind("recv")) == [0, 1, 3]
    assert all(op.nbytes == 16 for _, op in ranks[2].of_kind("recv"))
    assert check_messages_pair(ranks) == 3

    data = json.loads(
        run_trellis(
            "explain", "scatter", "--ranks", "3", "--bytes", "8", "--root", "1", "--json",
            "--rules", "scatter linear",
        ).stdout
    )  # fmt: skip
    assert (data["collective"], data["root"], data["algorithm"]) == ("scatter", 1, "linear")
    _, ranks = parse_goal("num_ranks 3\n" + "".join(s["goal"] for s in data["schedules"]))
    assert sorted(op.peer for _, op in ranks[1].of_kind("send")) == [0, 2]


def test_unrooted_collective_has_no_root_in_json(run_trellis) -> None:
    proc = run_trellis("explain", "exscan", "--ranks", "3", "--bytes", "8", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["root"] is None
    assert data["commutative"] is True


def test_new_reduction_states_its_operation(run_trellis) -> None:
    proc = run_trellis(
        "explain", "reduce_scatter", "--ranks", "3", "--bytes", "64", "--noncommutative",
        "--rules", "reduce_scatter ring",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == (
        "reduce_scatter, 3 ranks, 64 bytes (64 elements of 1 byte), non-commutative operation"
    )
    # The ring needs a commutative operation: passed over, a built-in rule chooses.
    assert re.search(
        r"^passed over: TRELLIS_RULES:1: reduce_scatter ring: .*commutative",
        proc.stdout,
        re.MULTILINE,
    )
    assert chosen_by(proc.stdout)[0] == "built-in"


@pytest.mark.parametrize(
    ("collective", "args", "seen"),
    [
        # One rank's block, not all of them.
        ("alltoall", ["--ranks", "4", "--bytes", "8"], 8),
        ("gather", ["--ranks", "4", "--bytes", "8"], 8),
        ("scatter", ["--ranks", "4", "--bytes", "8", "--root", "3"], 8),
        ("allgather", ["--ranks", "4", "--bytes", "8"], 8),
        # The average block: every block alike here.
        ("allgatherv", ["--ranks", "4", "--bytes", "8"], 8),
        # The whole vector reduced, not one rank's block of it.
        ("reduce_scatter_block", ["--ranks", "4", "--bytes", "32", "--elem-size", "4"], 32),
        ("reduce_scatter", ["--ranks", "3", "--bytes", "10"], 10),
        # The message.
        ("scan", ["--ranks", "4", "--bytes", "8"], 8),
        ("exscan", ["--ranks", "4", "--bytes", "8"], 8),
    ],
)
def test_bytes_filter_sees_what_the_rules_document(run_trellis, collective, args, seen) -> None:
    # Rules for any other size come first: only the documented size reaches line 3.
    first, second = [
        a["name"] for a in json.loads(native.info("algorithms")) if a["collective"] == collective
    ][:2]
    exact = f"{collective} bytes={seen} {second}"
    rules = (
        f"{collective} bytes=-{seen - 1} {first}; {collective} bytes={seen + 1}- {first}; {exact}"
    )
    proc = run_trellis("explain", collective, *args, "--rules", rules)
    assert proc.returncode == 0, proc.stderr
    assert chosen_by(proc.stdout) == ("TRELLIS_RULES", 3, exact)
    assert algorithm(proc.stdout) == second


@pytest.mark.parametrize("collective", ["gatherv", "scatterv", "alltoallv", "alltoallw"])
def test_bytes_filter_is_a_rules_error_on_vector_collectives(run_trellis, collective) -> None:
    rules = f"{collective} bytes=0-1K linear"
    proc = run_trellis("explain", collective, "--ranks", "3", "--bytes", "8", "--rules", rules)
    assert proc.returncode == 2
    assert proc.stdout == ""
    column = len(collective) + 2
    assert proc.stderr.startswith(
        f"trellis: TRELLIS_RULES:1:{column}: filter 'bytes' does not apply to {collective} "
    ), proc.stderr
    assert "each rank knows only its own counts" in proc.stderr


def test_commutative_filter_is_a_rules_error_without_an_operation(run_trellis) -> None:
    proc = run_trellis(
        "explain", "gather", "--ranks", "3", "--bytes", "8",
        "--rules", "gather commutative=yes linear",
    )  # fmt: skip
    assert proc.returncode == 2
    assert re.match(
        r"trellis: TRELLIS_RULES:1:8: filter 'commutative' does not apply to gather", proc.stderr
    ), proc.stderr


def test_unknown_collective_lists_every_collective(run_trellis) -> None:
    proc = run_trellis("explain", "allgatherz", "--ranks", "4", "--bytes", "8")
    assert proc.returncode == 2
    listed = re.search(r"unknown collective 'allgatherz' \(one of ([^)]*)\)", proc.stderr)
    assert listed, proc.stderr
    known = {a["collective"] for a in json.loads(native.info("algorithms"))}
    assert set(listed.group(1).split(", ")) == known
    assert len(known) == 22


@pytest.mark.parametrize(
    ("rules", "layout", "rank", "phases"),
    [
        (
            "allreduce reduce_bcast reduce=binomial bcast=binomial",
            None,
            0,
            ["reduce", "bcast"],
        ),
        # Of 6 ranks, rank 0 hands its vector to rank 1 (the fold) and sits out.
        ("allreduce rabenseifner", None, 0, ["fold"]),
        ("allreduce rabenseifner", None, 1, ["fold", "reduce-scatter", "allgather", "unfold"]),
        (
            (
                "allreduce hier levels=host,world host=binomial "
                "world=reduce_bcast(reduce=rabenseifner,bcast=binomial)"
            ),
            "hosts=2 ranks_per_host=3",
            0,
            [
                "host reduce",
                "world allreduce/reduce/reduce-scatter",
                "world allreduce/reduce/gather",
                "world allreduce/bcast",
                "world allreduce",
                "host bcast",
            ],
        ),
    ],
)
def test_steps_carry_the_phase_of_the_algorithm(run_trellis, rules, layout, rank, phases) -> None:
    """Each step's phase, in --json and as "phase NAME:" lines in --steps: the parts of a
    composed algorithm, and a hierarchy's levels with their algorithms' parts under them."""
    where = ["--topology", layout] if layout else []
    common = ["explain", "allreduce", "--ranks", "6", "--bytes", "96", "--rules", rules, *where]
    proc = run_trellis(*common, "--json")
    assert proc.returncode == 0, proc.stderr
    schedules = json.loads(proc.stdout)["schedules"]
    for s in schedules:
        assert len(s["phases"]) == s["nsteps"]
    mine = schedules[rank]["phases"]
    assert [p for i, p in enumerate(mine) if i == 0 or p != mine[i - 1]] == phases
    steps = run_trellis(*common, "--steps", "--rank", str(rank))
    assert steps.returncode == 0, steps.stderr
    assert re.findall(r"^  phase (.+):$", steps.stdout, re.MULTILINE) == phases


LAYOUT_RULES = (
    "allreduce hosts=2- placement=block hier; "
    "allreduce hosts=2- placement=other direct; "
    "allreduce recursive_doubling"
)


@pytest.mark.parametrize(
    ("where", "want", "saw"),
    [
        (("--topology", "hosts=2 ranks_per_host=4"), ("hier", 1),
         "hosts=2 ranks_per_host=4 placement=block"),
        (("--layout", "hosts=3 ranks_per_host=4,1,3"), ("hier", 1),
         "hosts=3 ranks_per_host=4 placement=block"),
        (("--layout", "hosts=2 ranks_per_host=4 placement=round-robin"), ("direct", 2),
         "hosts=2 ranks_per_host=4 placement=other"),
        (("--layout", "hosts=1 ranks_per_host=8"), ("recursive_doubling", 3),
         "hosts=1 ranks_per_host=8 placement=block"),
        ((), ("recursive_doubling", 3), "hosts=1 ranks_per_host=8 placement=block"),
    ],
)  # fmt: skip
def test_layout_filters_see_the_layout(run_trellis, where, want, saw) -> None:
    args = ["explain", "allreduce", "--ranks", "8", "--bytes", "8", "--rules", LAYOUT_RULES]
    proc = run_trellis(*args, *where)
    assert proc.returncode == 0, proc.stderr
    assert algorithm(proc.stdout) == want[0]
    assert chosen_by(proc.stdout)[:2] == ("TRELLIS_RULES", want[1])
    assert f"the rules saw: {saw}\n" in proc.stdout
    data = json.loads(run_trellis(*args, *where, "--json").stdout)
    assert data["algorithm"] == want[0]
    seen = (data["hosts"], data["ranks_per_host"], data["placement"])
    assert "hosts={} ranks_per_host={} placement={}".format(*seen) == saw


def test_layout_filter_errors_are_located(run_trellis) -> None:
    proc = run_trellis("explain", "bcast", "--ranks", "4", "--bytes", "8", "--rules",
                       "bcast binomial;bcast placement=rr linear")  # fmt: skip
    assert proc.returncode == 2
    assert "TRELLIS_RULES:2:7: placement=rr: expected block or other" in proc.stderr


def test_nonblocking_calls_are_chosen_for_with_their_own_filter(run_trellis) -> None:
    """nonblocking= sees the form of the call; a gatherv tree that exchanges counts first
    is passed over for a call that may not wait (issue 13)."""
    rules = "allreduce nonblocking=yes ring; allreduce knomial"
    for extra, want in (((), "knomial"), (("--nonblocking",), "ring")):
        proc = run_trellis("explain", "allreduce", "--ranks", "4", "--bytes", "8",
                           "--rules", rules, *extra)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert algorithm(proc.stdout) == want
    assert "non-blocking call" in proc.stdout
    proc = run_trellis("explain", "gatherv", "--ranks", "4", "--bytes", "8", "--nonblocking",
                       "--rules", "gatherv binomial", "--json")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["nonblocking"] is True
    assert data["algorithm"] != "binomial"


def test_intercommunicator_call_with_the_root_in_the_first_group(run_trellis) -> None:
    proc = run_trellis(
        "explain", "bcast", "--ranks", "3", "--remote-ranks", "2", "--bytes", "4K", "--root", "1",
        "--rules", "bcast inter_linear",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(
        "bcast, intercommunicator of 3 + 2 ranks (ranks 0-2 and 3-4 below), 4096 bytes"
    )
    assert "root 1 (of the first group)" in proc.stdout
    assert algorithm(proc.stdout) == "inter_linear"
    num_ranks, ranks = parse_goal(goal_part(proc.stdout))
    assert num_ranks == 5
    # The root sends to each rank of the other group; its own group's
    # other ranks (MPI_PROC_NULL) take no part.
    assert sorted(op.peer for _, op in ranks[1].of_kind("send")) == [3, 4]
    assert not ranks[0].ops
    assert not ranks[2].ops
    assert check_messages_pair(ranks) == 2


@pytest.mark.parametrize(("ranks", "remote"), [("2", "5"), ("5", "2")])
def test_intercommunicator_rules_see_the_larger_and_the_smaller_group(
    run_trellis, ranks: str, remote: str
) -> None:
    rules = "allreduce ranks=6- inter_leader; allreduce ranks=5 remote_ranks=2 inter_linear"
    proc = run_trellis(
        "explain", "allreduce", "--ranks", ranks, "--remote-ranks", remote, "--bytes", "64",
        "--rules", rules, "--json",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert info["algorithm"] == "inter_linear"
    assert info["rule"]["line"] == 2
    assert info["remote_ranks"] == int(remote)
    assert [s["rank"] for s in info["schedules"]] == list(range(7))
    goal = "num_ranks 7\n" + "".join(s["goal"] for s in info["schedules"])
    _, scheds = parse_goal(goal)
    # Every rank sends its vector to the other group's rank 0 (0 and 2 or 5).
    assert check_messages_pair(scheds) == 7 + 5


@pytest.mark.parametrize(
    ("coll", "nbytes"), [("allreduce", "4"), ("barrier", "0"), ("bcast", "1M")]
)
def test_intercommunicators_across_hosts_cross_leader_to_leader(
    run_trellis, coll: str, nbytes: str
) -> None:
    """The built-in rules' choice for 8 + 8 ranks with each group on two hosts of four:
    inter_hosts, whose only messages between hosts go between host leaders; on one host
    the same call gets another form."""
    args = ["explain", coll, "--ranks", "8", "--remote-ranks", "8", "--bytes", nbytes, "--json"]
    proc = run_trellis(*args, "--topology", "hosts=4 ranks_per_host=4")
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert info["algorithm"] == "inter_hosts"
    assert info["rule"]["source"] == "built-in"
    goal = "num_ranks 16\n" + "".join(s["goal"] for s in info["schedules"])
    _, scheds = parse_goal(goal)
    leaders = {0, 4, 8, 12}
    crossing = {
        (r, op.peer)
        for r, sched in enumerate(scheds)
        for _, op in sched.of_kind("send")
        if r // 4 != op.peer // 4
    }
    # Every leader to every leader of the other group's hosts (bcast: the root to
    # the other group's two), and nothing else crosses.
    want = (
        {(0, 8), (0, 12)}
        if coll == "bcast"
        else {(a, b) for a in leaders for b in leaders if (a < 8) != (b < 8)}
    )
    assert crossing == want
    one_host = run_trellis(*args, "--topology", "hosts=1 ranks_per_host=16")
    assert one_host.returncode == 0, one_host.stderr
    assert json.loads(one_host.stdout)["algorithm"] != "inter_hosts"


def test_intercommunicator_algorithms_serve_only_intercommunicators(run_trellis) -> None:
    intra = run_trellis(
        "explain", "allreduce", "--ranks", "4", "--bytes", "8", "--rules", "allreduce inter_linear"
    )
    assert intra.returncode == 0, intra.stderr
    assert chosen_by(intra.stdout)[0] == "built-in"
    inter = run_trellis(
        "explain", "allreduce", "--ranks", "2", "--remote-ranks", "2", "--bytes", "8",
        "--rules", "allreduce ring",
    )  # fmt: skip
    assert inter.returncode == 0, inter.stderr
    assert chosen_by(inter.stdout)[0] == "built-in"
    assert algorithm(inter.stdout).startswith("inter_")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["scan", "--bytes", "8"], "MPI defines no scan on intercommunicators"),
        (["reduce_scatter_block", "--bytes", "8"], "does not split into 3 equal blocks"),
        (["bcast", "--bytes", "8", "--rank", "5"], "--rank 5 is not a rank of 5"),
    ],
)
def test_intercommunicator_argument_errors(run_trellis, args: list[str], message: str) -> None:
    proc = run_trellis("explain", args[0], "--ranks", "2", "--remote-ranks", "3", *args[1:])
    assert proc.returncode == 2
    assert message in proc.stderr


def test_neighbors_takes_a_cartesian_shape(run_trellis) -> None:
    # A 2 x 2 torus: each neighbour twice, the blocks paired by direction (algo/nbhd.h):
    # rank 0's send block 1 (to its positive neighbour in dimension 0, rank 2) goes first
    # and meets rank 2's receive block 0 (from its negative neighbour), both tag 0.
    proc = run_trellis("explain", "neighbor_alltoall", "--ranks", "4", "--bytes", "8",
                       "--neighbors", "2px2p", "--steps")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    rank0 = out[out.index("rank 0:") : out.index("rank 1:")]
    rank2 = out[out.index("rank 2:") : out.index("rank 3:")]
    assert "send   send+8 to 2 x8 tag 0" in rank0
    assert "recv   recv+0 from 0 x8 tag 0" in rank2
    bad = run_trellis("explain", "neighbor_alltoall", "--ranks", "4", "--bytes", "8",
                      "--neighbors", "3x2")  # fmt: skip
    assert bad.returncode == 2
    assert "holds 6 ranks; --ranks is 4" in bad.stderr


def test_neighbors_takes_an_edge_list(run_trellis, tmp_path) -> None:
    edges = tmp_path / "edges"
    edges.write_text("# a repeated edge, a self edge\n0 1\n0 1\n2 2\n1 0\n")
    proc = run_trellis("explain", "neighbor_alltoallv", "--ranks", "3", "--bytes", "4",
                       "--neighbors", str(edges), "--steps")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "send   send+4 to 1 x4 tag 1" in out
    assert "copy" in out[out.index("rank 2:") :]
    edges.write_text("0 7\n")
    bad = run_trellis("explain", "neighbor_alltoallv", "--ranks", "3", "--bytes", "4",
                      "--neighbors", str(edges))  # fmt: skip
    assert bad.returncode == 2
    assert "a rank outside 0..2" in bad.stderr
