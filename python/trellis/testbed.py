"""The emulated cluster (docs/testbed.md): N hosts on this machine, each a network
namespace `trellis-hI` with its own hostname (a persistent UTS namespace), joined by veth
pairs to the bridge `trellis-br0` on a private subnet, optionally capped with tbf and
delayed with netem (or, without it, a netfilter queue: testbed_delayq); the MPI reaches
them through testbed/agent.sh (Open MPI: --mca plm_rsh_agent; MPICH: -launcher ssh
-launcher-exec; mpi_impl.py).

Everything `up` creates is recorded in DIR/state.json as it is created, so `down` (and
`up` itself after a failure) removes exactly that and nothing else."""

import ipaddress
import json
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path

from trellis import mpi_impl, testbed_delayq
from trellis.native import TrellisError, repo_root

DEFAULT_DIR = Path("/run/trellis-testbed")
DEFAULT_SUBNET = "10.77.0.0/24"
BRIDGE = "trellis-br0"
# Tests make `up` fail after this many hosts, to check the clean-up. (Not TRELLIS_*:
# `trellis run` forwards those to every rank.)
FAIL_AFTER_VARIABLE = "TESTBED_FAIL_AFTER"
# --delay: its units, in microseconds (tc's netem takes whole microseconds), and its cap.
DELAY_UNITS = {"us": 1, "ms": 1000, "s": 1_000_000}
MAX_DELAY_US = 1_000_000
# netem's queue, in packets: it holds every packet of the delay's window (the kernel's
# default of 1000 would drop packets of a fast link at a delay of a millisecond or more).
NETEM_LIMIT = 10000


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


def parse_delay(text: str) -> int:
    """--delay's value in microseconds: a number and a unit (us, ms, s), or 0 for none."""
    bad = f"trellis testbed: --delay {text!r}: "
    if text == "0":
        return 0
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(us|ms|s)", text)
    if not match:
        raise TrellisError(bad + "expected a time such as 50us, 1ms or 0.2ms (a number and a "
                           "unit, us, ms or s; 0 for none)", 2)  # fmt: skip
    micros = Decimal(match[1]) * DELAY_UNITS[match[2]]
    if micros != micros.to_integral_value():
        raise TrellisError(bad + f"{micros} us is not a whole number of microseconds, the finest "
                           "delay netem takes", 2)  # fmt: skip
    if micros > MAX_DELAY_US:
        raise TrellisError(bad + "more than 1s, the most it takes", 2)
    return int(micros)


def format_delay(micros: int) -> str:
    """A delay as status prints it: 50us, 1ms, 1500us; none for 0."""
    if not micros:
        return "none"
    if micros % 1_000_000 == 0:
        return f"{micros // 1_000_000}s"
    return f"{micros // 1000}ms" if micros % 1000 == 0 else f"{micros}us"


def netem_missing() -> str | None:
    """Why netem cannot be used here (tc's complaint), or None where it can: a probe in a
    namespace of its own, which leaves nothing behind."""
    probe = subprocess.run(["unshare", "--net", "tc", "qdisc", "add", "dev", "lo", "root",
                            "netem", "delay", "1us"], capture_output=True, text=True,
                           check=False)  # fmt: skip
    return None if probe.returncode == 0 else (probe.stderr.strip() or f"status {probe.returncode}")


CORES = ("shared", "split")


def host_cores(hosts: int, cpus: list[int]) -> list[str]:
    """--cores split: each host's share of the cores this process may run on, as taskset
    lists: host i the cores at positions i, i + hosts, ... (every core to some host); with
    more hosts than cores, host i the core at position i mod the cores (hosts share then)."""
    cpus = sorted(cpus)
    if hosts >= len(cpus):
        return [str(cpus[i % len(cpus)]) for i in range(hosts)]
    return [",".join(str(c) for c in cpus[i::hosts]) for i in range(hosts)]


