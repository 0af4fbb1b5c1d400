"""`trellis run`: how the command line is split and the mpirun command built (`--dry-run`
and the planning function), and that a real run passes on mpirun's environment and exit
status (with a stand-in mpirun; real MPI runs are the MPI tests' business)."""

import os
import shlex
import stat
from pathlib import Path

import pytest

from trellis import mpi_impl, native
from trellis.cmd_run import plan, split_args
from trellis.native import TrellisError

LIB = Path("/opt/trellis/libtrellis.so")
PRELOAD = ["-x", f"LD_PRELOAD={LIB}"]
# Open MPI's launcher as found here: mpirun.openmpi (Debian's own name) or mpirun.
MPIRUN = mpi_impl.OpenMPI().launcher()


def make(argv: str, *, environ: dict[str, str] | None = None, cpus: int = 2, root: bool = False):
    return plan(shlex.split(argv), environ=environ or {}, cpus=cpus, as_root=root, library=LIB)


@pytest.mark.parametrize(
    ("argv", "mpirun", "program"),
    [
        ("./app", [], ["./app"]),
        ("-np 2 ./app", ["-np", "2"], ["./app"]),
        ("-n 3 ./app a b", ["-n", "3"], ["./app", "a", "b"]),
        # The program's own options stay the program's, even mpirun's names.
        ("-np 2 ./app -np 7 --host z", ["-np", "2"], ["./app", "-np", "7", "--host", "z"]),
        ("--host a,b --hostfile hosts -np 4 app", ["--host", "a,b", "--hostfile", "hosts",
                                                   "-np", "4"], ["app"]),
        ("-H a:2 -c 2 app", ["-H", "a:2", "-c", "2"], ["app"]),
        ("--map-by node --bind-to core --rank-by slot app", ["--map-by", "node", "--bind-to",
                                                             "core", "--rank-by", "slot"], ["app"]),
        ("--map-by=ppr:1:node app", ["--map-by=ppr:1:node"], ["app"]),
        ("--mca btl self,vader -mca pml ob1 app", ["--mca", "btl", "self,vader", "-mca", "pml",
                                                   "ob1"], ["app"]),
        ("-x FOO -x BAR=1 app", ["-x", "FOO", "-x", "BAR=1"], ["app"]),
        ("--report-bindings -np 2 --tag-output app", ["--report-bindings", "-np", "2",
                                                      "--tag-output"], ["app"]),
        # `--` ends the options and is dropped.
        ("-np 2 -- app -x", ["-np", "2"], ["app", "-x"]),
        # After the program, `--` is the program's.
        ("-np 2 app -- x", ["-np", "2"], ["app", "--", "x"]),
        # An option we do not know, with a value: the `--` further on ends the options.
        ("--frob 3 -np 2 -- app x", ["--frob", "3", "-np", "2"], ["app", "x"]),
    ],
)  # fmt: skip
def test_split(argv: str, mpirun: list[str], program: list[str]) -> None:
    split = split_args(shlex.split(argv))
    assert split.mpirun == mpirun
    assert split.program == program
    assert split.rules is None
    assert not split.verbose
    assert not split.dry_run


def test_trellis_options_among_mpirun_options() -> None:
    split = split_args(
        shlex.split("-np 2 --rules 'allreduce ring' --verbose --mca a b --dry-run ./app --verbose")
    )
    assert split.rules == "allreduce ring"
    assert split.verbose
    assert split.dry_run
    assert split.mpirun == ["-np", "2", "--mca", "a", "b"]
    assert split.program == ["./app", "--verbose"]
    assert split_args(["--rules=bcast linear", "app"]).rules == "bcast linear"


def test_plain_command() -> None:
    p = make("-np 2 ./app x")
    assert p.command == [MPIRUN, "--oversubscribe", "-np", "2", *PRELOAD, "./app", "x"]
    assert p.env == {}
    assert not p.dry_run


