"""`trellis run`: run an unchanged MPI program under `mpirun` with Trellis' collectives.

    trellis run [trellis options] [mpirun options] program [args...]

The MPI: Open MPI's mpirun, or MPICH's mpiexec with `--mpi mpich` (or TRELLIS_MPI=mpich);
by default the MPI the program is linked with (its dynamic dependencies, as `ldd` lists
them: libmpi.so.40 is Open MPI, libmpich.so.12 MPICH), else the one the library found is
built for. A program linked with the other MPI than the one named stops here, with a
message: the other MPI's launcher and library cannot run it. The library: $TRELLIS_LIB, or the
first found next to the package, in the install prefix's lib, in the build tree (build/,
build-mpich/ for MPICH; docs/install.md). What it adds to the launcher's command line,
with Open MPI (MPICH: -genv NAME VALUE for -x):

- `-x LD_PRELOAD=<absolute path of libtrellis.so>`, so every rank loads Trellis
  (an LD_PRELOAD already in the environment is kept after it);
- `-x NAME` for every TRELLIS_* variable of the environment (after --rules, --topology
  --verbose and --check are applied; TRELLIS_BUILD, TRELLIS_LIB and TRELLIS_MPI, which only say
  where the library is and which MPI, aside), so every rank sees the same configuration;
- `--oversubscribe`, unless an --oversubscribe or --nooversubscribe option is given
  (MPICH's mpiexec oversubscribes as it is);
- `--mca mpi_yield_when_idle 1` when -np asks for more ranks than this machine has
  cores (busy-polling ranks that share cores starve each other and the kernel), unless
  the command line sets mpi_yield_when_idle itself (MPICH has no such setting);
- OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 in mpirun's
  environment when running as root (MPICH needs nothing).

How the command line is split. Everything before the program is options; the program is
the first argument that does not start with '-' and is not the value of an option that
takes one (a `--` there also ends the options, and is dropped). trellis' own options may
stand anywhere among the options:

    --rules RULES   set TRELLIS_RULES (rules inline, or a rules file: made absolute)
    --topology L    set TRELLIS_TOPOLOGY (a layout inline, or a layout file: made
                    absolute; docs/topology.md)
    --testbed[=DIR] run across the emulated cluster `trellis testbed up` made (its
                    hostfile, launch agent and private subnet; docs/testbed.md); DIR
                    is the testbed's directory (default /run/trellis-testbed)
    --mpi NAME      the MPI: openmpi (mpirun) or mpich (mpiexec); sets TRELLIS_MPI
    --verbose       set TRELLIS_VERBOSE=1 (mpirun's own verbose flag is -v)
    --check         set TRELLIS_CHECK=1: every collective call is compared across its
                    ranks first, and a mismatch ends the job with a report (docs/check.md)
    --trace DIR     set TRELLIS_TRACE: every rank records its collectives' steps and
                    writes DIR/rank-N.jsonl at MPI_Finalize (`trellis trace DIR` shows
                    them; docs/trace-format.md); DIR is made absolute. What an earlier
                    trace left in DIR (rank-*.jsonl, and trellis trace's trace.json and
                    timeline.png) is removed first, and the command says so
    --dry-run       print the mpirun command instead of running it
    -h, --help      this help

Every other option is mpirun's and is passed on untouched, in its place. mpirun options
that take a value are known by name (-np N, -n N, -c N, --host X,
--hostfile F, --map-by X, --bind-to X, -x VAR, --mca KEY VALUE with two values, ...;
MPICH's mpiexec: -n N, -f F, -hosts X, -genv NAME VALUE, ...), with one dash or two;
an option written --name=value carries its value. An option not
known by name is taken to be a flag; if it takes a value, end the options with `--`:
when such an option comes before what looks like the program and a `--` follows, the
options run up to that `--`, and the program comes after it.
"""

import os
import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from trellis import mpi_impl, native, testbed
from trellis.native import TrellisError

USAGE = (
    "usage: trellis run [--rules RULES] [--topology LAYOUT] [--testbed[=DIR]] [--mpi MPI] "
    "[--verbose] [--check] [--trace DIR] [--dry-run] "
    "[mpirun options] program [args]"
)

# The launcher's options, which split_args must know to tell their values from the
# program, are each MPI's (mpi_impl.py); ALL_MPIS knows every MPI's at once, to find
# --mpi before knowing which.
TRELLIS_FLAGS = frozenset({"--verbose", "--check", "--dry-run", "-h", "--help"})
TRELLIS_VALUE_OPTIONS = frozenset({"--rules", "--topology", "--mpi", "--trace"})

