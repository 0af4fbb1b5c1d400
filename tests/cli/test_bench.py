"""`trellis bench` on a tiny matrix (real mpirun runs): every cell present, medians and
ratios recomputed here from the raw repetitions, the plot a real PNG, the terminal table,
and clear errors for bad configurations."""

import csv
import statistics
import struct
from pathlib import Path

import pytest


def read(path: Path) -> list[dict]:
    with path.open() as f:
        return list(csv.DictReader(f))


def test_tiny_matrix(run_trellis, tmp_path):
    out = tmp_path / "b"
    proc = run_trellis(
        "bench", "--colls", "allreduce", "--sizes", "4,1K", "--np", "1,2", "--reps", "2",
        "--iters", "30", "--config", "ompi", "--config", "rd:rules=allreduce recursive_doubling",
        "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    # 2 repetitions x 2 process counts x 2 sizes x 2 configurations.
    assert "[##############################] 16/16 done" in proc.stderr
    raw = read(out / "raw.csv")
    summary = read(out / "summary.csv")
    cells = {(r["collective"], r["bytes"], r["ranks"], r["config"]) for r in summary}
    assert cells == {("allreduce", b, n, c) for b in ("4", "1024") for n in ("1", "2")
                     for c in ("ompi", "rd")}  # fmt: skip
    assert len(raw) == 2 * len(cells)  # every cell, every repetition
    def times(key: tuple, config: str) -> list[float]:
        want = (*key, config)
        return [float(r["median_us"]) for r in raw
                if (r["collective"], r["bytes"], r["ranks"], r["config"]) == want]  # fmt: skip

    for s in summary:
        key = (s["collective"], s["bytes"], s["ranks"])
        reps, base = times(key, s["config"]), times(key, "ompi")
        assert float(s["median_us"]) == pytest.approx(statistics.median(reps), abs=1e-4)
        assert float(s["min_us"]) == min(reps)
        assert float(s["max_us"]) == max(reps)
        want = statistics.median(reps) / statistics.median(base)
        assert float(s["ratio_to_baseline"]) == pytest.approx(want, rel=1e-3)
    png = (out / "plot.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert (width, height) == (700, 800)  # 7 x 4 inches per panel at 100 dpi, 2 panels
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["collective", "bytes", "ranks", "config", "median_us", "min_us",
                                "max_us", "ratio/ompi"]  # fmt: skip
    assert len(lines) == 1 + len(cells) + 1


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            "x:rulez=allreduce ring",
            "unknown setting 'rulez=allreduce ring' (rules=, topology=, TRELLIS_*=)",
        ),
        ("nameless", "expected ompi, han or NAME:rules=...;topology=..."),
    ],
)
def test_bad_configuration(run_trellis, tmp_path, config, message):
    proc = run_trellis("bench", "--config", config, "--out", str(tmp_path))
    assert proc.returncode == 2
    assert message in proc.stderr


def test_a_rules_error_fails_the_run_loudly(run_trellis, tmp_path):
    proc = run_trellis("bench", "--np", "1", "--reps", "1", "--iters", "5", "--config", "ompi",
                       "--config", "bad:rules=allreduce ringg", "--out", str(tmp_path))  # fmt: skip
    assert proc.returncode == 1
    assert "bad on 1 ranks failed" in proc.stderr
    assert "unknown algorithm 'ringg'" in proc.stderr


def test_baseline_must_be_a_configuration(run_trellis, tmp_path):
    proc = run_trellis("bench", "--config", "ompi", "--baseline", "han", "--out", str(tmp_path))
    assert proc.returncode == 2
    assert "--baseline han is not among ['ompi']" in proc.stderr