def test_yield_when_oversubscribed() -> None:
    p = make("-np 4 ./app", cpus=2)
    assert p.command[:5] == [MPIRUN, "--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]
    assert "mpi_yield_when_idle" not in make("-np 4 ./app", cpus=4).command
    assert "mpi_yield_when_idle" not in make("./app", cpus=1).command


def test_user_choices_are_not_overridden() -> None:
    p = make("--mca mpi_yield_when_idle 0 --oversubscribe -np 8 ./app", cpus=2)
    assert p.command == [MPIRUN, "--mca", "mpi_yield_when_idle", "0", "--oversubscribe",
                         "-np", "8", *PRELOAD, "./app"]  # fmt: skip
    assert "--oversubscribe" not in make("--nooversubscribe -np 1 ./app").command


def test_root_gets_the_open_mpi_permission() -> None:
    p = make("-np 1 ./app", root=True)
    assert p.env == {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def test_trellis_environment_is_forwarded() -> None:
    environ = {"TRELLIS_ON_ERROR": "warn", "TRELLIS_BUILD": "/b", "HOME": "/root"}
    p = make("--rules 'bcast linear' --verbose -np 2 ./app", environ=environ)
    assert p.env == {"TRELLIS_RULES": "bcast linear", "TRELLIS_VERBOSE": "1"}
    exports = p.command[p.command.index("-x") : p.command.index("./app")]
    assert exports == [*PRELOAD, "-x", "TRELLIS_ON_ERROR", "-x", "TRELLIS_RULES",
                       "-x", "TRELLIS_VERBOSE"]  # fmt: skip


def test_check_sets_and_forwards_trellis_check() -> None:
    p = make("--check -np 2 ./app --check")
    assert p.env == {"TRELLIS_CHECK": "1"}
    at = p.command.index("TRELLIS_CHECK")
    assert p.command[at - 1 : at + 1] == ["-x", "TRELLIS_CHECK"]
    assert p.command[-2:] == ["./app", "--check"]  # the program's own argument stays


def test_inherited_preload_is_kept_after_trellis() -> None:
    p = make("./app", environ={"LD_PRELOAD": "/usr/lib/libfoo.so"})
    assert f"LD_PRELOAD={LIB}:/usr/lib/libfoo.so" in p.command


def test_rules_file_becomes_absolute(tmp_path: Path) -> None:
    (tmp_path / "my.rules").write_text("bcast linear\n")
    p = plan(["--rules", "my.rules", "./app"], environ={}, cpus=2, as_root=False, library=LIB,
             cwd=tmp_path)  # fmt: skip
    assert p.env["TRELLIS_RULES"] == str(tmp_path / "my.rules")


@pytest.mark.parametrize("argv", ["", "-np 2", "--rules", "-np", "--mca btl"])
def test_incomplete_command_lines(argv: str) -> None:
    with pytest.raises(TrellisError) as err:
        make(argv)
    assert err.value.status == 2


def test_dry_run_prints_the_command(run_trellis, monkeypatch) -> None:
    # Set in the caller's shell, they are passed on as they are and not printed.
    monkeypatch.delenv("OMPI_ALLOW_RUN_AS_ROOT", raising=False)
    monkeypatch.delenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", raising=False)
    proc = run_trellis("run", "-np", "2", "--dry-run", "./x")
    assert proc.returncode == 0, proc.stderr
    words = shlex.split(proc.stdout)
    mpirun = words.index(MPIRUN)
    library = native.library()
    assert library.is_absolute()
    assert library.is_file()
    assert words[mpirun:] == [MPIRUN, "--oversubscribe", "-np", "2",
                              "-x", f"LD_PRELOAD={library}", "./x"]  # fmt: skip
    if os.geteuid() == 0:
        assert words[:mpirun] == ["OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"]
    else:
        assert words[:mpirun] == []


def test_dry_run_with_rules_and_verbose(run_trellis) -> None:
    proc = run_trellis("run", "--rules", "allreduce ring", "--verbose", "-np", "3", "--dry-run",
                       "./x", "--flag")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    words = shlex.split(proc.stdout)
    assert "TRELLIS_RULES=allreduce ring" in words
    assert "TRELLIS_VERBOSE=1" in words
    assert words[-6:] == ["-x", "TRELLIS_RULES", "-x", "TRELLIS_VERBOSE", "./x", "--flag"]


def test_no_program_is_an_error(run_trellis) -> None:
    proc = run_trellis("run", "-np", "2")
    assert proc.returncode == 2
    assert "which program?" in proc.stderr


def test_help(run_trellis) -> None:
    proc = run_trellis("run", "--help")
    assert proc.returncode == 0
    assert "How the command line is split" in proc.stdout


def fake_mpirun(directory: Path, status: int, name: str = "mpirun") -> Path:
    """An `mpirun` (under each of Open MPI's names, or `name`) that records its
    arguments and environment, and exits with status."""
    script = directory / name
    script.write_text(
        "#!/bin/sh\n"
        f'printf "%s\\n" "$@" > "{directory}/args"\n'
        f'env > "{directory}/env"\n'
        f"exit {status}\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    if name == "mpirun":
        (directory / "mpirun.openmpi").symlink_to(script)
    return script


def test_real_run_passes_environment_and_exit_status(run_trellis, tmp_path: Path) -> None:
    fake_mpirun(tmp_path, 3)
    proc = run_trellis(
        "run", "--rules", "bcast linear", "-np", "2", "./app", "arg",
        env={"PATH": f"{tmp_path}:{os.environ['PATH']}"},
    )  # fmt: skip
    assert proc.returncode == 3, proc.stderr
    args = (tmp_path / "args").read_text().splitlines()
    assert args == ["--oversubscribe", "-np", "2", "-x", f"LD_PRELOAD={native.library()}",
                    "-x", "TRELLIS_RULES", "./app", "arg"]  # fmt: skip
    env = (tmp_path / "env").read_text().splitlines()
    assert "TRELLIS_RULES=bcast linear" in env
    # mpirun itself must not load the library: only the ranks do, through -x.
    assert not any(line.startswith("LD_PRELOAD=") and "libtrellis" in line for line in env)
    if os.geteuid() == 0:
        assert "OMPI_ALLOW_RUN_AS_ROOT=1" in env
