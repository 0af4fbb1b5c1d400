"""The emulated cluster (docs/testbed.md): N hosts on this machine, each a network
namespace `trellis-hI` with its own hostname (a persistent UTS namespace), joined by veth
pairs to the bridge `trellis-br0` on a private subnet, optionally capped with tbf; the MPI
reaches them through testbed/agent.sh (Open MPI: --mca plm_rsh_agent; MPICH: -launcher
ssh -launcher-exec; mpi_impl.py).

Everything `up` creates is recorded in DIR/state.json as it is created, so `down` (and
`up` itself after a failure) removes exactly that and nothing else."""

import ipaddress
import json
import os
import shutil
import subprocess
from pathlib import Path

from trellis import mpi_impl
from trellis.native import TrellisError, repo_root

DEFAULT_DIR = Path("/run/trellis-testbed")
DEFAULT_SUBNET = "10.77.0.0/24"
BRIDGE = "trellis-br0"
# Tests make `up` fail after this many hosts, to check the clean-up. (Not TRELLIS_*:
# `trellis run` forwards those to every rank.)
FAIL_AFTER_VARIABLE = "TESTBED_FAIL_AFTER"


def namespace(i: int) -> str:
    return f"trellis-h{i}"


def sh(*cmd: str) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode:
        raise TrellisError(f"trellis testbed: {' '.join(cmd)} failed: {proc.stderr.strip()}", 1)


def state_file(directory: Path) -> Path:
    return directory / "state.json"


def load_state(directory: Path) -> dict | None:
    path = state_file(directory)
    return json.loads(path.read_text()) if path.is_file() else None


def save_state(directory: Path, state: dict) -> None:
    state_file(directory).write_text(json.dumps(state, indent=1) + "\n")


def check_can_run(*, need_tc: bool = False) -> None:
    if os.geteuid() != 0:
        raise TrellisError(
            "trellis testbed: needs root (it creates network namespaces, links and a bridge); "
            "run it as root",
            2,
        )
    for tool in ("ip", "unshare", "nsenter", *(["tc"] if need_tc else [])):
        if not shutil.which(tool):
            raise TrellisError(f"trellis testbed: {tool} is missing (iproute2, util-linux)", 2)
    probe = subprocess.run(["unshare", "--net", "--uts", "true"], capture_output=True, text=True,
                           check=False)  # fmt: skip
    if probe.returncode:
        raise TrellisError(
            "trellis testbed: this machine does not permit network and UTS namespaces "
            f"(unshare --net --uts: {probe.stderr.strip()})",
            2,
        )


def addresses(subnet: str, hosts: int) -> tuple[str, list[str], int]:
    """The bridge's address (the last usable), each host's (from the first), prefix."""
    try:
        net = ipaddress.ip_network(subnet)
    except ValueError as err:
        raise TrellisError(f"trellis testbed: --subnet {subnet}: {err}", 2) from None
    usable = list(net.hosts())
    if len(usable) < hosts + 1:
        raise TrellisError(f"trellis testbed: --subnet {subnet} is too small for {hosts} hosts", 2)
    return str(usable[-1]), [str(a) for a in usable[:hosts]], net.prefixlen


def alive(state: dict) -> bool:
    """Whether everything the state records still exists."""
    names = set(subprocess.run(["ip", "netns", "list"], capture_output=True, text=True,
                               check=False).stdout.split())  # fmt: skip
    bridge = subprocess.run(["ip", "link", "show", BRIDGE], capture_output=True, check=False)
    return (bridge.returncode == 0 and all(ns in names for ns in state["namespaces"])
            and all(Path(u).exists() for u in state["uts"]))  # fmt: skip