def delay_method() -> str:
    """How --delay is made here: netem on each host link where the kernel has it, else
    trellis-delayq on a netfilter queue (testbed_delayq); neither: status 2, saying why."""
    why_netem = netem_missing()
    if why_netem is None:
        return "netem"
    why_queue = testbed_delayq.missing()
    if why_queue is None:
        return "nfqueue"
    raise TrellisError(
        "trellis testbed: --delay needs the netem qdisc (sch_netem), which this kernel "
        f"lacks (tc: {why_netem}), or else iptables' NFQUEUE target and trellis-delayq "
        f"({why_queue}); load netem (modprobe sch_netem) or install iptables. --bandwidth "
        "needs neither.",
        2,
    )


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
            and all(Path(u).exists() for u in state["uts"])
            and testbed_delayq.alive(state))  # fmt: skip


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


def up(  # noqa: PLR0913 -- one argument per option of `trellis testbed up`
    directory: Path,
    hosts: int,
    slots: int,
    bandwidth: str | None,
    subnet: str,
    *,
    delay: str | None = None,
    cores: str = "shared",
) -> str:
    delay_us = parse_delay(delay) if delay is not None else 0
    if cores not in CORES:
        raise TrellisError(f"trellis testbed: --cores {cores!r}: expected shared or split", 2)
    check_can_run(need_tc=bandwidth is not None or delay_us > 0)
    method = delay_method() if delay_us else None
    if cores == "split" and not shutil.which("taskset"):
        raise TrellisError("trellis testbed: --cores split needs taskset (util-linux)", 2)
    if " " in str(directory):  # Open MPI splits plm_rsh_agent's value on blanks
        raise TrellisError(f"trellis testbed: --dir {directory}: no blanks, please", 2)
    burst = tbf_burst(bandwidth) if bandwidth else None
    if hosts < 1 or slots < 1:
        raise TrellisError("trellis testbed: --hosts and --slots must be at least 1", 2)
    old = load_state(directory)
    if old is not None:
        same = (
            old["hosts"], old["slots"], old["bandwidth"], old["subnet"], old.get("delay_us", 0),
            old.get("cores", "shared"),
        ) == (hosts, slots, bandwidth, subnet, delay_us, cores)  # fmt: skip
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
        "delay_us": delay_us, "delay_method": method, "cores": cores, "bridge": None,
        "namespaces": [], "qdiscs": [], "uts": [], "complete": False,
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
    delayed = (f", each message between hosts delayed {format_delay(delay_us)} ({method})"
               if delay_us else "")  # fmt: skip
    split = f", cores {describe_cores(state)}" if cores == "split" else ""
    return f"testbed up: {hosts} hosts ({', '.join(host_addrs)}) in {directory}{delayed}{split}\n"


def describe_cores(state: dict) -> str:
    """Which cores each host's processes run on (--cores split), or 'shared'."""
    if state.get("cores", "shared") != "split":
        return "shared"
    return "; ".join(f"h{i}: {c}" for i, c in enumerate(state.get("host_cores", [])))


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
        link_qdiscs(directory, state, ns, inside, outside)
        uts = directory / "uts" / f"h{i}"
        uts.touch()
        sh("unshare", f"--uts={uts}", "hostname", f"h{i}")
        state["uts"].append(str(uts))
        save_state(directory, state)
    if state.get("delay_method") == "nfqueue":
        testbed_delayq.start(directory, state)
    if state.get("cores") == "split":
        # The agent starts each host's processes under taskset with its file here.
        state["host_cores"] = host_cores(len(host_addrs), sorted(os.sched_getaffinity(0)))
        (directory / "cores").mkdir(exist_ok=True)
        for i, cpus in enumerate(state["host_cores"]):
            (directory / "cores" / f"h{i}").write_text(cpus + "\n")
        save_state(directory, state)
    shutil.copy(repo_root() / "testbed" / "agent.sh", directory / "agent")
    (directory / "agent").chmod(0o755)
    slots = state["slots"]
    (directory / "hostfile").write_text(
        "".join(f"h{i} slots={slots}\n" for i in range(len(host_addrs)))
    )
    state["complete"] = True
    save_state(directory, state)


