"""bench/tune_bar_table.py on synthetic bench output with known answers: the noise
between jobs measured by the `again` control, and which points are slower beyond it."""

import csv
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_table():
    path = ROOT / "bench/tune_bar_table.py"
    spec = importlib.util.spec_from_file_location("tune_bar_table", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_size(shape: Path, size: str, rows: dict[str, dict[str, list[float]]]) -> None:
    """raw.csv of one size: collective -> config -> median us of each repetition."""
    d = shape / size
    d.mkdir(parents=True)
    with (d / "raw.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["collective", "config", "rep", "median_us"])
        for coll, by_config in rows.items():
            for config, reps in by_config.items():
                for i, us in enumerate(reps):
                    w.writerow([coll, config, i, us])


def point(ompi: float, han: float, trellis: float, again: float | None) -> dict:
    """Three interleaved repetitions of each configuration, the same each time."""
    out = {"ompi": [ompi] * 3, "han": [han] * 3, "tuned": [trellis] * 3}
    if again is not None:
        out["again"] = [again] * 3
    return out


@pytest.fixture
def table():
    return load_table()


def test_slower_beyond_the_controls_spread(tmp_path, table):
    # Ten points whose control lands 1-10% from ompi: the 90th percentile is 9%.
    rows = {f"c{k}": point(100, 200, 90, 100 * (1 + (k + 1) / 100)) for k in range(10)}
    rows["bcast"] = point(100, 110, 120, 101)  # 20% slower than the faster: beyond
    rows["reduce"] = point(100, 110, 105, 101)  # 5% slower: within the noise
    write_size(tmp_path / "4x4", "4", rows)
    text = table.shape_table(tmp_path / "4x4")
    assert "| bcast | 4 | 100 | 110 | 120 | 1.20 | 1.20 | **yes** |" in text
    assert "| reduce | 4 | 100 | 110 | 105 | 1.05 | 1.05 | no |" in text
    assert "90th percentile 9.0%" in text
    assert "and by more than 9.0%: bcast 4 (1.20)" in text
    # The control's median is 4.5%: reduce's 5% is beyond it, but only just.
    assert "By more than the control's median, 4.5%: bcast 4 (1.20), reduce 4 (1.05)" in text


def test_slower_in_one_repetition_only_is_not_beyond(tmp_path, table):
    p = point(100, 110, 130, 100)
    p["tuned"] = [130, 130, 99]  # faster than Open MPI in the third repetition
    write_size(tmp_path / "4x4", "64K", {"allgather": p})
    assert "| allgather | 64K | 100 | 110 | 130 | 1.30 | 1.30 | no |" in table.shape_table(
        tmp_path / "4x4"
    )


def test_without_a_control_every_repetition_slower_is_beyond(tmp_path, table):
    write_size(tmp_path / "2x8", "4", {"bcast": point(100, 90, 95, None)})
    text = table.shape_table(tmp_path / "2x8")
    assert "| bcast | 4 | 100 | 90 | 95 | 0.95 | 1.06 | **yes** |" in text
    assert "Noise between jobs" not in text
    assert "in every repetition: bcast 4 (1.06)" in text


def test_barrier_counts_once_and_the_geometric_mean(tmp_path, table):
    write_size(tmp_path / "8x2", "4", {"barrier": point(100, 100, 50, 100)})
    write_size(tmp_path / "8x2", "1M", {"barrier": point(100, 100, 400, 100),
                                        "gather": point(100, 100, 200, 100)})  # fmt: skip
    text = table.shape_table(tmp_path / "8x2")
    assert text.count("| barrier |") == 1
    assert "2 points; geometric mean of Trellis / Open MPI: 1.00 (1.00x faster)" in text
