"""What differs between MPIs (python/trellis/mpi_impl.py): `trellis run --mpi mpich` and
TRELLIS_MPI, the MPI told from the library, MPICH's launcher options, the testbed's
options for each MPI, `trellis bench`'s baselines and MPI-library settings, the launcher
command line the test scripts take, and where the library is found (native.py)."""

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from trellis import bench_matrix, mpi_impl, native, testbed
from trellis.cmd_run import plan, split_args
from trellis.native import TrellisError

LIB = Path("/opt/trellis/libtrellis.so")
MPIEXEC = mpi_impl.MPICH().launcher()
MPIRUN = mpi_impl.OpenMPI().launcher()
REPO = Path(__file__).resolve().parents[2]


def make(argv: str, *, environ: dict[str, str] | None = None, cpus: int = 2, root: bool = False,
         library: Path = LIB):  # fmt: skip
    return plan(shlex.split(argv), environ=environ or {}, cpus=cpus, as_root=root,
                library=library)  # fmt: skip


def test_mpich_command_line() -> None:
    p = make("--mpi mpich -n 2 ./app x", environ={"TRELLIS_ON_ERROR": "warn"}, root=True)
    assert p.command == [MPIEXEC, "-n", "2", "-genv", "LD_PRELOAD", str(LIB),
                         "-genv", "TRELLIS_ON_ERROR", "warn", "./app", "x"]  # fmt: skip
    assert p.env == {}  # nothing for root, no OMPI_* variables


def test_mpich_from_the_environment_and_its_settings_forwarded() -> None:
    p = make("--rules 'allreduce ring' --verbose -n 8 ./app", environ={"TRELLIS_MPI": "mpich"})
    assert p.command[0] == MPIEXEC
    assert "--oversubscribe" not in p.command
    assert "mpi_yield_when_idle" not in p.command  # MPICH has no such setting
    assert p.command[-7:] == ["-genv", "TRELLIS_RULES", "allreduce ring",
                              "-genv", "TRELLIS_VERBOSE", "1", "./app"]  # fmt: skip
    # TRELLIS_MPI says which MPI to the command; the ranks need not see it.
    assert "TRELLIS_MPI" not in p.command


def test_mpi_from_the_library(tmp_path: Path) -> None:
    built = tmp_path / "libtrellis.so"
    built.write_bytes(b"\x7fELF...libmpich.so.12\x00...")
    assert mpi_impl.built_for(built) == "mpich"
    assert make("-n 2 ./app", library=built).command[0] == MPIEXEC
    # --mpi wins over the library's.
    assert make("--mpi openmpi -np 2 ./app", library=built).command[0] == MPIRUN
    built.write_bytes(b"\x7fELF...libmpi.so.40\x00...")
    assert mpi_impl.built_for(built) == "openmpi"
    assert mpi_impl.built_for(tmp_path / "none.so") is None


BUILDS = {"openmpi": REPO / "build", "mpich": REPO / "build-mpich"}


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_the_mpi_a_program_is_linked_with(mpi: str) -> None:
    """From the program's dependencies, its libraries' included (issue 35): a C program
    and a Fortran one (whose MPI comes through its bindings) of each MPI's build."""
    c = mpi_impl.program_mpi(str(BUILDS[mpi] / "bench" / "global_reduction"))
    assert c == (mpi, "libmpi.so.40" if mpi == "openmpi" else "libmpich.so.12")
    fortran = mpi_impl.program_mpi(str(BUILDS[mpi] / "tests" / "fortran" / "fcoll_f08"))
    assert fortran is not None
    assert fortran[0] == mpi
    assert mpi_impl.program_mpi(str(REPO / "scripts" / "setup.sh")) is None  # not ELF
    assert mpi_impl.program_mpi("ls") is None  # found on PATH, links no MPI
    assert mpi_impl.program_mpi("./no-such-program") is None


def test_the_programs_mpi_picks_the_launcher_or_stops_a_forced_other() -> None:
    linked = ("mpich", "libmpich.so.12")
    p = plan(["-n", "2", "./app"], environ={}, cpus=2, as_root=False, library=LIB, linked=linked)
    assert p.command[0] == MPIEXEC
    forced = [(["--mpi", "openmpi"], {}, "--mpi openmpi"),
              ([], {"TRELLIS_MPI": "openmpi"}, "TRELLIS_MPI=openmpi")]  # fmt: skip
    for argv, environ, how in forced:
        with pytest.raises(TrellisError) as err:
            plan([*argv, "-n", "2", "./app"], environ=environ, cpus=2, as_root=False,
                 library=LIB, linked=linked)  # fmt: skip
        assert err.value.status == 2
        assert str(err.value).startswith(
            f"trellis run: ./app is linked with MPICH (libmpich.so.12), but {how} asks for "
            "Open MPI: ")  # fmt: skip


