"""`trellis calibrate`: measure the simulator's model where programs run, and write it as
a model file for `trellis simulate --model` (docs/simulate.md).

    trellis calibrate --testbed --out testbed.model          # the emulated cluster
    trellis calibrate --hostfile hosts --classes socket,host,world --out cluster.model

For each link class, bench/calibrate runs on two ranks that mpirun places on one socket
(`--map-by ppr:2:socket`), on two sockets of one host (`ppr:1:socket`), on one host
whatever the sockets (`ppr:2:node`, the testbed's "host": it has no sockets) or on two
hosts (`ppr:1:node`), and measures ping-pong over message sizes, the send and receive
overheads and trains of messages; rank 0 also times a reduction and a copy. The fit:

- alpha = the median ping-pong half round trip of messages up to 256 bytes; overhead =
  the mean of the send and receive overheads (at most alpha / 2); latency = alpha - 2
  overhead;
- per_byte = the time per byte of a train of the largest messages (a sustained stream:
  a token-bucket cap such as the testbed's lets a lone message through faster);
- eager = where the ping-pong of messages up to 256 KiB jumps, if it does (least squares
  on relative error, with and without a jump);
- gap = the time per message of a train of 1-byte messages;
- reduce and copy: per_step + bytes * per_byte, least squares on relative error.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from trellis import native, testbed
from trellis.native import TrellisError

PLACEMENT = {
    "socket": ["--map-by", "ppr:2:socket", "--bind-to", "core"],
    "host": ["--map-by", "ppr:2:node"],
    "sockets": ["--map-by", "ppr:1:socket", "--bind-to", "socket"],  # host, across sockets
    "world": ["--map-by", "ppr:1:node"],
}
CLASSES = ("socket", "host", "world")
# Sizes of the fit: alpha from messages up to SMALL bytes, the eager limit among those
# up to MEDIUM, the bandwidth from trains of at least LARGE.
SMALL, MEDIUM, LARGE = 256, 256 << 10, 64 << 10
# An eager limit is a jump of at least JUMP_SHARE alpha that cuts the fit's error to at
# most JUMP_GAIN of what it is without one.
JUMP_SHARE, JUMP_GAIN = 0.25, 0.7


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "calibrate",
        help="measure the simulator's model (latency, overhead, gap, bandwidth per link "
        "class; reduction and copy rates) and write a model file",
        description="Run bench/calibrate on pairs of ranks placed on one socket, one host "
        "and two hosts, fit the LogGP model of `trellis simulate` to the measurements and "
        "write it as a model file (docs/simulate.md). Options after -- go to mpirun "
        "(a hostfile, say).",
    )
    parser.add_argument("--testbed", nargs="?", const="", metavar="DIR",
                        help="measure the emulated cluster (trellis testbed up)")  # fmt: skip
    parser.add_argument(
        "--classes", default=None,
        help="link classes to measure: socket (two ranks on one socket), host (one host: "
        "on two sockets where --host-across-sockets, else wherever mpirun puts them), world "
        "(two hosts); default host,world (the testbed has no sockets), or with "
        "--host-across-sockets socket,host,world",
    )  # fmt: skip
    parser.add_argument("--host-across-sockets", action="store_true",
                        help="measure host between two sockets (ppr:1:socket)")  # fmt: skip
    parser.add_argument("--max", default="4M", help="largest message (4M)")
    parser.add_argument("--seconds", type=float, default=0.5,
                        help="about how long each size is repeated (0.5)")  # fmt: skip
    parser.add_argument("--dtype", choices=("int", "double"), default="int",
                        help="the reduction's element type (int: trellis bench's)")  # fmt: skip
    parser.add_argument("--out", type=Path, default=Path("calibrated.model"), metavar="FILE",
                        help="the model file to write (calibrated.model)")  # fmt: skip
    parser.add_argument("--raw", type=Path, metavar="FILE",
                        help="also keep the measurements (JSON lines per class)")  # fmt: skip
    parser.add_argument("--from-raw", type=Path, metavar="FILE",
                        help="fit measurements kept with --raw instead of measuring")  # fmt: skip
    parser.add_argument("mpirun_args", nargs="*", help="options for mpirun, after --")
    parser.set_defaults(func=run)


# ---- fitting -------------------------------------------------------------------------


def fit_line(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """intercept, slope >= 0 minimizing the relative error."""
    w = 1.0 / np.maximum(y, 1e-9)
    a = np.stack([w, w * x], axis=1)
    (c0, c1), *_ = np.linalg.lstsq(a, np.ones_like(y), rcond=None)
    if c1 < 0:  # flat: the mean, relatively weighted
        return float(np.sum(w * w * y) / np.sum(w * w)), 0.0
    if c0 < 0:  # through the origin
        return 0.0, float(np.sum(w * w * x * y) / np.sum(w * w * x * x))
    return float(c0), float(c1)


def eager_limit(points: list[tuple[int, float]]) -> tuple[float | None, float]:
    """Where the ping-pong jumps (an eager limit, beyond which messages wait for their
    receive: Open MPI's shared memory at 4 KiB), and by how much: a fit of alpha + s G
    (+ J above the limit) that explains the points much better with the jump than
    without it; (None, 0) when none does."""
    x = np.array([p[0] for p in points], dtype=float)
    y = np.array([p[1] for p in points], dtype=float)
    w = 1.0 / y

    def error(limit: float | None) -> tuple[float, float]:
        cols = [w, w * x]
        if limit is not None:
            cols.append(w * (x > limit))
        coef, *_ = np.linalg.lstsq(np.stack(cols, axis=1), np.ones_like(y), rcond=None)
        if min(coef) < 0:
            return float("inf"), 0.0
        model = coef[0] + coef[1] * x + (coef[2] * (x > limit) if limit is not None else 0)
        return float(np.sqrt(np.mean(((model - y) * w) ** 2))), float(coef[-1])

    plain, _ = error(None)
    best = (None, plain, 0.0)
    for limit in sorted(set(x))[:-1]:
        err, jump = error(limit)
        if err < best[1]:
            best = (limit, err, jump)
    limit, err, jump = best
    alpha = float(np.median(y[x <= SMALL]))
    if limit is None or err > JUMP_GAIN * plain or jump < JUMP_SHARE * alpha:
        return None, 0.0
    return float(limit), jump


@dataclass
class LinkFit:
    latency: float
    overhead: float
    gap: float
    per_byte: float
    eager: float | None
    notes: list[str]


def fit_link(records: list[dict]) -> LinkFit:
    ping = sorted((r["bytes"], r["ns"]) for r in records if r["what"] == "pingpong"
                  and r["bytes"] > 0)  # fmt: skip
    (over,) = [r for r in records if r["what"] == "overhead"]
    trains = sorted((r["bytes"], r["ns"]) for r in records if r["what"] == "train")
    alpha = float(np.median([t for s, t in ping if s <= SMALL]))
    overhead = min((over["send_ns"] + over["recv_ns"]) / 2, alpha / 2)
    gap = trains[0][1] if trains else 0.0
    eager, jump = eager_limit([(s, t) for s, t in ping if s <= MEDIUM])
    # A train can time below its lone message on a loaded machine ((all - one) / (n - 1)
    # then goes negative): such a train says nothing of the bandwidth.
    big = [(s, t) for s, t in trains if s >= LARGE and t > 0]
    pp_alpha, pp_slope = fit_line(np.array([s for s, _ in ping], float),
                                  np.array([t for _, t in ping], float))  # fmt: skip
    # Bandwidth as a stream of messages sustains it (a train of the largest size): in a
    # collective many large messages are on a link at once, and a token-bucket cap (the
    # testbed's) lets a lone ping-pong message through at its burst rate.
    per_byte = big[-1][1] / big[-1][0] if big else max(pp_slope, 0.0)
    notes = [
        "ping-pong, ns: " + ", ".join(f"{s} B {t:.0f}" for s, t in ping),
        f"  alpha (median up to {SMALL} B) {alpha:.0f} ns; a line through all: alpha "
        f"{pp_alpha:.0f} ns, per_byte {pp_slope:.4g}"
        + (f"; a jump of {jump:.0f} ns above {eager:.0f} B" if eager else "; no eager limit"),
        f"overheads: send {over['send_ns']:.0f} ns, receive {over['recv_ns']:.0f} ns",
        "trains, ns per message: " + ", ".join(f"{s} B {t:.0f}" for s, t in trains),
    ]
    if big:
        rates = ", ".join(f"{s} B {t / s:.4g}" for s, t in big)
        notes.append(f"  per_byte of the largest: {rates}")
    return LinkFit(max(0.0, alpha - 2 * overhead), overhead, gap, per_byte, eager, notes)


def fit_local(records: list[dict], what: str) -> tuple[float, float]:
    pts = [(r["bytes"], r["ns"]) for r in records if r["what"] == what]
    if not pts:
        return 0.0, 0.0
    return fit_line(np.array([p[0] for p in pts], float), np.array([p[1] for p in pts], float))


def model_text(links: dict[str, LinkFit], measured: dict[str, str], local: list[dict],
               header: list[str]) -> str:  # fmt: skip
    lines = [f"# {h}" for h in header]
    for c in CLASSES:
        f = links[c]
        lines.append(f"# {c}: {measured[c]}")
        lines += [f"#   {n}" for n in f.notes] if measured[c].startswith("measured") else []
        eager = f" eager={int(f.eager)}" if f.eager is not None else ""
        lines.append(f"{c:<6} latency={f.latency:.6g} overhead={f.overhead:.6g} "
                     f"gap={f.gap:.6g} per_byte={f.per_byte:.6g}{eager}")  # fmt: skip
    for what in ("reduce", "copy"):
        step, per_byte = fit_local(local, what)
        pts = ", ".join(f"{r['bytes']} B {r['ns']:.0f}" for r in local if r["what"] == what)
        lines.append(f"# {what}: ns per call {pts}")
        lines.append(f"{what:<6} per_step={step:.6g} per_byte={per_byte:.6g}")
    return "\n".join(lines) + "\n"


# ---- measuring -----------------------------------------------------------------------


# What Open MPI's mpirun says when --map-by ppr:1:node finds one node only: the job has
# one host, and nothing to measure across hosts.
ONE_HOST = "more processes than the ppr"


class MeasureError(TrellisError):
    """One class's measurement failed; one_host: because the job has one host."""

    def __init__(self, message: str, *, one_host: bool = False) -> None:
        super().__init__(message, 1)
        self.one_host = one_host


def measure(cls: str, args: argparse.Namespace, testbed_dir: Path | None) -> list[dict]:
    program = native.built_file("bench/calibrate")
    # As trellis bench runs its programs: ranks that share cores with the rest (the
    # testbed's kernel network work above all) give the core away while they wait.
    cmd = ["mpirun", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1", "-np", "2"]
    placement = "sockets" if cls == "host" and args.host_across_sockets else cls
    placed = [*PLACEMENT[placement], *args.mpirun_args]
    if testbed_dir is not None:
        cmd += testbed.mpirun_options(testbed_dir, None, placed)
    cmd += [*placed, str(program), "--max", args.max, "--seconds", str(args.seconds),
            "--dtype", args.dtype]  # fmt: skip
    env = {**os.environ}
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    sys.stderr.write(f"trellis calibrate: {cls}: {' '.join(cmd)}\n")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False,
                          timeout=3600)  # fmt: skip
    if proc.returncode:
        output = proc.stdout + proc.stderr
        tail = "\n".join(output.splitlines()[-15:])
        raise MeasureError(f"trellis calibrate: {cls}: mpirun failed ({proc.returncode}):\n{tail}",
                           one_host=ONE_HOST in " ".join(output.split()))  # fmt: skip
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    for r in records:
        r["class"] = cls
    (pair,) = [r for r in records if r["what"] == "pair"]
    if pair["same_host"] != (cls != "world"):
        raise MeasureError(
            f"trellis calibrate: {cls}: mpirun placed the two ranks on {pair['hosts']}; "
            "give mpirun options (after --) that place them right"
        )  # fmt: skip
    return records


Measured = tuple[list[dict], dict[str, str], MeasureError | None]


def measure_all(classes: list[str], args: argparse.Namespace,
                testbed_dir: Path | None) -> Measured:  # fmt: skip
    """Every class's records, in order, up to the first failure; the classes passed over
    for the job having one host (by default, world: said, and not a failure), with why;
    the failure, if one came."""
    records: list[dict] = []
    skipped: dict[str, str] = {}
    for c in classes:
        try:
            records += measure(c, args, testbed_dir)
        except MeasureError as err:
            if not (err.one_host and c == "world" and args.classes is None):
                return records, skipped, err
            skipped[c] = "not measured (the job has one host)"
            sys.stderr.write(
                "trellis calibrate: world: mpirun found one host (it cannot place one rank on "
                "each of two): calibrating what this host has; world takes the nearest class's "
                "figures. To measure it, give mpirun two hosts after -- (--hostfile FILE), or "
                "use --testbed\n")  # fmt: skip
    return records, skipped, None


def run(args: argparse.Namespace) -> str:
    skipped: dict[str, str] = {}
    failure = None
    if args.from_raw:
        records = [json.loads(line) for line in args.from_raw.read_text().splitlines() if line]
        classes = list(dict.fromkeys(r["class"] for r in records))
        origin = f"fitted from {args.from_raw}"
    else:
        default = "socket,host,world" if args.host_across_sockets else "host,world"
        classes = (args.classes or default).split(",")
        unknown = [c for c in classes if c not in CLASSES]
        if unknown or not classes:
            raise TrellisError(f"trellis calibrate: --classes: unknown {unknown}; "
                               f"choose among {', '.join(CLASSES)}", 2)  # fmt: skip
        testbed_dir = None if args.testbed is None else Path(args.testbed or testbed.DEFAULT_DIR)
        records, skipped, failure = measure_all(classes, args, testbed_dir)
        # What was measured before a failure is kept: the model of those classes.
        classes = list(dict.fromkeys(r["class"] for r in records))
        if not classes:
            raise failure or TrellisError("trellis calibrate: nothing measured")
        where = f"the testbed {testbed_dir}" if testbed_dir is not None else "mpirun"
        origin = (f"measured on {where}, {time.strftime('%Y-%m-%d %H:%M')}, "
                  f"trellis calibrate {' '.join(sys.argv[2:])}")  # fmt: skip
        if args.raw:
            args.raw.write_text("".join(json.dumps(r) + "\n" for r in records))
    links: dict[str, LinkFit] = {}
    measured: dict[str, str] = {}
    for c in classes:
        links[c] = fit_link([r for r in records if r["class"] == c and r["what"] != "pair"])
        hosts = next(r["hosts"] for r in records if r["class"] == c and r["what"] == "pair")
        measured[c] = f"measured between {hosts[0]} and {hosts[1]}"
    nearest = {"socket": ("host", "world"), "host": ("socket", "world"),
               "world": ("host", "socket")}  # fmt: skip
    for c in CLASSES:  # a class not measured takes its nearest neighbour's figures
        if c not in links:
            near = next(x for x in nearest[c] if x in links)
            links[c] = links[near]
            measured[c] = f"{skipped.get(c, 'not measured')}: {near}'s figures"
    local = [r for r in records if r["what"] in ("reduce", "copy") and r["class"] == classes[0]]
    header = ["Trellis model for `trellis simulate` (docs/simulate.md), by trellis calibrate.",
              origin, "Times in ns, per_byte in ns per byte, eager in bytes."]  # fmt: skip
    text = model_text(links, measured, local, header)
    args.out.write_text(text)
    if failure is not None:
        raise TrellisError(f"{failure}\ntrellis calibrate: wrote {args.out} from the classes "
                           f"measured before the failure ({', '.join(classes)}); the others take "
                           "their figures", 1)  # fmt: skip
    return text + f"wrote {args.out}\n"
