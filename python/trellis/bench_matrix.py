"""What `trellis bench` runs: configurations, and one measuring run of one of them.

A configuration is the MPI library's own collectives (`ompi`: Open MPI's default
selection; `han`: its hierarchical component forced on) or Trellis with rules and a
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

from trellis import native, testbed
from trellis.native import TrellisError

HAN_OPTIONS = ["--mca", "coll_han_priority", "100"]
CONFIG_KEYS = frozenset({"rules", "topology"})
# A ';' starts the next setting only where a setting's name and '=' follow it; any other
# ';' is part of the value, so `rules=allreduce ring; bcast linear` holds two rules (a
# rule starts with a collective, a layout word is never one of these names).
NEXT_SETTING = re.compile(r";(?=\s*(?:rules|topology(?:@\d+)?|TRELLIS_\w+)=)")
SETTINGS_HELP = "rules=, topology=, topology@N=, TRELLIS_*="


@dataclass(frozen=True)
class Config:
    name: str
    kind: str  # "ompi", "han" or "trellis"
    env: dict[str, str] = field(default_factory=dict, hash=False)
    # topology@N=: the layout for runs on N ranks (a layout has a fixed size).
    layouts: dict[int, str] = field(default_factory=dict, hash=False)

    def env_for(self, ranks: int) -> dict[str, str]:
        """The TRELLIS_* variables of a run on `ranks` ranks."""
        env = dict(self.env)
        if ranks in self.layouts:
            env["TRELLIS_TOPOLOGY"] = self.layouts[ranks]
        return env


def parse_config(text: str) -> Config:
    """`ompi`, `han`, or `NAME:SETTING;SETTING...` with settings `rules=RULES`,
    `topology=LAYOUT` (every run), `topology@N=LAYOUT` (runs on N ranks), each a file or
    the text itself, and any other TRELLIS_* variable as `TRELLIS_NAME=value`."""
    if text in {"ompi", "han"}:
        return Config(text, text)
    name, sep, rest = text.partition(":")
    if not sep or not name or name in {"ompi", "han"}:
        raise TrellisError(
            f"trellis bench: --config {text!r}: expected ompi, han or NAME:rules=...;topology=...",
            2,
        )
    env: dict[str, str] = {}
    layouts: dict[int, str] = {}
    for item in NEXT_SETTING.split(rest):
        if not item.strip():
            continue
        key, eq, value = item.partition("=")
        key = key.strip()
        if eq and key.startswith("TRELLIS_"):  # any other setting of the library
            env[key] = value
            continue
        base, at, count = key.partition("@")
        per_count = at and base == "topology" and count.isdigit() and int(count) > 0
        if not eq or base not in CONFIG_KEYS or (at and not per_count):
            raise TrellisError(
                f"trellis bench: --config {name}: unknown setting {item!r} ({SETTINGS_HELP})", 2
            )
        variable = f"TRELLIS_{base.upper()}"
        value = native.absolute_if_file(value, variable)
        if at:
            layouts[int(count)] = value
        else:
            env[variable] = value
    return Config(name, "trellis", env, layouts)


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
        for name, value in config.env_for(ranks).items():
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
