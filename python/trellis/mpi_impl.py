"""What differs between the MPI libraries the trellis command drives, one class per MPI:
how a job is launched (the launcher; its options for ranks, environment variables,
oversubscription, ranks that share cores, and the emulated cluster's hosts and launch
agent), where Trellis' library built for that MPI lives in a source checkout, which
library a libtrellis.so was built against, and the MPI library's own collectives as
`trellis bench` baselines. (What differs at compile time: src/exec/mpi_impl.h.)

Which MPI: `--mpi NAME` (trellis run, trellis bench), else $TRELLIS_MPI, else the one the
library found was built against, else Open MPI. NAME is `openmpi` or `mpich`.

    python3 -m trellis.mpi_impl launch --mpi mpich --np 3 [--preload LIB] [--env NAME=VALUE]...

prints the launcher's command line for the test and benchmark scripts (each argument
ending in a NUL byte: `mapfile -d ''`), so that they too take it from here."""

import argparse
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import ClassVar

VARIABLE = "TRELLIS_MPI"


class MPI:
    """The parts every MPI class fills in; see OpenMPI and MPICH."""

    name: ClassVar[str]  # as --mpi and TRELLIS_MPI write it
    title: ClassVar[str]  # for messages
    launchers: ClassVar[tuple[str, ...]]  # the launcher's names, the first found is used
    build_dir: ClassVar[str]  # this MPI's build tree in a source checkout
    soname: ClassVar[bytes]  # the MPI library's name, as a libtrellis.so built for it needs it
    # The start of the names of the libraries (sonames) that a program of this MPI
    # depends on, directly or not: what tells it from a program of another MPI.
    program_libraries: ClassVar[tuple[str, ...]]
    variable_prefixes: ClassVar[tuple[str, ...]]  # the MPI library's own settings
    baselines: ClassVar[dict[str, tuple[str, ...]]]  # its own collectives: name -> options
    # The launcher's options, named without dashes: those taking a value, two values, and
    # flags; and those whose value is the number of ranks (trellis run splits its command
    # line with them).
    value_options: ClassVar[frozenset[str]]
    two_value_options: ClassVar[frozenset[str]]
    flag_options: ClassVar[frozenset[str]]
    np_options: ClassVar[frozenset[str]]

    def launcher(self) -> str:
        """The first of the launcher's names found on PATH (Debian's own name for this
        MPI's first, as the generic one may be another MPI's), or the generic name when
        none is (the error comes when it runs)."""
        for name in self.launchers:
            if shutil.which(name):
                return name
        return self.launchers[-1]

    def ranks(self, count: int) -> list[str]:
        return ["-n", str(count)]

    def export(self, name: str, value: str) -> list[str]:
        """Options that set a variable in every rank, and not in the launcher."""
        raise NotImplementedError

    def forward(self, name: str, value: str) -> list[str]:
        """Options that pass a variable of the launcher's environment (set to value
        there) on to every rank."""
        return self.export(name, value)

    def oversubscribe(self, options: Sequence[str]) -> list[str]:
        """Options that let more ranks than slots start, unless `options` decide."""
        del options
        return []

    def share_cores(self, options: Sequence[str]) -> list[str]:
        """Options for ranks that share cores (more ranks than cores, or the emulated
        cluster's hosts, which all share this machine's), unless `options` set them."""
        del options
        return []

    def launcher_env(self, *, as_root: bool) -> dict[str, str]:
        """Variables the launcher itself needs."""
        del as_root
        return {}

    def testbed(self, directory: Path, subnet: str, hosts: int, slots: int) -> list[str]:
        """Options that run across the emulated cluster in `directory`
        (python/trellis/testbed.py): its hosts h0, h1, ..., reached through its launch
        agent `directory/agent`, talking over `subnet`."""
        raise NotImplementedError

    def keep_cpus(self, options: Sequence[str]) -> list[str]:
        """Options that keep the CPUs a testbed host's agent gave its processes
        (`testbed up --cores split`), given the options already on the command line."""
        del options
        return []

    def is_library_variable(self, name: str) -> bool:
        return name.startswith(self.variable_prefixes)