# TRELLIS_* variables for this command, not for the library in the ranks.
COMMAND_ONLY_VARIABLES = frozenset({"TRELLIS_BUILD", native.LIB_VARIABLE, mpi_impl.VARIABLE})


@dataclass
class Split:
    """A `trellis run` command line, split into its three parts."""

    rules: str | None = None
    topology: str | None = None
    testbed: str | None = None  # the testbed's directory; "" for the default
    mpi: str | None = None  # --mpi
    verbose: bool = False
    check: bool = False
    trace: str | None = None
    dry_run: bool = False
    help: bool = False
    mpirun: list[str] = field(default_factory=list)
    program: list[str] = field(default_factory=list)


@dataclass
class Plan:
    """What `trellis run` executes: the command, and what it sets in its environment."""

    command: list[str]
    env: dict[str, str]
    dry_run: bool


option_name = mpi_impl.option_name


class _AllMPIs:
    """Every MPI's launcher options together (a name that is a flag for one MPI and
    takes a value for another takes it)."""

    def __init__(self) -> None:
        kinds = [cls() for cls in mpi_impl.KINDS.values()]
        self.two_value_options = frozenset().union(*(k.two_value_options for k in kinds))
        self.value_options = frozenset().union(*(k.value_options for k in kinds))
        self.flag_options = frozenset().union(*(k.flag_options for k in kinds))
        self.np_options = frozenset().union(*(k.np_options for k in kinds))


ALL_MPIS = _AllMPIs()
Tables = mpi_impl.MPI | _AllMPIs


def _trellis_option(split: Split, argv: Sequence[str], i: int) -> int:
    """Apply argv[i] if it is one of trellis' own options; the arguments it took (0: it
    is mpirun's)."""
    name, has_value, inline = argv[i].partition("=")
    if name == "--testbed":  # a flag, or --testbed=DIR
        split.testbed = inline if has_value else ""
        return 1
    if name in TRELLIS_FLAGS and not has_value:
        split.verbose |= name == "--verbose"
        split.check |= name == "--check"
        split.dry_run |= name == "--dry-run"
        split.help |= name in {"-h", "--help"}
        return 1
    if name not in TRELLIS_VALUE_OPTIONS:
        return 0
    if not has_value:
        if i + 1 >= len(argv):
            raise TrellisError(f"trellis run: {name} needs a value\n{USAGE}", 2)
        inline = argv[i + 1]
    if name == "--rules":
        split.rules = inline
    elif name == "--trace":
        split.trace = inline
    elif name == "--mpi":
        split.mpi = inline
    else:
        split.topology = inline
    return 1 if has_value else 2


def _split(argv: Sequence[str], *, options_only: bool, mpi: Tables) -> tuple[Split, bool]:
    """One pass over the options. With options_only every argument is an option or a
    value; otherwise the first argument that cannot be either starts the program.
    Also says whether an mpirun option this module does not know came before it."""
    split = Split()
    unknown = False
    i = 0
    while i < len(argv):
        arg = argv[i]
        if not options_only and (arg == "--" or not arg.startswith("-") or arg == "-"):
            split.program = list(argv[i + 1 :] if arg == "--" else argv[i:])
            break
        has_value = "=" in arg
        taken = _trellis_option(split, argv, i)
        if taken:
            i += taken
            continue
        # mpirun's: the option and the values it takes, untouched.
        key = option_name(arg)
        takes = 0
        if not has_value and key in mpi.two_value_options:
            takes = 2
        elif not has_value and key in mpi.value_options:
            takes = 1
        elif key not in mpi.flag_options | mpi.value_options | mpi.two_value_options:
            unknown = True
        if i + takes >= len(argv):
            raise TrellisError(f"trellis run: {arg} needs {takes} value(s)\n{USAGE}", 2)
        split.mpirun += argv[i : i + 1 + takes]
        i += 1 + takes
    return split, unknown


def split_args(argv: Sequence[str], mpi: Tables = ALL_MPIS) -> Split:
    """Split a `trellis run` command line (see the module's documentation), knowing the
    launcher options of `mpi` (by default, of every MPI)."""
    split, unknown = _split(argv, options_only=False, mpi=mpi)
    if unknown and "--" in split.program:
        # An option we do not know may have taken the "program" as its value: the `--`
        # further on is where the options end.
        cut = len(argv) - len(split.program) + split.program.index("--")
        split, _ = _split(argv[:cut], options_only=True, mpi=mpi)
        split.program = list(argv[cut + 1 :])
    return split