def tbf_burst(rate: str) -> str:
    """About 5 ms of traffic at the rate, at least 16 KiB: a fixed burst would let a
    slow link run far over its cap."""
    units = {"kbit": 1e3, "mbit": 1e6, "gbit": 1e9, "bit": 1.0}
    for unit, scale in units.items():
        if rate.endswith(unit) and rate[: -len(unit)].replace(".", "", 1).isdigit():
            bits_per_s = float(rate[: -len(unit)]) * scale
            return f"{max(16 * 1024, int(bits_per_s / 8 * 0.005))}b"
    raise TrellisError(
        f"trellis testbed: --bandwidth {rate}: expected a rate such as 100mbit, 1gbit, 500kbit", 2
    )


def up(directory: Path, hosts: int, slots: int, bandwidth: str | None, subnet: str) -> str:
    check_can_run(need_tc=bandwidth is not None)
    if " " in str(directory):  # Open MPI splits plm_rsh_agent's value on blanks
        raise TrellisError(f"trellis testbed: --dir {directory}: no blanks, please", 2)
    burst = tbf_burst(bandwidth) if bandwidth else None
    if hosts < 1 or slots < 1:
        raise TrellisError("trellis testbed: --hosts and --slots must be at least 1", 2)
    old = load_state(directory)
    if old is not None:
        same = (old["hosts"], old["slots"], old["bandwidth"], old["subnet"]) == (
            hosts,
            slots,
            bandwidth,
            subnet,
        )
        if same and old.get("complete") and alive(old):
            return f"testbed already up: {hosts} hosts in {directory} (nothing to do)\n"
        if same:
            raise TrellisError(
                f"trellis testbed: the testbed in {directory} is incomplete or was partly "
                "removed; run `trellis testbed down`, then up again",
                2,
            )
        raise TrellisError(
            f"trellis testbed: a testbed is up in {directory}: {shape(old)}; "
            "run `trellis testbed down` first",
            2,
        )
    bridge_addr, host_addrs, prefix = addresses(subnet, hosts)
    directory.mkdir(parents=True, exist_ok=True)
    state = {
        "hosts": hosts, "slots": slots, "bandwidth": bandwidth, "subnet": subnet,
        "bridge": None, "namespaces": [], "uts": [], "complete": False,
    }  # fmt: skip
    save_state(directory, state)
    state["burst"] = burst
    try:
        build(directory, state, bridge_addr, host_addrs, prefix)
    except (TrellisError, OSError) as err:
        teardown(directory, state)
        raise TrellisError(
            f"{err}\ntrellis testbed: up failed; removed what it had made", 1
        ) from None
    return f"testbed up: {hosts} hosts ({', '.join(host_addrs)}) in {directory}\n"


def build(
    directory: Path, state: dict, bridge_addr: str, host_addrs: list[str], prefix: int
) -> None:
    sh("ip", "link", "add", "name", BRIDGE, "type", "bridge")
    state["bridge"] = BRIDGE
    save_state(directory, state)
    sh("ip", "addr", "add", f"{bridge_addr}/{prefix}", "dev", BRIDGE)
    sh("ip", "link", "set", BRIDGE, "up")
    (directory / "uts").mkdir(exist_ok=True)
    fail_after = os.environ.get(FAIL_AFTER_VARIABLE)
    for i, addr in enumerate(host_addrs):
        if fail_after is not None and i == int(fail_after):
            raise TrellisError(
                f"trellis testbed: failing after {i} hosts ({FAIL_AFTER_VARIABLE})", 1
            )
        ns, outside, inside = namespace(i), f"trellis-v{i}", f"trellis-p{i}"
        sh("ip", "netns", "add", ns)
        state["namespaces"].append(ns)
        save_state(directory, state)
        sh("ip", "link", "add", outside, "type", "veth", "peer", "name", inside)
        sh("ip", "link", "set", inside, "netns", ns)
        sh("ip", "link", "set", outside, "master", BRIDGE, "up")
        sh("ip", "-n", ns, "addr", "add", f"{addr}/{prefix}", "dev", inside)
        sh("ip", "-n", ns, "link", "set", inside, "up")
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        if state["bandwidth"]:  # both ways: out of the host, and into it
            for args in (
                ["-n", ns, "qdisc", "add", "dev", inside],
                ["qdisc", "add", "dev", outside],
            ):
                sh("tc", *args, "root", "tbf", "rate", state["bandwidth"], "burst",
                   state["burst"], "latency", "50ms")  # fmt: skip
        uts = directory / "uts" / f"h{i}"
        uts.touch()
        sh("unshare", f"--uts={uts}", "hostname", f"h{i}")
        state["uts"].append(str(uts))
        save_state(directory, state)
    shutil.copy(repo_root() / "testbed" / "agent.sh", directory / "agent")
    (directory / "agent").chmod(0o755)
    slots = state["slots"]
    (directory / "hostfile").write_text(
        "".join(f"h{i} slots={slots}\n" for i in range(len(host_addrs)))
    )
    state["complete"] = True
    save_state(directory, state)