class OpenMPI(MPI):
    """Open MPI 4.1's mpirun."""

    name = "openmpi"
    title = "Open MPI"
    launchers = ("mpirun.openmpi", "mpirun")
    build_dir = "build"
    soname = b"libmpi.so."
    # libmpi.so.40 (Open MPI 3 to 5; other MPIs have had a libmpi.so.12), and the
    # libraries only Open MPI has: its runtime and its Fortran bindings.
    program_libraries = ("libmpi.so.40", "libopen-pal.so.", "libopen-rte.so.",
                         "libmpi_mpifh.so.", "libmpi_usempif08.so.")  # fmt: skip
    variable_prefixes = ("OMPI_MCA_",)
    # ompi: the default selection (tuned); han: the hierarchical component forced on.
    baselines: ClassVar[dict[str, tuple[str, ...]]] = {
        "ompi": (),
        "han": ("--mca", "coll_han_priority", "100"),
    }
    value_options = frozenset(
        {
            "np", "n", "c", "N",
            "H", "host", "hostfile", "machinefile", "default-hostfile", "rankfile",
            "map-by", "rank-by", "bind-to", "cpu-set", "cpus-per-proc", "cpus-per-rank",
            "npernode", "npersocket", "max-restarts",
            "x", "wdir", "wd", "path", "prefix", "preload-files", "stdin",
            "output-filename", "report-uri", "report-pid", "ompi-server", "timeout",
            "app", "am", "tune", "launch-agent", "personality",
        }
    )  # fmt: skip
    two_value_options = frozenset({"mca", "gmca"})
    flag_options = frozenset(
        {
            "oversubscribe", "nooversubscribe", "allow-run-as-root", "use-hwthread-cpus",
            "report-bindings", "display-map", "display-devel-map", "display-allocation",
            "tag-output", "timestamp-output", "merge-stderr-to-stdout", "xml",
            "bynode", "byslot", "bycore", "bysocket", "nolocal", "noprefix",
            "v", "verbose", "q", "quiet", "d", "debug", "debug-daemons", "debug-devel",
            "s", "preload-binary", "enable-recovery", "disable-recovery",
            "report-state-on-timeout", "get-stack-traces", "do-not-launch",
            "h", "help", "V", "version",
        }
    )  # fmt: skip
    np_options = frozenset({"np", "n", "c"})
    YIELD = "mpi_yield_when_idle"

    def ranks(self, count: int) -> list[str]:
        return ["-np", str(count)]

    def export(self, name: str, value: str) -> list[str]:
        return ["-x", f"{name}={value}"]

    def forward(self, name: str, value: str) -> list[str]:
        del value  # in mpirun's environment
        return ["-x", name]

    def oversubscribe(self, options: Sequence[str]) -> list[str]:
        names = {option_name(arg) for arg in options}
        return [] if names & {"oversubscribe", "nooversubscribe"} else ["--oversubscribe"]

    def share_cores(self, options: Sequence[str]) -> list[str]:
        """Busy-polling ranks that share cores starve each other (and, across emulated
        hosts, the kernel's network work): mpi_yield_when_idle makes them yield, and
        tells Trellis' shared-memory transport to yield too."""
        sets_yield = any(
            option_name(arg) in self.two_value_options
            and i + 1 < len(options)
            and options[i + 1] == self.YIELD
            for i, arg in enumerate(options)
        )
        return [] if sets_yield else ["--mca", self.YIELD, "1"]

    def launcher_env(self, *, as_root: bool) -> dict[str, str]:
        if not as_root:
            return {}
        return {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}

    def testbed(self, directory: Path, subnet: str, hosts: int, slots: int) -> list[str]:
        del hosts, slots  # in the hostfile
        return [
            "--hostfile", str(directory / "hostfile"),
            "--mca", "plm_rsh_agent", str(directory / "agent"),
            "--mca", "plm_rsh_no_tree_spawn", "1",
            "--mca", "oob_tcp_if_include", subnet,
            "--mca", "btl_tcp_if_include", subnet,
            "--mca", "btl", "self,vader,tcp",
        ]  # fmt: skip

    def keep_cpus(self, options: Sequence[str]) -> list[str]:
        """Under `testbed up --cores split` the agent holds each host's processes to its
        CPUs; Open MPI's own binding (to a socket: the whole machine here) would widen
        them again. Where the options bind already, they are the user's choice."""
        names = {option_name(arg) for arg in options}
        return [] if names & {"bind-to", "cpu-set", "cpu-list"} else ["--bind-to", "none"]


class MPICH(MPI):
    """MPICH 4's mpiexec (Hydra)."""

    name = "mpich"
    title = "MPICH"
    launchers = ("mpiexec.mpich", "mpiexec.hydra", "mpiexec")
    build_dir = "build-mpich"
    soname = b"libmpich.so."
    program_libraries = ("libmpich.so.", "libmpichfort.so.", "libmpichcxx.so.")
    # MPICH's control variables, among them its algorithm choices for the bench
    # baselines: MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling, ...
    variable_prefixes = ("MPIR_CVAR_",)
    baselines: ClassVar[dict[str, tuple[str, ...]]] = {"mpich": ()}
    value_options = frozenset(
        {
            "n", "np", "f", "hostfile", "machinefile", "hosts", "host", "wdir", "configfile",
            "genvlist", "envlist", "launcher", "launcher-exec", "bootstrap", "bootstrap-exec",
            "rmk", "topolib", "bind-to", "binding", "map-by", "membind", "demux", "iface",
            "ppn", "prepend-pattern", "outfile-pattern", "errfile-pattern", "nameserver",
            "order-nodes", "localhost", "usize", "gpus-per-proc",
        }
    )  # fmt: skip
    two_value_options = frozenset({"genv", "env"})
    flag_options = frozenset(
        {
            "genvall", "genvnone", "envall", "envnone", "enable-x", "disable-x", "verbose",
            "v", "info", "print-all-exitcodes", "profile", "prepend-rank", "l",
            "disable-auto-cleanup", "disable-hostname-propagation", "pmi-port",
            "skip-launch-node", "h", "help",
        }
    )  # fmt: skip
    np_options = frozenset({"n", "np"})

    def export(self, name: str, value: str) -> list[str]:
        return ["-genv", name, value]

    def testbed(self, directory: Path, subnet: str, hosts: int, slots: int) -> list[str]:
        """Hydra starts a proxy on every host through the agent (as it would ssh), which
        connects back to mpiexec: at the bridge's address, the one address of this
        machine the emulated hosts reach. UCX, MPICH's transport here, keeps to TCP over
        the hosts' links (its shared memory would bypass them)."""
        import ipaddress  # noqa: PLC0415 -- only here

        bridge = str(list(ipaddress.ip_network(subnet).hosts())[-1])
        host_list = ",".join(f"h{i}:{slots}" for i in range(hosts))
        return [
            "-hosts", host_list,
            "-launcher", "ssh", "-launcher-exec", str(directory / "agent"),
            "-localhost", bridge,
            "-genv", "UCX_TLS", "tcp,self",
        ]  # fmt: skip


