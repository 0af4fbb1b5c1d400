"""bench/tune_worker under mpirun with libtrellis.so preloaded: a script of commands on
its standard input (through the launcher to rank 0, as `trellis tune` sends them), its
replies checked line by line against the protocol (bench/tune_worker.c).

    python3 tune_worker_check.py --np N --lib build/libtrellis.so --worker TUNE_WORKER
                                 [--mpi openmpi|mpich] [--eof]

The script defines candidates (Trellis' algorithms, the MPI library's own `mpi`, the
built-in rules, an invalid text), measures allreduce, bcast and alltoall at 4 B and
64 KiB with two candidates each, sends malformed commands, a candidate whose checked
calls one rank spoils (--spoil), and ends with `quit` (or, --eof, by closing the
input). Verbose mode (TRELLIS_VERBOSE=1) shows on stderr that each candidate's rules
chose the calls. Then the worker once more without Trellis: it must refuse to start.
Prints "tune_worker_check: N checks, F failed"; exits 1 on any failure."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from trellis import mpi_impl

NUM = r"(\d+\.\d{3})"
SPOILED = 7


def script(eof: bool) -> tuple[str, list[str]]:
    """The commands, and for each reply expected in order a regular expression."""
    cmds: list[str] = []
    want: list[str] = []

    def send(cmd: str, *replies: str) -> None:
        cmds.append(cmd)
        want.extend(replies)

    send("rules 0 allreduce ring; bcast binomial; alltoall pairwise", "ok 0")
    send("rules 1 allreduce mpi; bcast mpi; alltoall mpi", "ok 1")
    send(
        "rules 2 allreduce ringg",
        r"error 2 trellis_set_rules:1:11: unknown algorithm 'ringg' for allreduce \(.*\)",
    )
    send("rules 3", "ok 3")  # empty: the built-in rules
    send("rules 4 allreduce recursive_doubling", "ok 4")
    send(f"rules {SPOILED} allreduce ring", f"ok {SPOILED}")
    for coll in ("allreduce", "bcast", "alltoall"):
        for size, nbytes, iters in (("4", 4, 20), ("64K", 65536, 5)):
            send(
                f"measure {coll} {size} {iters} 0 1",
                *(
                    rf"time {i} {coll} {nbytes} {nbytes} {iters} {NUM} {NUM} {NUM} {NUM}"
                    for i in (0, 1)
                ),
                "end",
            )
    # Per candidate: an invalid text, none stored, the built-in rules, a spoiled one.
    send(
        f"measure allreduce 65536 3 2 9 3 {SPOILED} 4",
        r"error 2 trellis_set_rules:1:11: unknown algorithm 'ringg' .*",
        r"error 9 no rules stored for candidate 9 .*",
        rf"time 3 allreduce 65536 65536 3 {NUM} {NUM} {NUM} {NUM}",
        f"wrong {SPOILED} allreduce 65536",
        rf"time 4 allreduce 65536 65536 3 {NUM} {NUM} {NUM} {NUM}",
        "end",
    )
    send("measure barrier 0 4 3", rf"time 3 barrier 0 0 4 {NUM} {NUM} {NUM} {NUM}", "end")
    # Malformed: one `error -` line each, and the worker goes on.
    for bad in (
        "measure iallreduce 4 5 0",
        "measure allreduce 4 0 0",
        "measure allreduce 4 1000001 0",
        "measure allreduce four 5 0",
        "measure allreduce 4 5",
        "measure allreduce 4 5 65536",
        "measure",
        "rules 65536 allreduce ring",
        "rules x allreduce ring",
        "rules",
        "bogus",
        "",
    ):
        send(bad, r"error - \S.*")
    send("measure scan 1K 2 0", rf"time 0 scan 1024 1024 2 {NUM} {NUM} {NUM} {NUM}", "end")
    # IDs past 4095: an exhaustive search gives one job some 22,000 candidates.
    send("rules 40000 allreduce ring", "ok 40000")
    send("measure allreduce 4 2 40000", rf"time 40000 allreduce 4 4 2 {NUM} {NUM} {NUM} {NUM}",
         "end")  # fmt: skip
    if not eof:
        cmds.append("quit")
    return "".join(c + "\n" for c in cmds), want


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--worker", required=True)
    ap.add_argument("--mpi", default=os.environ.get("TRELLIS_MPI", "openmpi"))
    ap.add_argument("--eof", action="store_true", help="end by closing the input, not quit")
    args = ap.parse_args()

    checks = failures = 0

    def check(ok: bool, what: str) -> None:
        nonlocal checks, failures
        checks += 1
        if not ok:
            failures += 1
            sys.stderr.write(f"FAILED: {what}\n")

    mpi = mpi_impl.get(args.mpi)
    env = {**os.environ, **mpi.launcher_env(as_root=os.geteuid() == 0)}
    text, want = script(args.eof)
    launcher = mpi_impl.launch_command(mpi, args.np, args.lib, ["TRELLIS_VERBOSE=1"],
                                       share_cores=True)  # fmt: skip
    cmd = [*launcher, args.worker, "--spoil", str(SPOILED)]
    proc = subprocess.run(cmd, input=text, capture_output=True, text=True, env=env, timeout=240,
                          check=False)  # fmt: skip
    lines = proc.stdout.splitlines()
    check(proc.returncode == 0, f"{' '.join(cmd)} exited {proc.returncode}")
    check(bool(lines) and re.fullmatch(rf"ready ranks={args.np} hosts=1 "
                                       rf"ranks_per_host={args.np}", lines[0]) is not None,
          f"first line {lines[:1]}")  # fmt: skip
    got = lines[1:]
    check(len(got) == len(want), f"{len(got)} replies after ready, wanted {len(want)}")
    for i, (line, pattern) in enumerate(zip(got, want, strict=False)):
        check(re.fullmatch(pattern, line) is not None, f"reply {i + 1}: {line!r} !~ {pattern!r}")
        m = re.fullmatch(rf"time \d+ \S+ \d+ \d+ \d+ {NUM} {NUM} {NUM} {NUM}", line)
        if m:
            median, p10, p90, low = map(float, m.groups())
            check(0 < low <= p10 <= median <= p90, f"reply {i + 1}: statistics out of order")
    # Each candidate chose the calls: verbose lines on rank 0's stderr.
    n = args.np
    for seen in (
        rf"allreduce ranks={n} bytes=4: ring \(trellis_set_rules:1: allreduce ring",
        rf"allreduce ranks={n} bytes=4: mpi \(trellis_set_rules:1: allreduce mpi",
        rf"bcast ranks={n} bytes=65536: binomial \(trellis_set_rules:2: bcast",
        rf"alltoall ranks={n} bytes=65536: pairwise \(trellis_set_rules:3: alltoall",
        rf"alltoall ranks={n} bytes=65536: mpi \(trellis_set_rules:3: alltoall mpi",
        # The library's rules (a tuned one where the layout was tuned: 2 ranks).
        rf"allreduce ranks={n} bytes=65536: \S+ \((?:built-in|tuned):",
        rf"allreduce ranks={n} bytes=65536: recursive_doubling \(trellis_set_rules:1:",
        rf"candidate {SPOILED}: warm-up allreduce: spoiled",
    ):
        check(re.search(seen, proc.stderr) is not None, f"stderr never said {seen!r}")
    if failures:
        sys.stderr.write(f"--- stdout\n{proc.stdout}--- stderr\n{proc.stderr}")

    # Without Trellis: a clear refusal, exit 2.
    bare = [*mpi_impl.launch_command(mpi, args.np, None, [], share_cores=True), args.worker]
    proc = subprocess.run(bare, input="quit\n", capture_output=True, text=True, env=env,
                          timeout=120, check=False)  # fmt: skip
    check(proc.returncode != 0 and "Trellis is not loaded" in proc.stderr
          and "ready" not in proc.stdout,
          f"without Trellis: exit {proc.returncode}, stdout {proc.stdout!r}, "
          f"stderr {proc.stderr[-500:]!r}")  # fmt: skip

    sys.stdout.write(f"tune_worker_check ranks={args.np}: {checks} checks, {failures} failed\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
