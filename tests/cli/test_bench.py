"""`trellis bench` on a tiny matrix (real mpirun runs): every cell present, medians and
ratios recomputed here from the raw repetitions, the plot a real PNG, the terminal table,
and clear errors for bad configurations."""

import csv
import statistics
import struct
from pathlib import Path

import pytest

from trellis import testbed
from trellis.bench_matrix import Run, check_library, command, parse_config
from trellis.cmd_bench import figure, run_order, summarize
from trellis.native import TrellisError


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
        # Written to 4 decimals: a ratio far under 1 (a loaded machine) keeps fewer digits.
        assert float(s["ratio_to_baseline"]) == pytest.approx(want, rel=1e-3, abs=5e-5)
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
            ("unknown setting 'rulez=allreduce ring' (rules=, topology=, topology@N=, TRELLIS_*=)"),
        ),
        ("nameless", "expected ompi, han or NAME:rules=...;topology=..."),
    ],
)
def test_bad_configuration(run_trellis, tmp_path, config, message):
    proc = run_trellis("bench", "--config", config, "--out", str(tmp_path))
    assert proc.returncode == 2
    assert message in proc.stderr


def test_a_rules_error_stops_the_command_before_any_run(run_trellis, tmp_path):
    """Named as the configuration's, at its place in the rules (issue 35)."""
    proc = run_trellis("bench", "--np", "1", "--reps", "1", "--iters", "5", "--config", "ompi",
                       "--config", "bad:rules=allreduce ringg", "--out", str(tmp_path))  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.startswith("trellis bench: --config bad rules:1:11: unknown algorithm "
                                  "'ringg' for allreduce")  # fmt: skip
    assert not list(tmp_path.iterdir())  # nothing ran


def test_baseline_must_be_a_configuration(run_trellis, tmp_path):
    proc = run_trellis("bench", "--config", "ompi", "--baseline", "han", "--out", str(tmp_path))
    assert proc.returncode == 2
    assert "--baseline han is not among ['ompi']" in proc.stderr


# ---- configurations, order, the plot (issue 11, points 9 and 15) ------------------------


def test_several_rules_in_one_configuration() -> None:
    config = parse_config("two:rules=allreduce ring; bcast linear;topology=host=0 host=1;"
                          " TRELLIS_VERBOSE=1;topology@4=hosts=2 ranks_per_host=2")  # fmt: skip
    assert config.env == {"TRELLIS_RULES": "allreduce ring; bcast linear",
                          "TRELLIS_TOPOLOGY": "host=0 host=1", "TRELLIS_VERBOSE": "1"}  # fmt: skip
    assert config.layouts == {4: "hosts=2 ranks_per_host=2"}
    assert config.env_for(4)["TRELLIS_TOPOLOGY"] == "hosts=2 ranks_per_host=2"
    assert config.env_for(2)["TRELLIS_TOPOLOGY"] == "host=0 host=1"


@pytest.mark.parametrize("setting", ["topology@0=host=0", "topology@x=host=0", "rules@2=x y"])
def test_bad_per_count_settings(setting: str) -> None:
    with pytest.raises(TrellisError, match="unknown setting"):
        parse_config(f"x:{setting}")


def test_a_layout_of_another_size_is_refused_before_anything_runs(run_trellis, tmp_path):
    proc = run_trellis("bench", "--np", "2,4", "--config", "ompi", "--config",
                       "h:topology=hosts=2 ranks_per_host=2",
                       "--out", str(tmp_path / "o"))  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr == (
        "trellis bench: --config h: topology= describes 4 ranks, but --np runs 2: a layout has "
        "a fixed number of ranks; give one for each process count (topology@2=LAYOUT) or run "
        "this --np alone\n"
    )
    assert not (tmp_path / "o").exists()
    proc = run_trellis("bench", "--config", "ompi", "--config", "h:topology=hosts=2 ranks=2",
                       "--out", str(tmp_path / "o"))  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.startswith("trellis bench: --config h: TRELLIS_TOPOLOGY:1:9: ")


