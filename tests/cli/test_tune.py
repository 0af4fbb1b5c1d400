"""`trellis tune` end to end on 4 ranks of this machine (Open MPI, oversubscribed): two
collectives at two sizes, the rules it writes read back by `trellis explain`, a run
killed half way and resumed, and `--check` of the rules it wrote."""

import csv
import json
import os
import signal
import subprocess
import time
from pathlib import Path

from trellis import native

MODEL = Path(native.repo_root()) / "python" / "trellis" / "models" / "default.model"
ARGS = ["tune", "--np", "4", "--model", str(MODEL), "--budget", "60"]


def tune(trellis_exe: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([str(trellis_exe), *ARGS, *args], capture_output=True, text=True,
                          check=False, timeout=timeout)  # fmt: skip


def test_tune_two_collectives(trellis_exe: Path, tmp_path: Path) -> None:
    out = tmp_path / "t.rules"
    proc = tune(trellis_exe, "--colls", "allreduce,bcast", "--sizes", "4,64K", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "machine:" in text
    assert "Open MPI" in text
    assert "noise floor" in text
    state = json.loads((tmp_path / "t.rules.json").read_text())
    outcomes = state["outcomes"]
    given = [(o["coll"], o["sizes"][0]) for o in outcomes if o["sizes"][0] in (4, 65536)]
    assert sorted(given) == [
        ("allreduce", 4), ("allreduce", 65536), ("bcast", 4), ("bcast", 65536)]  # fmt: skip
    # Sizes between (tune_refine): powers of two, each measured where the choices of its
    # two neighbours differed.
    between = [o for o in outcomes if o["sizes"][0] not in (4, 65536)]
    assert f"{len(between)} size" in proc.stdout
    for o in between:
        size = o["sizes"][0]
        assert 4 < size < 65536, o
        assert size & (size - 1) == 0, o
        assert o["layout"] == outcomes[0]["layout"]
        mine = sorted((p for p in outcomes[: outcomes.index(o)] if p["coll"] == o["coll"]),
                      key=lambda p: p["sizes"][0])  # fmt: skip
        lo = max(p["sizes"][0] for p in mine if p["sizes"][0] < size)
        hi = min(p["sizes"][0] for p in mine if p["sizes"][0] > size)
        assert hi >= 4 * lo
        assert size * size in range(lo * hi // 2, lo * hi * 2 + 1)
        choice = {p["sizes"][0]: p["builtin"] if p["winner"] == "built-in" else p["winner"]
                  for p in mine}  # fmt: skip
        assert choice[lo] != choice[hi], o
    for o in outcomes:
        labels = {m["label"] for m in o["measured"]}
        assert {"mpi", "built-in"} <= labels, o
        assert o["rounds"] >= 3
        assert o["layout"] == {"ranks": 4, "hosts": 1, "ranks_per_host": 4}
    with (tmp_path / "t.rules.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert {r["collective"] for r in rows} == {"allreduce", "bcast"}
    assert all(r["status"] == "time" and float(r["median_us"]) > 0 for r in rows)
    assert (tmp_path / "t.rules.png").stat().st_size > 0
    # Read back: at each tuned size explain chooses the winner (or the built-in rules).
    for o in outcomes:
        nbytes = str(o["nbytes"])
        meta = json.loads(native.info("explain", o["coll"], "--ranks", "4", "--bytes", nbytes,
                                      "--elem-size", "4" if o["coll"] == "allreduce" else "1",
                                      "--rules", str(out), "--json"))  # fmt: skip
        if o["winner"] == "built-in":
            assert meta["rule"]["source"] in {"built-in", "tuned"}, o
        else:
            assert meta["algorithm"] == o["winner"].split()[0], o
    # --check on what it wrote: one line per point, the mean penalties.
    check = tune(trellis_exe, "--check", str(out), "--budget", "40")
    assert check.returncode == 0, check.stderr
    assert "mean penalty against the best at the tuned sizes" in check.stdout
    assert "mean penalty against the best at the between sizes" in check.stdout
    assert "control (the tuned rules again, under another name) at the tuned sizes" in check.stdout
    assert "held out, at the between sizes: mean penalty" in check.stdout


def test_killed_run_resumes(trellis_exe: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.rules"
    argv = [str(trellis_exe), *ARGS, "--colls", "bcast,reduce", "--sizes", "4,1K,16K",
            "--no-refine", "--out", str(out)]  # fmt: skip
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)  # fmt: skip
    state = tmp_path / "r.rules.json"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if state.exists() and len(json.loads(state.read_text())["outcomes"]) >= 2:
            break
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)  # the job and its mpirun, as a ^C would not
    proc.wait()
    before = json.loads(state.read_text())["outcomes"]
    assert 2 <= len(before) < 6
    done = tune(trellis_exe, "--colls", "bcast,reduce", "--sizes", "4,1K,16K", "--no-refine",
                "--out", str(out), "--resume")  # fmt: skip
    assert done.returncode == 0, done.stderr
    after = json.loads(state.read_text())["outcomes"]
    assert len(after) == 6
    assert after[: len(before)] == before  # kept, not measured again
    # The points done before the kill have no blocks from the resumed run.
    with (tmp_path / "r.rules.csv").open() as f:
        rows = list(csv.DictReader(f))
    for o in before:
        mine = [r for r in rows if r["collective"] == o["coll"] and int(r["size"]) == o["sizes"][0]]
        assert max(int(r["round"]) for r in mine) == o["rounds"] - 1
        assert len({(r["round"], r["candidate"]) for r in mine}) == len(mine)
    # Another run's state is refused, not mixed in.
    other = tune(trellis_exe, "--colls", "bcast", "--sizes", "4", "--out", str(out), "--resume")
    assert other.returncode == 2
    assert "is of another run" in other.stderr
