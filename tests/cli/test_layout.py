"""`trellis layout` and the tool behind it, `trellis-info layout`: where N ranks sit
(docs/topology.md), as the printed line or JSON.

The tool is the build's (build/, or $TRELLIS_BUILD), run directly; the command as a user
runs it.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

from trellis import native

USAGE_ERROR = 2


def layout(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(native.built_file("trellis-info")), "layout", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        check=False,
        timeout=60,
    )


def text_of(*args: str, env: dict[str, str] | None = None) -> str:
    proc = layout(*args, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout.count("\n") == 1
    return proc.stdout.rstrip("\n")


def json_of(*args: str, env: dict[str, str] | None = None) -> dict:
    proc = layout(*args, "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("\n") == 1, "one line"
    return json.loads(proc.stdout)


def failure(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    """The message of a run that must fail with status 2 and print nothing."""
    proc = layout(*args, env=env, cwd=cwd)
    assert proc.returncode == USAGE_ERROR, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    return proc.stderr.splitlines()[0]


# ---- the printed line ------------------------------------------------------------


@pytest.mark.parametrize(
    ("ranks", "topology", "line"),
    [
        (16, "hosts=4 ranks_per_host=4",
         ("layout: 16 ranks on 4 hosts (described): host 0: 0-3 | host 1: 4-7 | host 2: 8-11 | "
          "host 3: 12-15")),
        (8, "hosts=2 ranks_per_host=4 placement=round-robin",
         "layout: 8 ranks on 2 hosts (described): host 0: 0,2,4,6 | host 1: 1,3,5,7"),
        (9, "hosts=3 ranks_per_host=4,3,2",
         "layout: 9 ranks on 3 hosts (described): host 0: 0-3 | host 1: 4-6 | host 2: 7-8"),
        (3, "hosts=3 ranks_per_host=1",
         "layout: 3 ranks on 3 hosts (described): host 0: 0 | host 1: 1 | host 2: 2"),
        (8, "hosts=1 ranks_per_host=8",
         "layout: 8 ranks on 1 host (described): host 0: 0-7"),
        (8, "hosts=2 ranks_per_host=4 sockets_per_host=2",
         "layout: 8 ranks on 2 hosts (described): host 0: [0-1] [2-3] | host 1: [4-5] [6-7]"),
        (5, "host=1,3 host=0,2,4 socket=1 socket=3 socket=0,2,4",
         "layout: 5 ranks on 2 hosts (described): host 0: [1] [3] | host 1: [0,2,4]"),
    ],
)  # fmt: skip
def test_prints_the_layout_line(ranks: int, topology: str, line: str) -> None:
    assert text_of("--ranks", str(ranks), "--topology", topology) == line


def test_without_a_layout_every_rank_is_on_one_host() -> None:
    assert text_of("--ranks", "4") == "layout: 4 ranks on 1 host (discovered): host 0: 0-3"
    got = json_of("--ranks", "4")
    assert got["described"] is False
    assert got["nhosts"] == 1
    assert got["host"] == [0, 0, 0, 0]
    assert got["socket"] == got["numa"] == [-1, -1, -1, -1]
    assert got["hosts"] == [[0, 1, 2, 3]]


# ---- JSON -------------------------------------------------------------------------


def test_json_gives_every_rank_its_place() -> None:
    topology = "hosts=2 ranks_per_host=4 placement=round-robin sockets_per_host=2 numa_per_socket=2"
    got = json_of("--ranks", "8", "--topology", topology)
    assert got == {
        "ranks": 8,
        "described": True,
        "nhosts": 2,
        "host": [0, 1, 0, 1, 0, 1, 0, 1],
        # Each host's ranks in rank order cut into two sockets, each socket's into two NUMA
        # domains: host 0's 0,2 | 4,6 and host 1's 1,3 | 5,7.
        "socket": [0, 2, 0, 2, 1, 3, 1, 3],
        "numa": [0, 4, 1, 5, 2, 6, 3, 7],
        "hosts": [[0, 2, 4, 6], [1, 3, 5, 7]],
        "text": "layout: 8 ranks on 2 hosts (described): host 0: [0,2] [4,6] | host 1: [1,3] [5,7]",
    }
    assert got["text"] == text_of("--ranks", "8", "--topology", topology)


@pytest.mark.parametrize(
    "topology",
    ["hosts=3 ranks_per_host=4,3,2", "hosts=3 ranks_per_host=3 placement=round-robin",
     "host=0,8 host=1-7"],
)  # fmt: skip
def test_json_hosts_list_the_ranks_of_each_host(topology: str) -> None:
    got = json_of("--ranks", "9", "--topology", topology)
    assert len(got["hosts"]) == got["nhosts"]
    for h, ranks in enumerate(got["hosts"]):
        assert ranks == [r for r in range(9) if got["host"][r] == h]


def test_a_large_layout_prints_whole() -> None:
    got = json_of("--ranks", "4096", "--topology", "hosts=4096 ranks_per_host=1")
    assert got["host"] == list(range(4096))
    assert got["text"].endswith("| host 4095: 4095")


# ---- where the layout comes from ------------------------------------------------------


def test_the_environment_applies_without_the_option() -> None:
    env = {"TRELLIS_TOPOLOGY": "hosts=2 ranks_per_host=2"}
    assert json_of("--ranks", "4", env=env)["host"] == [0, 0, 1, 1]
    # --topology wins over the environment.
    assert json_of("--ranks", "4", "--topology", "host=0,2 host=1,3", env=env)["host"] == [
        0, 1, 0, 1,
    ]  # fmt: skip


def test_a_layout_file(tmp_path: Path) -> None:
    path = tmp_path / "layout"
    path.write_text("# two hosts of three\nhosts=2\nranks_per_host=3\n")
    assert json_of("--ranks", "6", "--topology", str(path))["host"] == [0, 0, 0, 1, 1, 1]
    assert json_of("--ranks=6", f"--topology={path}")["nhosts"] == 2
    assert json_of("--ranks", "6", env={"TRELLIS_TOPOLOGY": str(path)})["described"] is True


# ---- errors -----------------------------------------------------------------------------


def test_the_layout_must_describe_exactly_the_ranks() -> None:
    msg = failure("--ranks", "8", "--topology", "hosts=3 ranks_per_host=3")
    assert msg == "trellis: layout: the layout describes 9 ranks, but --ranks is 8"


def test_an_inline_error_gives_line_and_column() -> None:
    msg = failure("--ranks", "9", "--topology", "hosts=3 ranks_per_host=4,3")
    assert msg == (
        "trellis: layout: TRELLIS_TOPOLOGY:1:9: ranks_per_host has 2 counts but hosts=3 "
        "(give one count, or one per host)"
    )


def test_a_file_error_gives_the_line(tmp_path: Path) -> None:
    path = tmp_path / "layout"
    path.write_text("# three hosts\nhost=0-5\nhost=6,7\nhost=8,5\n")
    msg = failure("--ranks", "9", env={"TRELLIS_TOPOLOGY": str(path)})
    assert msg == f"trellis: layout: {path}:4: rank 5 is on host 0 and host 2"


def test_a_missing_file(tmp_path: Path) -> None:
    msg = failure("--ranks", "2", "--topology", "no-such-layout", cwd=tmp_path)
    assert msg == (
        "trellis: layout: TRELLIS_TOPOLOGY: cannot read layout file 'no-such-layout': "
        "No such file or directory"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give --ranks N, a layout (--topology), or both"),
        (["--ranks"], "--ranks needs a value"),
        (["--ranks", "0"], "--ranks: expected a number of ranks from 1 to 1048576, got '0'"),
        (["--ranks=x"], "--ranks: expected a number of ranks from 1 to 1048576, got 'x'"),
        (["--ranks", "4", "--topology"], "--topology needs a value"),
        (["--ranks", "4", "--json=yes"], "--json takes no value"),
        (["--ranks", "4", "--rank", "1"], "unknown option '--rank'"),
    ],
)
def test_bad_options(args: list[str], message: str) -> None:
    proc = layout(*args)
    assert proc.returncode == USAGE_ERROR
    assert proc.stdout == ""
    # The message alone: the tool's usage text is no user's business.
    assert proc.stderr == f"trellis: layout: {message}\n"


def test_a_described_layout_needs_no_ranks() -> None:
    assert json_of("--topology", "hosts=2 ranks_per_host=3")["ranks"] == 6


def test_the_trellis_command_prints_the_layout(run_trellis) -> None:
    proc = run_trellis("layout", "--topology", "hosts=2 ranks_per_host=2 sockets_per_host=2")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (
        "layout: 4 ranks on 2 hosts (described): host 0: [0] [1] | host 1: [2] [3]\n"
    )
    proc = run_trellis("layout", "--ranks", "3", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["hosts"] == [[0, 1, 2]]
    proc = run_trellis("layout", "--ranks", "3", env={"TRELLIS_TOPOLOGY": "host=0 host=1,2"})
    assert proc.stdout == "layout: 3 ranks on 2 hosts (described): host 0: 0 | host 1: 1-2\n"


def test_the_trellis_command_reports_errors_without_the_tools_usage(run_trellis) -> None:
    proc = run_trellis("layout", "--ranks", "8", "--topology", "hosts=3 ranks_per_host=3")
    assert proc.returncode == USAGE_ERROR
    assert proc.stderr == "trellis: layout: the layout describes 9 ranks, but --ranks is 8\n"
    proc = run_trellis("layout")
    assert proc.returncode == USAGE_ERROR
    assert proc.stderr == "trellis: layout: give --ranks N, a layout (--topology), or both\n"
