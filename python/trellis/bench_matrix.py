"""What `trellis bench` runs: configurations, and one measuring run of one of them.

A configuration is the MPI library's own collectives (Open MPI's `ompi`: its default
selection, `han`: its hierarchical component forced on; MPICH's `mpich`: its default
selection; or `NAME:VAR=VALUE;...` setting only the MPI library's own variables, such as
`MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=ring`: mpi_impl.py) or Trellis with rules and a
layout (`NAME:rules=...;topology=...`). A run is one mpirun of bench/latency, which
times each call with seed 001's method (warm-up, each iteration's time the slowest
rank's, the median over iterations) and checks results; bench/latency's "trellis"
column is the call as the program makes it, which without libtrellis.so preloaded is
the MPI library's own."""

import csv
import json
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from trellis import mpi_impl, native, testbed
from trellis.native import TrellisError

CONFIG_KEYS = frozenset({"rules", "topology"})
# A ';' starts the next setting only where a setting's name and '=' follow it; any other
# ';' is part of the value, so `rules=allreduce ring; bcast linear` holds two rules (a
# rule starts with a collective, a layout word is never one of these names). The MPI
# libraries' own variables are settings too.
LIBRARY_PREFIXES = [p for cls in mpi_impl.KINDS.values() for p in cls.variable_prefixes]
NEXT_SETTING = re.compile(
    r";(?=\s*(?:rules|topology(?:@\d+)?|TRELLIS_\w+|"
    + "|".join(f"{prefix}\\w+" for prefix in LIBRARY_PREFIXES)
    + r")=)"
)
SETTINGS_HELP = "rules=, topology=, topology@N=, TRELLIS_*="


@dataclass(frozen=True)
class Config:
    name: str
    kind: str  # "mpi" (the MPI library's own collectives) or "trellis"
    env: dict[str, str] = field(default_factory=dict, hash=False)
    # topology@N=: the layout for runs on N ranks (a layout has a fixed size).
    layouts: dict[int, str] = field(default_factory=dict, hash=False)
    options: tuple[str, ...] = ()  # the launcher's, for a baseline such as han

    def env_for(self, ranks: int) -> dict[str, str]:
        """The TRELLIS_* variables of a run on `ranks` ranks."""
        env = dict(self.env)
        if ranks in self.layouts:
            env["TRELLIS_TOPOLOGY"] = self.layouts[ranks]
        return env


def parse_config(text: str, mpi: mpi_impl.MPI | None = None,
                 command: str = "trellis bench") -> Config:  # fmt: skip
    """One of the MPI's baselines (`ompi`, `han`; `mpich`), or `NAME:SETTING;SETTING...`
    with settings `rules=RULES`, `topology=LAYOUT` (every run), `topology@N=LAYOUT` (runs
    on N ranks), each a file or the text itself, any other TRELLIS_* variable as
    `TRELLIS_NAME=value`, and the MPI library's own variables (MPIR_CVAR_*, OMPI_MCA_*):
    Trellis, unless only the MPI library's variables are set. `command` names the command
    in messages (trellis simulate takes configurations too)."""
    mpi = mpi or mpi_impl.OpenMPI()
    if text in mpi.baselines:
        return Config(text, "mpi", options=mpi.baselines[text])
    name, sep, rest = text.partition(":")
    if not sep or not name or name in mpi.baselines:
        raise TrellisError(
            f"{command}: --config {text!r}: expected {', '.join(mpi.baselines)} or "
            "NAME:rules=...;topology=...",
            2,
        )
    env: dict[str, str] = {}
    layouts: dict[int, str] = {}
    library_only = False
    for item in NEXT_SETTING.split(rest):
        if not item.strip():
            continue
        key, eq, value = item.partition("=")
        key = key.strip()
        if eq and key.startswith("TRELLIS_"):  # any other setting of the library
            env[key] = value
            continue
        if eq and mpi.is_library_variable(key):  # the MPI library's own
            env[key] = value
            library_only = True
            continue
        base, at, count = key.partition("@")
        per_count = at and base == "topology" and count.isdigit() and int(count) > 0
        if not eq or base not in CONFIG_KEYS or (at and not per_count):
            raise TrellisError(
                f"{command}: --config {name}: unknown setting {item!r} ({SETTINGS_HELP}), "
                f"or {mpi.title}'s own {mpi.variable_prefixes[0]}*=",
                2,
            )
        variable = f"TRELLIS_{base.upper()}"
        value = native.absolute_if_file(value, variable)
        if at:
            layouts[int(count)] = value
        else:
            env[variable] = value
    if layouts or any(k.startswith("TRELLIS_") for k in env):
        library_only = False
    return Config(name, "mpi" if library_only else "trellis", env, layouts)


def config_error(err: TrellisError, name: str, command: str) -> TrellisError:
    """A rules or layout error of configuration `name`'s settings, said as that
    configuration's: "TRELLIS_RULES:1:11: ..." becomes "--config NAME rules:1:11: ..."
    (the settings reach the library as TRELLIS_RULES and TRELLIS_TOPOLOGY); the error of
    a file the settings name keeps the file's name."""
    message = str(err).removeprefix("trellis: ")
    for variable, setting in (("TRELLIS_RULES", "rules"), ("TRELLIS_TOPOLOGY", "topology")):
        if message.startswith(f"{variable}:"):
            rest = message.removeprefix(variable)
            return TrellisError(f"{command}: --config {name} {setting}{rest}", err.status)
    return TrellisError(f"{command}: --config {name}: {message}", err.status)


