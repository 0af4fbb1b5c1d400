"""The testbed's `--delay` where the kernel has no netem (docs/testbed.md): the frames the
bridge forwards from one host to another go to a netfilter queue (an iptables NFQUEUE
rule in the root namespace's FORWARD chain, which bridged frames pass through with
`bridge-nf-call-iptables` on), and trellis-delayq (testbed/delayq.c) holds each there
for the delay, then lets it go. A message between two hosts is delayed once, as with
netem on the link into the receiving host; what mpirun, in the root namespace, sends a
host is not forwarded by the bridge and not delayed.

Each thing `start` makes is recorded in the state as it is made (the sysctl's old value,
the process, the rule), so that teardown undoes exactly that."""

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from trellis import native
from trellis.native import TrellisError

QUEUE = 7707  # the netfilter queue's number: one testbed at a time, as the bridge's name
PROGRAM = "testbed/trellis-delayq"
BRIDGE_NF = Path("/proc/sys/net/bridge/bridge-nf-call-iptables")
START_TIMEOUT_S = 5.0


def rule(bridge: str) -> list[str]:
    """The FORWARD rule's spec: frames between two ports of the bridge, to the queue, and
    past it (--queue-bypass) while no process holds the queue."""
    return ["FORWARD", "-i", bridge, "-o", bridge, "-j", "NFQUEUE", "--queue-num", str(QUEUE),
            "--queue-bypass"]  # fmt: skip


def program() -> Path:
    return native.built_file(PROGRAM)


def missing() -> str | None:
    """Why this way cannot delay here, or None where it can: iptables, the program, the
    bridge's netfilter hook, and the NFQUEUE target tried in a namespace of its own."""
    if not shutil.which("iptables"):
        return "iptables is missing (Debian: apt-get install iptables)"
    try:
        program()
    except TrellisError as err:
        return str(err)
    if not BRIDGE_NF.exists():
        return f"no {BRIDGE_NF} (the kernel's bridge netfilter, CONFIG_BRIDGE_NETFILTER)"
    probe = subprocess.run(["unshare", "--net", "iptables", "-w", "-A", "OUTPUT", "-j", "NFQUEUE",
                            "--queue-num", str(QUEUE), "--queue-bypass"],
                           capture_output=True, text=True, check=False)  # fmt: skip
    if probe.returncode:
        return f"iptables' NFQUEUE target: {probe.stderr.strip() or probe.returncode}"
    return None


def running(pid: int) -> bool:
    """Whether pid is a trellis-delayq still running (not a later process with its pid)."""
    try:
        return Path(PROGRAM).name in Path(f"/proc/{pid}/cmdline").read_bytes().decode(
            errors="replace")  # fmt: skip
    except OSError:
        return False


def start(directory: Path, state: dict) -> None:
    """The sysctl on, the queue's process started and seen bound, then the rule."""
    from trellis import testbed  # noqa: PLC0415 -- it imports this module

    save, sh = testbed.save_state, testbed.sh

    record: dict = {"queue": QUEUE}
    state["delayq"] = record
    record["bridge_nf_was"] = BRIDGE_NF.read_text().strip()
    save(directory, state)
    BRIDGE_NF.write_text("1\n")
    log = directory / "delayq.log"
    with log.open("w") as out:
        proc = subprocess.Popen([str(program()), str(QUEUE), str(state["delay_us"])], stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
    record["pid"] = proc.pid
    save(directory, state)
    deadline = time.monotonic() + START_TIMEOUT_S
    while "queue" not in log.read_text() and proc.poll() is None:
        if time.monotonic() > deadline:
            raise TrellisError(f"trellis testbed: trellis-delayq did not start in "
                               f"{START_TIMEOUT_S:.0f} s ({log})", 1)  # fmt: skip
        time.sleep(0.02)
    if proc.poll() is not None:
        raise TrellisError(f"trellis testbed: trellis-delayq failed: {log.read_text().strip()}", 1)
    spec = rule(state["bridge"])
    sh("iptables", "-w", "-I", spec[0], "1", *spec[1:])
    record["rule"] = spec
    save(directory, state)


def stop(state: dict) -> list[str]:
    """Undo what the record says was made, rule first; what was removed."""
    record = state.get("delayq")
    if not record:
        return []
    removed = []
    if record.get("rule"):
        subprocess.run(["iptables", "-w", "-D", *record["rule"]], capture_output=True,
                       check=False)  # fmt: skip
        removed.append(f"iptables rule to queue {record['queue']}")
    pid = record.get("pid")
    if pid and running(pid):
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + START_TIMEOUT_S
        while running(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        if running(pid):
            os.kill(pid, signal.SIGKILL)
        removed.append(f"trellis-delayq (pid {pid})")
    if "bridge_nf_was" in record:
        BRIDGE_NF.write_text(record["bridge_nf_was"] + "\n")
    return removed


def rule_present(spec: list[str]) -> bool:
    return subprocess.run(["iptables", "-w", "-C", *spec], capture_output=True,
                          check=False).returncode == 0  # fmt: skip


def alive(state: dict) -> bool:
    record = state.get("delayq")
    if not record:
        return True
    return rule_present(record.get("rule", ["-"])) and running(record.get("pid", 0))


def status_lines(state: dict) -> list[str]:
    record = state.get("delayq")
    if not record:
        return []
    pid = record.get("pid", 0)
    present = rule_present(record.get("rule", ["-"]))
    queue = record["queue"]
    return [f"  trellis-delayq (pid {pid}) {'running' if running(pid) else 'MISSING'}",
            f"  iptables rule to queue {queue} {'present' if present else 'MISSING'}"]  # fmt: skip