def which_mpi(split: Split, environ: Mapping[str, str], library: Path | None,
              linked: tuple[str, str] | None = None) -> mpi_impl.MPI:  # fmt: skip
    """--mpi, else TRELLIS_MPI, else the MPI the program is linked with (`linked`:
    mpi_impl.program_mpi's), else the MPI the library is built for, else Open MPI. A
    program linked with another MPI than the one named, or than the library given
    ($TRELLIS_LIB) is built for, cannot run: that is an error here, before the launch."""
    named = mpi_impl.chosen(split.mpi, environ)
    name = named or (linked[0] if linked else None)
    if name is None and library is not None:
        name = mpi_impl.built_for(library)
    try:
        mpi = mpi_impl.get(name or mpi_impl.DEFAULT)
    except mpi_impl.UnknownMPIError as err:
        raise TrellisError(f"trellis run: {err}", 2) from None
    if linked and linked[0] != mpi.name:
        program, theirs = split.program[0], mpi_impl.get(linked[0])
        how = f"--mpi {split.mpi}" if split.mpi else f"{mpi_impl.VARIABLE}={named}"
        raise TrellisError(
            f"trellis run: {program} is linked with {theirs.title} ({linked[1]}), but {how} "
            f"asks for {mpi.title}: {mpi.title}'s launcher and Trellis' library for it cannot "
            f"run an {theirs.title} program. Leave out {how} (trellis run then picks "
            f"{theirs.title}'s), or build {program} with {mpi.title}'s compiler "
            f"(mpicc.{mpi.name})", 2)  # fmt: skip
    built = mpi_impl.built_for(library) if library is not None and linked else None
    if built and linked and built != linked[0]:
        theirs, lib_mpi = mpi_impl.get(linked[0]), mpi_impl.get(built)
        raise TrellisError(
            f"trellis run: {split.program[0]} is linked with {theirs.title} ({linked[1]}), but "
            f"the library {library} is built for {lib_mpi.title}: set {native.LIB_VARIABLE} to "
            f"a libtrellis.so built for {theirs.title}, or unset it", 2)  # fmt: skip
    return mpi


def ranks_requested(mpirun: Sequence[str], mpi: Tables = ALL_MPIS) -> int | None:
    """The number of ranks asked for with -np/-n/-c (the last one wins), or None."""
    ranks = None
    i = 0
    while i < len(mpirun):
        arg = mpirun[i]
        key = option_name(arg)
        value = None
        if key in mpi.np_options:
            value = arg.split("=", 1)[1] if "=" in arg else mpirun[i + 1]
        if value is not None and value.isdigit():
            ranks = int(value)
        i += 1
    return ranks


def environment(split: Split, environ: Mapping[str, str], mpi: "mpi_impl.MPI", *,
                as_root: bool, cwd: Path | None) -> dict[str, str]:  # fmt: skip
    """What the command sets in its environment for the ranks."""
    env: dict[str, str] = {}
    for name, value in mpi.launcher_env(as_root=as_root).items():
        if environ.get(name) != value:
            env[name] = value
    for name, value in (("TRELLIS_RULES", split.rules), ("TRELLIS_TOPOLOGY", split.topology)):
        if value is not None:  # a file is made absolute: ranks may start elsewhere
            env[name] = native.absolute_if_file(value, name, cwd)
    if split.verbose:
        env["TRELLIS_VERBOSE"] = "1"
    if split.check:
        env["TRELLIS_CHECK"] = "1"
    if split.trace is not None:  # absolute too
        env["TRELLIS_TRACE"] = str(((cwd or Path.cwd()) / split.trace).resolve())
    return env