def test_run_picks_the_library_of_the_programs_mpi(run_trellis, monkeypatch) -> None:
    monkeypatch.delenv("TRELLIS_BUILD", raising=False)  # the checkout's tree for each MPI
    mpich_program = str(BUILDS["mpich"] / "bench" / "global_reduction")
    proc = run_trellis("run", "-n", "2", "--dry-run", mpich_program)
    assert proc.returncode == 0, proc.stderr
    words = shlex.split(proc.stdout)
    assert words[0] == MPIEXEC
    assert words[words.index("LD_PRELOAD") + 1] == str(BUILDS["mpich"] / "libtrellis.so")
    proc = run_trellis("run", "--mpi", "mpich", "-n", "2", "--dry-run",
                       str(BUILDS["openmpi"] / "bench" / "global_reduction"))  # fmt: skip
    assert proc.returncode == 2
    assert "is linked with Open MPI (libmpi.so.40), but --mpi mpich asks for MPICH" in proc.stderr


@pytest.mark.parametrize(
    ("argv", "launcher", "program"),
    [
        ("-n 4 -f hosts -genv A 1 -ppn 2 ./app -n 3",
         ["-n", "4", "-f", "hosts", "-genv", "A", "1", "-ppn", "2"], ["./app", "-n", "3"]),
        ("-hosts h0:2,h1:2 -envlist A,B -prepend-rank -np 4 app",
         ["-hosts", "h0:2,h1:2", "-envlist", "A,B", "-prepend-rank", "-np", "4"], ["app"]),
        ("-launcher ssh -launcher-exec /x/agent -bind-to core app",
         ["-launcher", "ssh", "-launcher-exec", "/x/agent", "-bind-to", "core"], ["app"]),
    ],
)  # fmt: skip
def test_split_mpich_options(argv: str, launcher: list[str], program: list[str]) -> None:
    split = split_args(shlex.split(argv), mpi_impl.MPICH())
    assert split.mpirun == launcher
    assert split.program == program
    # Found by plan too, with --mpi among the options.
    p = make(f"--mpi mpich {argv}")
    assert p.command[-len(program) :] == program
    assert p.command[1 : 1 + len(launcher)] == launcher


def test_unknown_mpi_is_an_error() -> None:
    with pytest.raises(TrellisError) as err:
        make("--mpi lam ./app")
    assert err.value.status == 2
    assert "openmpi" in str(err.value)
    with pytest.raises(TrellisError):
        make("./app", environ={"TRELLIS_MPI": "lam"})


def test_testbed_options_for_each_mpi(tmp_path: Path) -> None:
    testbed.save_state(tmp_path, {"hosts": 3, "slots": 2, "subnet": "10.9.0.0/24",
                                  "complete": True})  # fmt: skip
    ompi = testbed.mpirun_options(tmp_path)
    assert ompi[:4] == ["--hostfile", str(tmp_path / "hostfile"), "--mca", "plm_rsh_agent"]
    assert "10.9.0.0/24" in ompi
    mpich = testbed.mpirun_options(tmp_path, mpi_impl.MPICH())
    assert mpich == ["-hosts", "h0:2,h1:2,h2:2", "-launcher", "ssh",
                     "-launcher-exec", str(tmp_path / "agent"), "-localhost", "10.9.0.254",
                     "-genv", "UCX_TLS", "tcp,self"]  # fmt: skip
    p = make(f"--mpi mpich --testbed={tmp_path} -n 6 ./app")
    assert p.command[1 : 1 + len(mpich)] == mpich


def test_bench_baselines_and_mpi_settings() -> None:
    mpich = mpi_impl.MPICH()
    assert bench_matrix.parse_config("mpich", mpich) == bench_matrix.Config("mpich", "mpi")
    rd = bench_matrix.parse_config("rd:MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=ring", mpich)
    assert (rd.kind, rd.env) == ("mpi", {"MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM": "ring"})
    both = bench_matrix.parse_config("t:rules=bcast linear;MPIR_CVAR_X=1", mpich)
    assert both.kind == "trellis"
    assert both.env == {"TRELLIS_RULES": "bcast linear", "MPIR_CVAR_X": "1"}
    assert bench_matrix.parse_config("han").options == ("--mca", "coll_han_priority", "100")
    for wrong in ("ompi", "x:OMPI_MCA_coll=tuned"):  # Open MPI's, not MPICH's
        with pytest.raises(TrellisError) as err:
            bench_matrix.parse_config(wrong, mpich)
        assert err.value.status == 2


