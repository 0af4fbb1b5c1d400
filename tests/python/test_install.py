"""The `trellis` command installed the ordinary Python way, away from the checkout: a
wheel built from it (pip, as `pip install .` builds one), installed into a new virtual
environment P, and the C build installed into the same prefix (`cmake --install build
--prefix P`). The command finds P/lib/libtrellis.so and P/bin/trellis-info, runs a real
job with it, and with TRELLIS_LIB pointing at an MPICH install it runs MPICH's mpiexec.
(tests/install/run_install.sh links programs against an installed library.)"""

import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "build"
BUILD_MPICH = REPO / "build-mpich"


def run(*cmd: str | Path, cwd: Path | None = None, env: dict | None = None, timeout: int = 300):
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TRELLIS_")}
    clean.pop("LD_PRELOAD", None)
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=cwd,
                          env={**clean, **(env or {})}, timeout=timeout, check=False)  # fmt: skip


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The prefix P, with the command and the Open MPI build installed into it."""
    tmp = tmp_path_factory.mktemp("install")
    wheel = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                "--no-index", "-w", tmp / "wheels", REPO)  # fmt: skip
    assert wheel.returncode == 0, wheel.stdout + wheel.stderr
    prefix = tmp / "prefix"
    venv.create(prefix, with_pip=True)
    # --no-deps: running jobs needs none of matplotlib, which only plots and draws.
    (built,) = (tmp / "wheels").glob("trellis-*.whl")
    pip = run(prefix / "bin" / "pip", "install", "--no-deps", "--no-index", built)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    cmake = run("cmake", "--install", BUILD, "--prefix", prefix)
    assert cmake.returncode == 0, cmake.stdout + cmake.stderr
    return prefix


def test_the_installed_command_finds_the_installed_library(installed: Path, tmp_path: Path):
    trellis = installed / "bin" / "trellis"
    proc = run(trellis, "run", "--dry-run", "-np", "2", "./app", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"LD_PRELOAD={installed / 'lib' / 'libtrellis.so'}" in proc.stdout
    assert "mpirun" in proc.stdout
    # trellis-info from the prefix: the algorithm table and rules.
    proc = run(trellis, "explain", "allreduce", "--ranks", "4", "--bytes", "8", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "recursive_doubling" in proc.stdout


def test_a_job_with_the_installed_library(installed: Path, tmp_path: Path):
    program = BUILD / "tests" / "mpi" / "coll_check"
    proc = run(installed / "bin" / "trellis", "run", "--verbose", "--rules", "allreduce ring",
               "-np", "2", program, "--quick", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"coll_check ranks=2: \d+ checks, 0 failed", proc.stdout)
    assert re.search(r"trellis: allreduce ranks=2 bytes=\d+: ring \(TRELLIS_RULES:1", proc.stderr)


@pytest.mark.skipif(not (BUILD_MPICH / "libtrellis.so").is_file(), reason="no build-mpich/")
def test_trellis_lib_built_for_mpich_runs_mpiexec(installed: Path, tmp_path: Path):
    mpich = tmp_path / "mpich"
    cmake = run("cmake", "--install", BUILD_MPICH, "--prefix", mpich)
    assert cmake.returncode == 0, cmake.stdout + cmake.stderr
    env = {"TRELLIS_LIB": str(mpich / "lib" / "libtrellis.so")}
    proc = run(installed / "bin" / "trellis", "run", "--verbose", "--rules", "bcast chain",
               "-n", "2", BUILD_MPICH / "tests" / "mpi" / "coll_check", "--quick", cwd=tmp_path,
               env=env)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"coll_check ranks=2: \d+ checks, 0 failed", proc.stdout)
    assert re.search(r"trellis: bcast ranks=2 bytes=\d+: chain \(TRELLIS_RULES:1", proc.stderr)
    dry = run(installed / "bin" / "trellis", "run", "--dry-run", "-n", "2", "./app",
              cwd=tmp_path, env=env)  # fmt: skip
    assert dry.stdout.startswith("mpiexec"), dry.stdout


def test_the_command_installed_alone_says_where_it_looked(installed: Path, tmp_path: Path):
    """`pip install .` without the C part (issue 35): explain, simulate and run name
    every place they looked, none of them a checkout's, and say to install the C part
    into this prefix rather than to run a checkout's scripts/setup.sh."""
    prefix = tmp_path / "bare"
    venv.create(prefix, with_pip=False)  # the other prefix's pip installs into it: faster
    (built,) = (installed.parent / "wheels").glob("trellis-*.whl")
    pip = run(installed / "bin" / "pip", "--python", prefix / "bin" / "python", "install",
              "--no-deps", "--no-index", built)  # fmt: skip
    assert pip.returncode == 0, pip.stdout + pip.stderr
    trellis = prefix / "bin" / "trellis"
    for argv in (["explain", "allreduce", "--ranks", "4", "--bytes", "8"],
                 ["run", "--dry-run", "-np", "2", "./app"]):  # fmt: skip
        proc = run(trellis, *argv, cwd=tmp_path)
        assert proc.returncode == 1, proc.stdout
        assert f"looked in {prefix}/lib/python" in proc.stderr, proc.stderr
        assert f"{prefix}/bin/trellis-info" in proc.stderr or "libtrellis.so" in proc.stderr
        assert f"cmake --install build --prefix {prefix}" in proc.stderr, proc.stderr
        assert "run scripts/setup.sh" not in proc.stderr
        assert str(REPO) not in proc.stderr
