"""What `trellis bench` runs: configurations, and one measuring run of one of them.

A configuration is the MPI library's own collectives (`ompi`: Open MPI's default
selection; `han`: its hierarchical component forced on) or Trellis with rules and a
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

from trellis import native, testbed
from trellis.native import TrellisError

HAN_OPTIONS = ["--mca", "coll_han_priority", "100"]
CONFIG_KEYS = frozenset({"rules", "topology"})


@dataclass(frozen=True)
class Config:
    name: str
    kind: str  # "ompi", "han" or "trellis"
    env: dict[str, str] = field(default_factory=dict, hash=False)


def parse_config(text: str) -> Config:
    """`ompi`, `han`, or `NAME:rules=RULES;topology=LAYOUT` (a file or text each), with
    any other TRELLIS_* variable as `TRELLIS_NAME=value`."""
    if text in {"ompi", "han"}:
        return Config(text, text)
    name, sep, rest = text.partition(":")
    if not sep or not name or name in {"ompi", "han"}:
        raise TrellisError(
            f"trellis bench: --config {text!r}: expected ompi, han or NAME:rules=...;topology=...",
            2,
        )
    env = {}
    for item in filter(None, rest.split(";")):
        key, eq, value = item.partition("=")
        key = key.strip()
        if eq and key.startswith("TRELLIS_"):  # any other setting of the library
            env[key] = value
            continue
        if not eq or key not in CONFIG_KEYS:
            raise TrellisError(
                f"trellis bench: --config {name}: unknown setting {item!r} (rules=, topology=, "
                "TRELLIS_*=)",
                2,
            )
        path = Path(value)
        env[f"TRELLIS_{key.upper()}"] = str(path.resolve()) if path.is_file() else value
    return Config(name, "trellis", env)


@dataclass
class Run:
    """One measuring run's parameters (everything but the configuration)."""

    colls: list[str]
    iters: int
    testbed_dir: Path | None
    map_by: str | None
    sync: str  # bench/latency --sync: p2p or mpi


def command(
    config: Config, ranks: int, nbytes: int, run: Run, csv_path: Path
) -> tuple[list[str], dict]:
    program = native.built_file("bench/latency")
    mpirun = ["mpirun", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1", "-np", str(ranks)]
    if run.testbed_dir is not None:
        mpirun += testbed.mpirun_options(run.testbed_dir)
    if run.map_by:
        mpirun += ["--map-by", run.map_by]
    if config.kind == "han":
        mpirun += HAN_OPTIONS
    env = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    if config.kind == "trellis":
        mpirun += ["-x", f"LD_PRELOAD={native.library()}"]
        for name, value in config.env.items():
            env[name] = value
            mpirun += ["-x", name]
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
