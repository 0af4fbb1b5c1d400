"""The measuring side of `trellis tune`: bench/tune_worker under mpirun with Trellis
preloaded, driven line by line through its rank 0's standard input and output.

    ready ranks=P hosts=H ranks_per_host=Q           (the worker, once started)
    rules ID TEXT            -> ok ID | error ID MESSAGE
    measure COLL SIZE ITERS ID...
                             -> per ID: time ID COLL SIZE BYTES ITERS MEDIAN P10 P90 MIN
                                        | wrong ID COLL SIZE | error ID MESSAGE
                                then: end
    quit

Each ID's block: its rules installed (trellis_set_rules), one checked call, ITERS timed
calls (each aligned by a barrier; a call's time the slowest rank's), one more checked
call. Times in microseconds."""

import os
import selectors
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from trellis import native
from trellis.native import TrellisError

START_TIMEOUT_S = 300.0


@dataclass(frozen=True)
class Block:
    cid: int
    status: str  # time, wrong or error
    nbytes: int = 0
    iters: int = 0
    median_us: float = 0.0
    p10_us: float = 0.0
    p90_us: float = 0.0
    min_us: float = 0.0
    message: str = ""


class Worker:
    """One running tune_worker job."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.command = command
        self.stderr = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 -- lives with the job
        try:
            self.proc = subprocess.Popen(command, env={**os.environ, **env}, text=True,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self.stderr, bufsize=1)  # fmt: skip
        except FileNotFoundError:
            raise TrellisError(f"trellis tune: {command[0]} not found: run scripts/setup.sh",
                               127) from None  # fmt: skip
        self.pending = b""  # read from rank 0, not yet a whole line
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout, selectors.EVENT_READ)
        words = self._line(START_TIMEOUT_S).split()
        if not words or words[0] != "ready":
            self._fail(f"expected 'ready', got {' '.join(words)!r}")
        fields = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        self.ranks = int(fields["ranks"])
        self.hosts = int(fields["hosts"])
        self.ranks_per_host = int(fields["ranks_per_host"])

    def _stderr_tail(self) -> str:
        self.stderr.seek(0)
        return "\n".join(self.stderr.read().splitlines()[-15:])

    def _fail(self, what: str) -> None:
        self.close(kill=True)
        raise TrellisError(
            f"trellis tune: the measuring job failed: {what}\n"
            f"command: {' '.join(self.command)}\n{self._stderr_tail()}",
            1,
        )

    def _line(self, timeout: float) -> str:
        """The next non-empty line from rank 0, read from the pipe unbuffered: a
        buffered reader could hold lines the selector no longer sees."""
        deadline = time.monotonic() + timeout
        while True:
            cut = self.pending.find(b"\n")
            if cut >= 0:
                line, self.pending = self.pending[:cut], self.pending[cut + 1 :]
                if line.strip():
                    return line.decode(errors="replace").strip()
                continue
            left = deadline - time.monotonic()
            if left <= 0:
                self._fail(f"no reply in {timeout:.0f} s")
            if self.sel.select(left):
                chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    self._fail(f"it ended (exit {self.proc.wait()})")
                self.pending += chunk

    def _send(self, line: str) -> None:
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            self._fail("it stopped reading")

    def define(self, cid: int, rules: str) -> str | None:
        """Give candidate cid its rules (one line); None, or the rules' error."""
        self._send(f"rules {cid} {rules}".rstrip())
        words = self._line(START_TIMEOUT_S).split(maxsplit=2)
        if words[:2] == ["ok", str(cid)]:
            return None
        if words[:2] == ["error", str(cid)]:
            return words[2] if len(words) > 2 else "rules refused"  # noqa: PLR2004
        self._fail(f"unexpected reply to rules: {' '.join(words)!r}")
        return None

    def measure(self, coll: str, size: int, iters: int, ids: list[int],
                timeout: float) -> list[Block]:  # fmt: skip
        self._send(f"measure {coll} {size} {iters} {' '.join(map(str, ids))}")
        out = []
        while True:
            words = self._line(timeout).split()
            if words == ["end"]:
                return out
            kind, cid = words[0], int(words[1]) if len(words) > 1 and words[1] != "-" else -1
            if kind == "time" and len(words) == 10:  # noqa: PLR2004
                out.append(Block(cid, "time", int(words[4]), int(words[5]),
                                 *map(float, words[6:10])))  # fmt: skip
            elif kind in ("wrong", "error"):
                out.append(Block(cid, kind, message=" ".join(words[2:])))
            else:
                self._fail(f"unexpected reply to measure: {' '.join(words)!r}")

    def close(self, *, kill: bool = False) -> None:
        if self.proc.poll() is None:
            if not kill:
                try:
                    self.proc.stdin.write("quit\n")
                    self.proc.stdin.close()
                    self.proc.wait(timeout=60)
                except (subprocess.TimeoutExpired, OSError):
                    kill = True
            if kill and self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        self.sel.close()


def worker_program(mpi: str) -> Path:
    return native.built_file("bench/tune_worker", mpi)