def test_bench_command_under_mpich(tmp_path: Path, monkeypatch) -> None:
    build = tmp_path / "build-mpich"
    (build / "bench").mkdir(parents=True)
    (build / "bench" / "latency").write_text("")
    (build / "libtrellis.so").write_bytes(b"libmpich.so.12")
    monkeypatch.setenv("TRELLIS_BUILD", str(build))
    monkeypatch.delenv("TRELLIS_LIB", raising=False)
    run = bench_matrix.Run(["allreduce"], 10, None, None, "p2p", mpi_impl.MPICH())
    config = bench_matrix.parse_config("t:rules=allreduce ring", mpi_impl.MPICH())
    argv, env = bench_matrix.command(config, 3, 8, run, tmp_path / "out.csv")
    assert argv[:3] == [MPIEXEC, "-n", "3"]
    assert argv[3:7] == ["-genv", "LD_PRELOAD", str(build / "libtrellis.so"), "-genv"]
    assert argv[7:9] == ["TRELLIS_RULES", "allreduce ring"]
    assert env == {"TRELLIS_RULES": "allreduce ring"}
    own = bench_matrix.parse_config("rd:MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=ring",
                                    mpi_impl.MPICH())  # fmt: skip
    argv, _ = bench_matrix.command(own, 3, 8, run, tmp_path / "out.csv")
    assert "LD_PRELOAD" not in argv
    assert argv[3:6] == ["-genv", "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "ring"]


def launch(*args: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
    proc = subprocess.run([sys.executable, "-m", "trellis.mpi_impl", *args], capture_output=True,
                          check=True, env=env)  # fmt: skip
    return proc.stdout.decode().split("\0")[:-1]


def test_launch_command_for_the_test_scripts() -> None:
    assert launch("launch", "--mpi", "mpich", "--np", "3", "--preload", "/l.so", "--env",
                  "TRELLIS_RULES=a b; c d") == [MPIEXEC, "-n", "3", "-genv", "LD_PRELOAD",
                                                "/l.so", "-genv", "TRELLIS_RULES",
                                                "a b; c d"]  # fmt: skip
    assert launch("launch", "--mpi", "openmpi", "--np", "2", "--share-cores") == [
        MPIRUN, "-np", "2", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]  # fmt: skip
    env = launch("env", "--mpi", "openmpi")
    assert env == (["OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"]
                   if os.geteuid() == 0 else [])  # fmt: skip
    assert launch("env", "--mpi", "mpich") == []


def test_library_search_order(tmp_path: Path, monkeypatch) -> None:
    ompi = tmp_path / "ompi" / "libtrellis.so"
    mpich = tmp_path / "mpich" / "libtrellis.so"
    for path, marker in ((ompi, b"libmpi.so.40"), (mpich, b"libmpich.so.12")):
        path.parent.mkdir()
        path.write_bytes(marker)
    monkeypatch.delenv("TRELLIS_BUILD", raising=False)
    # 1. TRELLIS_LIB, checked against the MPI named.
    monkeypatch.setenv("TRELLIS_LIB", str(mpich))
    assert native.library() == mpich
    assert native.library("mpich") == mpich
    with pytest.raises(TrellisError, match="built for mpich, not openmpi"):
        native.library("openmpi")
    monkeypatch.setenv("TRELLIS_LIB", str(tmp_path / "missing.so"))
    with pytest.raises(TrellisError, match="no such file"):
        native.library()
    monkeypatch.delenv("TRELLIS_LIB")
    # 3. The install prefix's lib comes before the build tree; one built for another MPI
    # than the one named is passed over.
    prefix = tmp_path / "prefix"
    (prefix / "lib").mkdir(parents=True)
    (prefix / "lib" / "libtrellis.so").write_bytes(b"libmpi.so.40")
    monkeypatch.setattr(native, "prefixes", lambda: [prefix])
    assert native.library() == prefix / "lib" / "libtrellis.so"
    assert native.library("openmpi") == prefix / "lib" / "libtrellis.so"
    found = native.library("mpich")  # the checkout's build-mpich/
    assert found == (REPO / "build-mpich" / "libtrellis.so").resolve()
    # 4. The build tree alone: TRELLIS_BUILD.
    monkeypatch.setattr(native, "prefixes", lambda: [tmp_path / "empty"])
    monkeypatch.setenv("TRELLIS_BUILD", str(mpich.parent))
    assert native.library() == mpich
    monkeypatch.setenv("TRELLIS_BUILD", str(tmp_path / "nothing"))
    with pytest.raises(TrellisError, match="looked in"):
        native.library()
