"""bench/inter_latency, as a real 4-rank mpirun run (2 + 2): the MPI library's and
Trellis' intercommunicator allreduce, bcast and barrier side by side, every checked
result right, the rows its CSV promises, and Trellis serving the calls (verbose)."""

import csv
import os
import subprocess
from pathlib import Path

from trellis import native

ROOT_OK = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def test_inter_latency_compares_and_checks(tmp_path: Path) -> None:
    out = tmp_path / "inter.csv"
    argv = ["mpirun", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1", "-np", "4",
            "-x", f"LD_PRELOAD={native.library()}", "-x", "TRELLIS_VERBOSE=1",
            str(native.built_file("bench/inter_latency")), "--min", "4", "--max", "4K",
            "--step", "32", "--iters", "30", "--min-iters", "10", "--csv", str(out)]  # fmt: skip
    proc = subprocess.run(argv, env={**os.environ, **ROOT_OK}, capture_output=True,
                          text=True, check=False, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "# all checked results correct" in proc.stdout
    with out.open() as f:
        rows = list(csv.DictReader(f))
    assert [(r["collective"], r["bytes"]) for r in rows] == [
        ("allreduce", "4"), ("allreduce", "128"), ("allreduce", "4096"),
        ("bcast", "4"), ("bcast", "128"), ("bcast", "4096"), ("barrier", "0"),
    ]  # fmt: skip
    for r in rows:
        assert (r["ranks_lower"], r["ranks_upper"], r["errors"]) == ("2", "2", "0")
        mpi, trellis = float(r["mpi_median_us"]), float(r["trellis_median_us"])
        assert mpi > 0
        assert trellis > 0
        assert abs(float(r["ratio"]) - trellis / mpi) < 1e-3
    # Trellis, not the library, served the MPI_ calls: its verbose lines name them.
    for coll in ("allreduce", "bcast", "barrier"):
        assert any(line.startswith(f"trellis: {coll} ") and "inter" in line
                   for line in proc.stderr.splitlines()), proc.stderr  # fmt: skip


def test_inter_latency_refuses_bad_options() -> None:
    argv = ["mpirun", "-np", "2", str(native.built_file("bench/inter_latency")),
            "--colls", "scan"]  # fmt: skip
    proc = subprocess.run(argv, env={**os.environ, **ROOT_OK}, capture_output=True,
                          text=True, check=False, timeout=120)  # fmt: skip
    assert proc.returncode != 0
    assert "usage:" in proc.stderr
