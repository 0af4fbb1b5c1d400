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
import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from trellis import mpi_impl, native, testbed
from trellis.native import TrellisError

CONFIG_KEYS = frozenset({"rules", "topology"})


@dataclass(frozen=True)
class Config:
    name: str
    kind: str  # "mpi" (the MPI library's own collectives) or "trellis"
    env: dict[str, str] = field(default_factory=dict, hash=False)
    options: tuple[str, ...] = ()  # the launcher's, for a baseline such as han


def parse_config(text: str, mpi: mpi_impl.MPI | None = None) -> Config:
    """One of the MPI's baselines (`ompi`, `han`; `mpich`), or `NAME:SETTING;...` with
    `rules=RULES`, `topology=LAYOUT` (a file or text each), any other TRELLIS_* variable
    as `TRELLIS_NAME=value`, and the MPI library's own variables (MPIR_CVAR_*,
    OMPI_MCA_*): Trellis, unless only the MPI library's variables are set."""
    mpi = mpi or mpi_impl.OpenMPI()
    baselines = ", ".join(mpi.baselines)
    if text in mpi.baselines:
        return Config(text, "mpi", options=mpi.baselines[text])
    name, sep, rest = text.partition(":")
    if not sep or not name or name in mpi.baselines:
        raise TrellisError(
            f"trellis bench: --config {text!r}: expected {baselines} or "
            "NAME:rules=...;topology=...",
            2,
        )
    env = {}
    trellis = True
    for item in filter(None, rest.split(";")):
        key, eq, value = item.partition("=")
        key = key.strip()
        if eq and key.startswith("TRELLIS_"):  # any other setting of the library
            env[key] = value
            continue
        if eq and mpi.is_library_variable(key):  # the MPI library's own
            env[key] = value
            trellis = False
            continue
        if not eq or key not in CONFIG_KEYS:
            raise TrellisError(
                f"trellis bench: --config {name}: unknown setting {item!r} (rules=, topology=, "
                f"TRELLIS_*=), or {mpi.title}'s own {mpi.variable_prefixes[0]}*=",
                2,
            )
        path = Path(value)
        env[f"TRELLIS_{key.upper()}"] = str(path.resolve()) if path.is_file() else value
    if any(k.startswith("TRELLIS_") for k in env):
        trellis = True
    return Config(name, "trellis" if trellis else "mpi", env)


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
        mpirun += testbed.mpirun_options(run.testbed_dir, mpi)
    if run.map_by:
        mpirun += ["--map-by", run.map_by]
    mpirun += config.options
    env = mpi.launcher_env(as_root=True)
    if config.kind == "trellis":
        mpirun += mpi.export("LD_PRELOAD", str(native.library(mpi.name)))
    for name, value in config.env.items():
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