def plan(  # noqa: PLR0913 -- the inputs are explicit so that tests can vary them
    argv: Sequence[str],
    *,
    environ: Mapping[str, str],
    cpus: int,
    as_root: bool,
    library: Path,
    cwd: Path | None = None,
    linked: tuple[str, str] | None = None,
) -> Plan:
    """The launcher's command for a `trellis run` command line, computed without running
    it; `linked`: the MPI the program is linked with, if known (mpi_impl.program_mpi)."""
    mpi = which_mpi(split_args(argv), environ, library, linked)
    split = split_args(argv, mpi)
    if not split.program:
        raise TrellisError(f"trellis run: which program?\n{USAGE}", 2)

    env = environment(split, environ, mpi, as_root=as_root, cwd=cwd)

    options = list(split.mpirun)
    added: list[str] = []
    if split.testbed is not None:
        directory = Path(split.testbed) if split.testbed else testbed.DEFAULT_DIR
        added += testbed.mpirun_options(directory, mpi, options)
    added += mpi.oversubscribe(options)
    ranks = ranks_requested(options, mpi)
    # Across emulated hosts busy-polling ranks starve the kernel's network work too.
    crowded = ranks is not None and ranks > cpus
    if crowded or split.testbed is not None:
        added += mpi.share_cores(options)

    preload = str(library)
    inherited = environ.get("LD_PRELOAD", "")
    if inherited and preload not in inherited.split(":"):
        preload = f"{preload}:{inherited}"
    forwarded = sorted(
        name
        for name in {*environ, *env}
        if name.startswith("TRELLIS_") and name not in COMMAND_ONLY_VARIABLES
    )
    exports = mpi.export("LD_PRELOAD", preload)
    for name in forwarded:
        exports += mpi.forward(name, env.get(name, environ.get(name, "")))

    command = [mpi.launcher(), *added, *options, *exports, *split.program]
    return Plan(command=command, env=env, dry_run=split.dry_run)


TRACE_LEFTOVERS = ("rank-*.jsonl", "trace.json", "timeline.png")


def clear_trace(directory: Path) -> str | None:
    """Remove what an earlier trace wrote into `directory` (its ranks' files and trellis
    trace's default outputs), so that the run about to start is all it holds; what was
    removed, to say, or None."""
    if not directory.is_dir():
        return None
    gone = [p for pattern in TRACE_LEFTOVERS for p in sorted(directory.glob(pattern))
            if p.is_file()]  # fmt: skip
    for p in gone:
        p.unlink()
    if not gone:
        return None
    ranks = sum(1 for p in gone if p.suffix == ".jsonl")
    others = [p.name for p in gone if p.suffix != ".jsonl"]
    what = f"{ranks} rank file{'s' if ranks != 1 else ''}" if ranks else ""
    what = ", ".join(x for x in (what, *others) if x)
    return f"trellis run: --trace {directory}: removed what an earlier trace left there ({what})"


def format_plan(p: Plan) -> str:
    """The command as a shell line, with the variables it sets in front."""
    prefix = [f"{name}={shlex.quote(value)}" for name, value in p.env.items()]
    return " ".join([*prefix, shlex.join(p.command)]) + "\n"


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def execute(p: Plan) -> int:
    """Run the plan; mpirun's exit status (128 + N when killed by signal N)."""
    env = {**os.environ, **p.env}
    try:
        proc = subprocess.Popen(p.command, env=env)
    except FileNotFoundError:
        raise TrellisError(
            f"trellis run: {p.command[0]} not found: run scripts/setup.sh (installs Open MPI "
            "and MPICH)",
            127,
        ) from None
    try:
        rc = proc.wait()
    except KeyboardInterrupt:
        # mpirun got the same SIGINT from the terminal; let it shut the job down.
        rc = proc.wait()
    return 128 - rc if rc < 0 else rc


def run(argv: Sequence[str]) -> int | str:
    """`trellis run ARGV`: mpirun's exit status, or the command itself with --dry-run."""
    split = split_args(argv)
    if split.help:
        return __doc__ or ""
    if not split.program:  # before looking for the build: the usage error comes first
        raise TrellisError(f"trellis run: which program?\n{USAGE}", 2)
    # The library for the MPI named, else for the one the program is linked with (a
    # program of the other MPI stops at once: checked here, before the library is looked
    # for).
    linked = mpi_impl.program_mpi(split.program[0])
    named = mpi_impl.chosen(split.mpi, os.environ)
    wanted = which_mpi(split, os.environ, None, linked).name if named or linked else None
    try:
        library = native.library(wanted)
    except TrellisError as err:
        if linked and not named:  # the MPI was the program's: say so
            raise TrellisError(
                f"{err} ({split.program[0]} is linked with "
                f"{mpi_impl.get(linked[0]).title}: {linked[1]})"
            ) from None
        raise
    p = plan(
        argv,
        environ=os.environ,
        cpus=available_cpus(),
        as_root=os.geteuid() == 0,
        library=library,
        linked=linked,
    )
    if p.dry_run:
        return format_plan(p)
    if "TRELLIS_TRACE" in p.env:
        said = clear_trace(Path(p.env["TRELLIS_TRACE"]))
        if said:
            sys.stderr.write(said + "\n")
    sys.stdout.flush()
    return execute(p)
