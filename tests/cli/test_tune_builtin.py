"""The tuned built-in rules are what bench/tune_builtin.sh assembles: its amendments
(rules changed by hand after a run, bench/tune_amendments.rules) first, then the runs
kept in docs/results/tune/, one per section. A hand edit of src/select/tuned.rules, which
the next assembly would drop, fails here; so does an amendment the runs shadow."""

import json
import re
import subprocess
from pathlib import Path

import pytest

from trellis import native

ROOT = Path(__file__).resolve().parents[2]
TUNED = ROOT / "src/select/tuned.rules"
SCRIPT = ROOT / "bench/tune_builtin.sh"
AMENDMENTS = ROOT / "bench/tune_amendments.rules"


def sections() -> list[str]:
    """The runs the committed file holds, in its order."""
    names = re.findall(r"^# ---- (\S+) ----$", TUNED.read_text(), re.M)
    assert names[0] == "amendments", names
    return names[1:]


def assemble(out: Path, *runs: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(SCRIPT), "--assemble", "--to", str(out), *map(str, runs)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_committed_file_is_the_assembly_of_its_runs(tmp_path: Path) -> None:
    """`--assemble` with no runs named takes the layouts the committed file holds, each
    from docs/results/tune/: on a fresh clone it makes the committed file again."""
    assert len(sections()) >= 4  # 2x8, 4x4, 8x2, one-host at least
    for name in sections():
        assert (ROOT / "docs/results/tune" / f"{name}.rules").is_file(), name
    out = tmp_path / "tuned.rules"
    proc = assemble(out)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text() == TUNED.read_text(), (
        "src/select/tuned.rules differs from bench/tune_builtin.sh --assemble: change "
        "bench/tune_amendments.rules or docs/results/tune/LAYOUT.rules, then assemble"
    )


def test_assembly_refuses_a_missing_run(tmp_path: Path) -> None:
    out = tmp_path / "tuned.rules"
    proc = assemble(out, tmp_path / "4x4.rules")
    assert proc.returncode == 2
    assert "no such run" in proc.stderr
    assert not out.exists()


def amended_rules() -> list[tuple[str, str]]:
    """(collective, rule text) of every amendment."""
    rules = []
    for line in AMENDMENTS.read_text().splitlines():
        words = line.split("#", 1)[0].split()
        if words:
            rules.append((words[0], " ".join(words)))
    return rules


def first_size(rule: str) -> str:
    lo = re.search(r"bytes=(\d+)", rule)
    assert lo, rule
    return lo.group(1)


@pytest.mark.parametrize(("coll", "rule"), amended_rules())
def test_each_amendment_takes_its_calls(coll: str, rule: str) -> None:
    """With the library's tuned rules (TRELLIS_TUNED at its default), a call at the
    amendment's lowest size on its layout runs the amendment's algorithm, chosen by it,
    with its measurements as the reason: no run's rule comes first."""
    layout = re.search(r"hosts=(\d+) ranks_per_host=(\d+)", rule)
    ranks = re.search(r"ranks=(\d+)", rule)
    assert layout, rule
    assert ranks, rule
    args = ["explain", coll, "--ranks", ranks.group(1), "--rules", "", "--json", "--rank", "0"]
    args += ["--topology", layout.group(0), "--bytes", first_size(rule)]
    data = json.loads(native.info(*args))
    assert data["rule"]["source"] == "tuned", data["rule"]
    assert " ".join(data["rule"]["text"].split()) == rule
    assert "2026-" in data["reason"], data["reason"]
    assert " us" in data["reason"], data["reason"]
