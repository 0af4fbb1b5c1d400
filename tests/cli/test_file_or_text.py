"""TRELLIS_RULES and TRELLIS_TOPOLOGY hold a file name or the text itself: the Python side
(`trellis run`, `trellis bench`) and the C side (the runtime, through trellis-info) must
decide alike, and text that cannot be a path (too long a name, a newline) must never reach
the file system, where it failed with "File name too long"."""

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from trellis import native
from trellis.bench_matrix import parse_config

LONG_RULES = "; ".join(["allreduce bytes=-1K recursive_doubling"] * 12)  # 450 characters
LONG_LAYOUT = " ".join(f"host={i}" for i in range(60))  # a 60-rank layout, 400 characters


def c_says_file(variable: str, value: str, cwd: Path) -> bool:
    """Whether the C side read `value` as a file name: its errors say so, and what the
    files in `place` hold differs from any text here (a 3-rank layout, a rules file's
    name as the chosen rule's source)."""
    info = str(native.built_file(native.INFO_TOOL))
    if variable == "TRELLIS_RULES":
        argv = [info, "explain", "barrier", "--ranks", "1", "--json", "--rules", value]
    else:
        argv = [info, "layout", "--json", "--topology", value]
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, check=False)
    if proc.returncode:
        return "cannot read" in proc.stderr  # a file it could not read; else the text's error
    if variable == "TRELLIS_RULES":
        return json.loads(proc.stdout)["rule"]["source"] not in {"TRELLIS_RULES", "built-in"}
    return json.loads(proc.stdout)["ranks"] == 3


@pytest.fixture
def place(tmp_path: Path) -> Path:
    (tmp_path / "my rules").write_text("barrier linear\n")
    (tmp_path / "my layout").write_text("hosts=3 ranks_per_host=1\n")
    (tmp_path / "barrier linear\nbarrier dissemination").write_text("barrier binomial\n")
    return tmp_path


@pytest.mark.parametrize(
    ("variable", "value", "is_file"),
    [
        ("TRELLIS_RULES", "barrier linear", False),
        ("TRELLIS_RULES", "mine.rules", True),  # one word: a file name, even if missing
        ("TRELLIS_RULES", "  my rules  ", True),  # blanks, but it exists
        ("TRELLIS_RULES", "barrier linear\nbarrier dissemination", False),  # exists: a newline
        ("TRELLIS_RULES", LONG_RULES, False),
        ("TRELLIS_RULES", f"barrier linear # {'x' * 300}", False),
        ("TRELLIS_TOPOLOGY", "hosts=1 ranks_per_host=1", False),
        ("TRELLIS_TOPOLOGY", "host=0", False),  # one word, but a layout has '='
        ("TRELLIS_TOPOLOGY", "mylayout", True),
        ("TRELLIS_TOPOLOGY", "my layout", True),
        ("TRELLIS_TOPOLOGY", LONG_LAYOUT, False),
    ],
)  # fmt: skip
def test_python_and_c_decide_alike(place: Path, variable: str, value: str, is_file: bool) -> None:
    assert native.names_file(value, variable, place) == is_file
    assert c_says_file(variable, value, place) == is_file


@pytest.mark.parametrize(
    ("value", "want"),
    [("a" * 255, True), ("a" * 256, False), ("/".join(["a" * 200] * 20), True),
     ("/".join(["a" * 200] * 21), False), ("a\nb", False), ("é" * 128, False)],
)  # fmt: skip
def test_could_be_path_counts_bytes(value: str, want: bool) -> None:
    assert native.could_be_path(value) == want


def test_run_takes_long_inline_rules_and_layouts(run_trellis) -> None:
    """Crashed with OSError: File name too long before."""
    proc = run_trellis("run", "--dry-run", "--rules", LONG_RULES, "--topology", LONG_LAYOUT,
                       "-np", "60", "./x")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    words = shlex.split(proc.stdout)
    assert f"TRELLIS_RULES={LONG_RULES}" in words
    assert f"TRELLIS_TOPOLOGY={LONG_LAYOUT}" in words


def test_run_makes_a_file_with_blanks_absolute(run_trellis, place: Path) -> None:
    proc = run_trellis("run", "--dry-run", "--rules", "my rules", "-np", "2", "./x", cwd=place)
    assert proc.returncode == 0, proc.stderr
    assert f"TRELLIS_RULES={place / 'my rules'}" in shlex.split(proc.stdout)


def test_bench_config_takes_long_inline_rules(place: Path) -> None:
    cwd = Path.cwd()
    os.chdir(place)
    try:
        config = parse_config(f"long:rules={LONG_RULES}")
        named = parse_config("named:rules=my rules")
    finally:
        os.chdir(cwd)
    assert config.env == {"TRELLIS_RULES": LONG_RULES}
    assert named.env == {"TRELLIS_RULES": str(place / "my rules")}