def teardown(directory: Path, state: dict) -> list[str]:
    """Remove what the state records; returns what was removed."""
    removed = []
    for uts in state.get("uts", []):
        subprocess.run(["umount", uts], capture_output=True, check=False)
        Path(uts).unlink(missing_ok=True)
        removed.append(uts)
    for i, ns in enumerate(state.get("namespaces", [])):
        # A process left inside (an aborted job) would keep the namespace, and its end
        # of the veth pair, alive after `ip netns del`: stop them, drop our end first.
        pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True,
                              check=False).stdout.split()  # fmt: skip
        if pids:
            subprocess.run(["kill", "-9", *pids], capture_output=True, check=False)
        subprocess.run(["ip", "link", "del", f"trellis-v{i}"], capture_output=True, check=False)
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)
        removed.append(ns)
    if state.get("bridge"):
        subprocess.run(["ip", "link", "del", state["bridge"]], capture_output=True, check=False)
        removed.append(state["bridge"])
    for name in ("agent", "hostfile", "state.json"):
        (directory / name).unlink(missing_ok=True)
    for sub in (directory / "uts", directory):
        if sub.is_dir() and not any(sub.iterdir()):
            sub.rmdir()
    return removed


def down(directory: Path) -> str:
    check_can_run()
    state = load_state(directory)
    if state is None:
        return f"no testbed in {directory} (nothing to do)\n"
    removed = teardown(directory, state)
    return f"testbed down: removed {', '.join(removed) or 'nothing'}\n"


def shape(state: dict) -> str:
    """A testbed's shape as `status` and `up` print it."""
    return (f"{state['hosts']} hosts x {state['slots']} slots, subnet {state['subnet']}, "
            f"bandwidth {state['bandwidth'] or 'uncapped'}")  # fmt: skip


def status(directory: Path) -> str:
    state = load_state(directory)
    if state is None:
        return f"no testbed in {directory}\n"
    alive = set(subprocess.run(["ip", "netns", "list"], capture_output=True, text=True,
                               check=False).stdout.split())  # fmt: skip
    lines = [f"testbed in {directory}: {shape(state)}"
             + ("" if state.get("complete") else " (INCOMPLETE: run down)")]  # fmt: skip
    for i, ns in enumerate(state["namespaces"]):
        lines.append(f"  h{i}: namespace {ns} {'present' if ns in alive else 'MISSING'}")
    return "\n".join(lines) + "\n"


def mpirun_options(directory: Path, mpi: mpi_impl.MPI | None = None) -> list[str]:
    """What `trellis run --testbed` adds to the launcher's command line (Open MPI's
    mpirun by default)."""
    state = load_state(directory)
    if state is None or not state.get("complete"):
        raise TrellisError(
            f"trellis run: no testbed is up in {directory} (trellis testbed up --hosts N)", 2
        )
    mpi = mpi or mpi_impl.OpenMPI()
    return mpi.testbed(directory, state["subnet"], state["hosts"], state["slots"])