KINDS: dict[str, type[MPI]] = {cls.name: cls for cls in (OpenMPI, MPICH)}
DEFAULT = OpenMPI.name


def option_name(arg: str) -> str:
    """'-np' -> 'np', '--map-by=core' -> 'map-by'."""
    return arg.lstrip("-").split("=", 1)[0]


class UnknownMPIError(ValueError):
    pass


def get(name: str) -> MPI:
    try:
        return KINDS[name.lower()]()
    except KeyError:
        raise UnknownMPIError(
            f"unknown MPI {name!r}: expected one of {', '.join(sorted(KINDS))}"
        ) from None


def built_for(library: Path) -> str | None:
    """The MPI a libtrellis.so was built against (the MPI library it needs), if known."""
    try:
        data = library.read_bytes()
    except OSError:
        return None
    for cls in KINDS.values():
        if cls.soname in data:
            return cls.name
    return None


def program_mpi(program: str) -> tuple[str, str] | None:
    """The MPI a program is linked with, from its dynamic dependencies (`ldd`, which
    lists those of its libraries too: a Fortran program's MPI comes through its
    bindings), and the library that says so: ("mpich", "libmpich.so.12"). None when
    the program is not found, not a dynamic executable (a script), or links no known
    MPI or more than one."""
    path = program if "/" in program else shutil.which(program)
    if not path or not Path(path).is_file():
        return None
    try:
        proc = subprocess.run(["ldd", path], capture_output=True, text=True, timeout=30,
                              check=False)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode:
        return None
    found: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        words = line.split()
        if not words:
            continue
        for cls in KINDS.values():
            if words[0].startswith(cls.program_libraries):
                found.setdefault(cls.name, words[0])
    return next(iter(found.items())) if len(found) == 1 else None


def chosen(explicit: str | None, environ: Mapping[str, str]) -> str | None:
    """The MPI the user named: --mpi, else $TRELLIS_MPI; None when neither says."""
    return explicit or environ.get(VARIABLE) or None


def launch_command(
    mpi: MPI, ranks: int, preload: str | None, env: Sequence[str], *, share_cores: bool
) -> list[str]:
    """The launcher for `ranks` ranks on this machine, with libtrellis.so preloaded (unless
    preload is None) and NAME=VALUE variables set in every rank; with more ranks than
    cores, or share_cores, ranks may outnumber cores and share them."""
    cmd = [mpi.launcher(), *mpi.ranks(ranks)]
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if share_cores or ranks > (cpus or 1):
        cmd += [*mpi.oversubscribe([]), *mpi.share_cores([])]
    if preload:
        cmd += mpi.export("LD_PRELOAD", preload)
    for item in env:
        name, _, value = item.partition("=")
        cmd += mpi.export(name, value)
    return cmd


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m trellis.mpi_impl")
    sub = parser.add_subparsers(dest="what", required=True)
    launch = sub.add_parser("launch", help="print a launcher command line (NUL-separated)")
    launch.add_argument("--mpi", default=None)
    launch.add_argument("--np", type=int, required=True)
    launch.add_argument("--preload", default=None)
    launch.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    launch.add_argument("--share-cores", action="store_true",
                        help="ranks share cores, however many there are")  # fmt: skip
    env = sub.add_parser("env", help="print the variables the launcher needs (NAME=VALUE, NUL)")
    env.add_argument("--mpi", default=None)
    args = parser.parse_args(argv)
    try:
        mpi = get(chosen(args.mpi, os.environ) or DEFAULT)
    except UnknownMPIError as err:
        parser.error(str(err))
    if args.what == "launch":
        lines = launch_command(mpi, args.np, args.preload, args.env,
                               share_cores=args.share_cores)  # fmt: skip
    else:
        lines = [f"{k}={v}" for k, v in mpi.launcher_env(as_root=os.geteuid() == 0).items()]
    sys.stdout.write("".join(f"{line}\0" for line in lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