def test_per_count_layouts_and_several_rules_run(run_trellis, tmp_path):
    """A layout per process count (the runtime stops a job whose layout has another
    size, so both runs passing shows each got its own), two rules in one configuration,
    and the rows in --config order, not alphabetical."""
    out = tmp_path / "b"
    proc = run_trellis(
        "bench", "--colls", "allreduce,bcast", "--np", "1,2", "--reps", "1", "--iters", "5",
        "--config", "zz:rules=allreduce recursive_doubling; bcast linear;"
        "topology@1=hosts=1 ranks_per_host=1;topology@2=hosts=2 ranks_per_host=1",
        "--config", "ompi", "--config", "aa:", "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    summary = read(out / "summary.csv")
    for i in range(0, len(summary), 3):
        assert [s["config"] for s in summary[i : i + 3]] == ["zz", "ompi", "aa"]
    config = parse_config("zz:rules=a b; c d;topology@2=host=0 host=1")
    run = Run(["allreduce"], 5, None, None, "p2p")
    for ranks, layout in ((1, None), (2, "host=0 host=1")):
        argv, env = command(config, ranks, 4, run, tmp_path / "x.csv")
        assert env.get("TRELLIS_TOPOLOGY") == layout
        assert env["TRELLIS_RULES"] == "a b; c d"
        assert ("TRELLIS_TOPOLOGY" in argv) == (layout is not None)
    table = [ln.split()[3] for ln in proc.stdout.splitlines()[1:-1]]
    assert table[:3] == ["zz", "ompi", "aa"]


def rows(*cells: tuple[int, str]) -> list[dict]:
    return [{"collective": "allreduce", "bytes": 4, "ranks": ranks, "hosts": 1, "config": config,
             "median_us": 1.0 + ranks, "min_us": 0.5, "max_us": 9.0, "reps": 1,
             "ratio_to_baseline": 1.0} for ranks, config in cells]  # fmt: skip


def test_summary_follows_the_configuration_order() -> None:
    raw = [{"rep": 1, "config": c, "ranks": 2, "hosts": 1, "collective": "allreduce",
            "bytes": 4, "median_us": 1.0} for c in ("b", "a", "c")]  # fmt: skip
    assert [s["config"] for s in summarize(raw, "c", ["c", "a", "b"])] == ["c", "a", "b"]


def test_plot_colours_follow_the_configuration_and_ticks_are_process_counts() -> None:
    from matplotlib import pyplot as plt  # noqa: PLC0415

    order = ["ompi", "han", "mine"]
    one = figure(rows((4, "mine"), (4, "ompi")), order)
    two = figure(rows((4, "han"), (4, "mine")), order)
    try:
        colour = {}
        for fig in (one, two):
            ax = fig.axes[0]
            for bars in ax.containers:  # one errorbar per configuration
                colour.setdefault(bars.get_label(), set()).add(bars.lines[0].get_color())
            assert list(ax.get_xticks()) == [4]
            assert [t.get_text() for t in ax.get_xticklabels()] == ["4"]
        assert all(len(c) == 1 for c in colour.values()), colour
        assert len({next(iter(c)) for c in colour.values()}) == 3
        many = figure(rows((1, "ompi"), (2, "ompi"), (5, "ompi")), order)
        assert list(many.axes[0].get_xticks()) == [1, 2, 5]
        plt.close(many)
    finally:
        plt.close(one)
        plt.close(two)


def test_testbed_of_another_shape_says_its_bandwidth(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(testbed, "check_can_run", lambda **_: None)
    testbed.save_state(tmp_path, {"hosts": 2, "slots": 1, "bandwidth": None,
                                  "subnet": "10.9.0.0/24", "complete": True})  # fmt: skip
    with pytest.raises(TrellisError) as err:
        testbed.up(tmp_path, 3, 1, None, "10.9.0.0/24")
    assert "None" not in str(err.value)
    assert "2 hosts x 1 slots, subnet 10.9.0.0/24, bandwidth uncapped" in str(err.value)


def test_run_order_rotates_the_first_and_varies_who_follows_whom() -> None:
    """Each cell runs every configuration once; who leads rotates; and over repetitions a
    configuration does not always follow the same one (the bar's control `again` always
    ran right before `ompi` under a plain rotation)."""
    configs = ["ompi", "han", "tuned", "hand", "again"]
    followers = set()
    for rep in range(12):
        order = run_order(configs, rep, 16, 65536)
        assert sorted(order) == sorted(configs)
        assert order[0] == configs[(rep + 16 + 65536) % len(configs)]
        assert order == run_order(configs, rep, 16, 65536)  # repeatable
        followers.add(order[order.index("again") + 1] if order[-1] != "again" else None)
    assert len(followers - {None}) >= 3, followers


def test_another_build_is_preloaded_and_a_missing_one_refused(tmp_path) -> None:
    """TRELLIS_LIB= in a configuration: that file is what the ranks preload; one that is
    not there would be skipped by the loader, so the benchmark refuses it before any run."""
    run = Run(["bcast"], 10, None, None, "p2p")
    lib = tmp_path / "libtrellis.so"
    lib.write_bytes(b"")
    argv, _ = command(parse_config(f"old:TRELLIS_LIB={lib}"), 2, 4, run, tmp_path / "r.csv")
    assert f"LD_PRELOAD={lib.resolve()}" in argv
    gone = parse_config(f"gone:TRELLIS_LIB={tmp_path / 'gone.so'}")
    with pytest.raises(TrellisError, match=r"--config gone.*no such file"):
        check_library(gone, run.mpi)
    with pytest.raises(TrellisError, match="no such file"):
        command(gone, 2, 4, run, tmp_path / "r.csv")