def check_rules(config: Config, command: str = "trellis bench") -> None:
    """Refuse, before anything runs, rules that do not parse."""
    rules = config.env.get("TRELLIS_RULES")
    if rules is None:
        return
    try:
        native.info("explain", "barrier", "--ranks", "1", "--rules", rules)
    except TrellisError as err:
        raise config_error(err, config.name, command) from None


def check_library(config: Config, mpi: mpi_impl.MPI, command: str = "trellis bench") -> None:
    """Refuse, before anything runs, a TRELLIS_LIB= that is not there (the loader would
    skip it and the runs measure the MPI library's own) or is built for another MPI."""
    lib = config.env.get(native.LIB_VARIABLE)
    if lib is None or config.kind != "trellis":
        return
    try:
        native.library(mpi.name, lib)
    except TrellisError as err:
        raise config_error(err, config.name, command) from None


def check_layouts(config: Config, counts: list[int]) -> None:
    """Refuse, before anything runs, a layout that does not parse or whose size is not
    the process count it would run with."""
    for ranks in counts:
        layout = config.env_for(ranks).get("TRELLIS_TOPOLOGY")
        if layout is None:
            continue
        try:
            described = json.loads(native.info("layout", "--json", "--topology", layout))["ranks"]
        except TrellisError as err:
            message = str(err).removeprefix("trellis: ").removeprefix("layout: ")
            raise TrellisError(f"trellis bench: --config {config.name}: {message}", 2) from None
        if described != ranks:
            setting = f"topology@{ranks}=" if ranks in config.layouts else "topology="
            raise TrellisError(
                f"trellis bench: --config {config.name}: {setting} describes {described} ranks, "
                f"but --np runs {ranks}: a layout has a fixed number of ranks; give one for each "
                f"process count (topology@{ranks}=LAYOUT) or run this --np alone",
                2,
            )


@dataclass
class Run:
    """One measuring run's parameters (everything but the configuration)."""

    colls: list[str]
    iters: int
    testbed_dir: Path | None
    map_by: str | None
    sync: str  # bench/latency --sync: p2p or mpi
    mpi: mpi_impl.MPI = field(default_factory=mpi_impl.OpenMPI)


def command(
    config: Config, ranks: int, nbytes: int, run: Run, csv_path: Path
) -> tuple[list[str], dict]:
    mpi = run.mpi
    program = native.built_file("bench/latency", mpi.name)
    mpirun = [mpi.launcher(), *mpi.oversubscribe([]), *mpi.share_cores([]), *mpi.ranks(ranks)]
    if run.testbed_dir is not None:
        mpirun += testbed.mpirun_options(run.testbed_dir, mpi, config.options)
    if run.map_by:
        mpirun += ["--map-by", run.map_by]
    mpirun += config.options
    env = mpi.launcher_env(as_root=True)
    settings = config.env_for(ranks)
    if config.kind == "trellis":  # TRELLIS_LIB= in a configuration: another build beside
        lib = native.library(mpi.name, settings.get(native.LIB_VARIABLE))
        mpirun += mpi.export("LD_PRELOAD", str(lib))
    for name, value in settings.items():
        env[name] = value
        mpirun += mpi.forward(name, value)
    args = [
        "--colls", ",".join(run.colls), "--min", str(nbytes), "--max", str(nbytes),
        "--iters", str(run.iters), "--min-iters", str(run.iters),
        "--check-every", "1", "--sync", run.sync, "--csv", str(csv_path),
    ]  # fmt: skip
    return [*mpirun, str(program), *args], env


def measure(config: Config, ranks: int, nbytes: int, run: Run) -> list[dict]:
    """Rows (collective, bytes, median_us, p10_us, p90_us) of one run; a wrong result
    or a failed run raises."""
    with tempfile.TemporaryDirectory(prefix="trellis-bench-") as tmp:
        out = Path(tmp) / "run.csv"
        argv, env = command(config, ranks, nbytes, run, out)
        proc = subprocess.run(argv, env={**os.environ, **env}, capture_output=True, text=True,
                              check=False, timeout=1800)  # fmt: skip
        if proc.returncode or not out.is_file():
            tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-15:])
            raise TrellisError(
                f"trellis bench: {config.name} on {ranks} ranks failed (exit {proc.returncode}):"
                f"\n{tail}",
                1,
            )
        with out.open() as f:
            rows = list(csv.DictReader(f))
    result = []
    for row in rows:
        if int(row["trellis_errors"]):
            raise TrellisError(
                f"trellis bench: WRONG RESULTS: {config.name} {row['collective']} "
                f"{row['bytes']} B on {ranks} ranks",
                1,
            )
        result.append({
                "collective": row["collective"], "bytes": int(row["bytes"]),
                "median_us": float(row["trellis_median_us"]),
                "p10_us": float(row["trellis_p10_us"]), "p90_us": float(row["trellis_p90_us"]),
                "hosts": int(row["hosts"]),
        })  # fmt: skip
    return result