def link_qdiscs(directory: Path, state: dict, ns: str, inside: str, outside: str) -> None:
    """A host's link: the bandwidth cap both ways (tbf at the root of each end), the delay
    one way, on the frames the bridge sends into the host (netem at the root of the
    outside end, the cap's tbf its child); so a message between two hosts is delayed once,
    and no host's own stack holds its packets back. Each qdisc is recorded as it is made."""
    tbf = ["tbf", "rate", str(state["bandwidth"]), "burst", str(state["burst"]),
           "latency", "50ms"]  # fmt: skip
    delay_us = state.get("delay_us", 0)
    if state["bandwidth"]:  # out of the host
        sh("tc", "-n", ns, "qdisc", "add", "dev", inside, "root", *tbf)
        state["qdiscs"].append({"namespace": ns, "dev": inside, "root": "tbf", "child": None})
        save_state(directory, state)
    if delay_us and state.get("delay_method") == "netem":  # into the host: delayed, capped
        sh("tc", "qdisc", "add", "dev", outside, "root", "handle", "1:", "netem", "delay",
           f"{delay_us}us", "limit", str(NETEM_LIMIT))  # fmt: skip
        record = {"namespace": None, "dev": outside, "root": "netem", "child": None}
        state["qdiscs"].append(record)
        save_state(directory, state)
        if state["bandwidth"]:
            sh("tc", "qdisc", "add", "dev", outside, "parent", "1:1", "handle", "10:", *tbf)
            record["child"] = "tbf"
            save_state(directory, state)
    elif state["bandwidth"]:
        sh("tc", "qdisc", "add", "dev", outside, "root", *tbf)
        state["qdiscs"].append({"namespace": None, "dev": outside, "root": "tbf", "child": None})
        save_state(directory, state)


def qdisc_name(record: dict) -> str:
    """A recorded qdisc as `down` and `status` name it: netem+tbf on trellis-v0."""
    kinds = record["root"] + (f"+{record['child']}" if record["child"] else "")
    return f"{kinds} on {record['dev']}" + (f" ({record['namespace']})" if record["namespace"]
                                             else "")  # fmt: skip


def tc_in(record: dict) -> list[str]:
    """tc, in the namespace of a recorded qdisc's device."""
    return ["tc", *(["-n", record["namespace"]] if record["namespace"] else [])]


def teardown(directory: Path, state: dict) -> list[str]:
    """Remove what the state records; returns what was removed."""
    removed = testbed_delayq.stop(state)
    for record in state.get("qdiscs", []):  # a root qdisc takes its child with it
        subprocess.run([*tc_in(record), "qdisc", "del", "dev", record["dev"], "root"],
                       capture_output=True, check=False)  # fmt: skip
        removed.append(qdisc_name(record))
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
    for name in ("agent", "hostfile", "delayq.log", "state.json"):
        (directory / name).unlink(missing_ok=True)
    for f in (directory / "cores").glob("h*"):
        f.unlink(missing_ok=True)
    for sub in (directory / "uts", directory / "cores", directory):
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
    method = f" ({state['delay_method']})" if state.get("delay_method") else ""
    return (f"{state['hosts']} hosts x {state['slots']} slots, subnet {state['subnet']}, "
            f"bandwidth {state['bandwidth'] or 'uncapped'}, "
            f"delay {format_delay(state.get('delay_us', 0))}{method}, "
            f"cores {describe_cores(state)}")  # fmt: skip


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
    for record in state.get("qdiscs", []):
        shown = subprocess.run([*tc_in(record), "qdisc", "show", "dev", record["dev"]],
                               capture_output=True, text=True, check=False).stdout  # fmt: skip
        present = re.search(rf"^qdisc {record['root']} \S+ root ", shown, re.MULTILINE) and (
            not record["child"] or re.search(rf"^qdisc {record['child']} \S+ parent ", shown,
                                             re.MULTILINE))  # fmt: skip
        lines.append(f"  {qdisc_name(record)} {'present' if present else 'MISSING'}")
    lines += testbed_delayq.status_lines(state)
    return "\n".join(lines) + "\n"


def mpirun_options(
    directory: Path, mpi: mpi_impl.MPI | None = None, options: Sequence[str] = ()
) -> list[str]:
    """What `trellis run --testbed` adds to the launcher's command line (Open MPI's
    mpirun by default); options: the rest of that command line's launcher options."""
    state = load_state(directory)
    if state is None or not state.get("complete"):
        raise TrellisError(
            f"trellis run: no testbed is up in {directory} (trellis testbed up --hosts N)", 2
        )
    mpi = mpi or mpi_impl.OpenMPI()
    added = mpi.testbed(directory, state["subnet"], state["hosts"], state["slots"])
    if state.get("cores") == "split":
        added += mpi.keep_cpus(options)
    return added
