"""`trellis calibrate`: the fit, on measurements made up from known parameters (the
measuring itself runs in the experiments of docs/notebook/simulate.md: it needs two ranks and, for
every class, hosts)."""

import json
import os

import pytest

from trellis import cmd_calibrate, native

SIZES = [1 << k for k in range(23)]  # 1 B .. 4 MiB


def made_up(cls: str, p: dict) -> list[dict]:
    """What bench/calibrate would print on a link of these parameters: alpha, per_byte,
    eager (None: none) and jump, the send and recv overheads, the gap."""
    alpha, per_byte, eager, jump = p["alpha"], p["per_byte"], p["eager"], p["jump"]
    send, recv, gap = p["send"], p["recv"], p["gap"]
    out = [{"what": "pair", "hosts": ["a", "a" if cls != "world" else "b"],
            "same_host": cls != "world"}]  # fmt: skip
    for s in SIZES:
        t = alpha + s * per_byte + (jump if eager is not None and s > eager else 0)
        out.append({"what": "pingpong", "bytes": s, "ns": t, "reps": 9})
    out.append({"what": "overhead", "send_ns": send, "recv_ns": recv})
    for s in (1, 8, 64, 512, 4096, 32768, 262144, 2097152):
        out.append({"what": "train", "bytes": s, "count": 16, "ns": max(gap, s * per_byte)})
    for s in (4096, 16384, 65536, 262144, 1048576, 4194304):
        out.append({"what": "reduce", "bytes": s, "ns": 40 + 0.25 * s, "dtype": "int"})
        out.append({"what": "copy", "bytes": s, "ns": 20 + 0.125 * s})
    for r in out:
        r["class"] = cls
    return out


def test_the_fit_finds_the_parameters_it_was_made_from(run_trellis, tmp_path) -> None:
    raw = tmp_path / "raw.jsonl"
    host_link = {"alpha": 300, "per_byte": 0.1, "eager": 4096, "jump": 2000, "send": 20,
            "recv": 30, "gap": 25}  # fmt: skip
    world_link = {"alpha": 11000, "per_byte": 84, "eager": None, "jump": 0, "send": 6000,
             "recv": 30, "gap": 11000}  # fmt: skip
    records = made_up("host", host_link) + made_up("world", world_link)
    raw.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "fit.model"
    proc = run_trellis("calibrate", "--from-raw", str(raw), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text().splitlines()
    lines = {line.split()[0]: dict(kv.split("=") for kv in line.split()[1:])
             for line in text if line and not line.startswith("#")}  # fmt: skip
    host, world = lines["host"], lines["world"]
    assert float(host["overhead"]) == 25  # the mean of 20 and 30
    # alpha: the median of 1 .. 256 B, at 16 B; latency = alpha - 2 overhead.
    assert float(host["latency"]) == pytest.approx(300 + 0.1 * 16 - 50)
    assert float(host["per_byte"]) == pytest.approx(0.1)
    assert host["eager"] == "4096"
    assert lines["socket"] == host  # not measured: host's figures
    assert "eager" not in world
    assert float(world["per_byte"]) == pytest.approx(84)
    assert float(world["gap"]) == 11000
    assert float(world["overhead"]) == 3015
    assert float(lines["reduce"]["per_byte"]) == pytest.approx(0.25)
    assert float(lines["reduce"]["per_step"]) == pytest.approx(40, rel=0.05)
    assert float(lines["copy"]["per_byte"]) == pytest.approx(0.125)
    # What simulate reads back.
    proc = run_trellis("simulate", "allreduce", "--ranks", "4", "--bytes", "4", "--model",
                       str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr


def test_a_jump_too_small_is_no_eager_limit() -> None:
    points = [(s, 300 + 0.1 * s + (20 if s > 4096 else 0)) for s in SIZES if s <= 256 << 10]
    assert cmd_calibrate.eager_limit(points) == (None, 0.0)
    points = [(s, 300 + 0.1 * s + (2000 if s > 4096 else 0)) for s in SIZES if s <= 256 << 10]
    limit, jump = cmd_calibrate.eager_limit(points)
    assert limit == 4096
    assert jump == pytest.approx(2000)


def test_an_unknown_class_is_an_error(run_trellis) -> None:
    proc = run_trellis("calibrate", "--classes", "host,rack")
    assert proc.returncode == 2
    assert "unknown ['rack']" in proc.stderr


def test_the_program_is_built() -> None:
    assert native.built_file("bench/calibrate").is_file()


def fake_mpirun(directory, records: list[dict]):
    """An `mpirun` that prints `records` as bench/calibrate would, and fails as Open MPI's
    does on one host when asked for one rank per node (--map-by ppr:1:node)."""
    out = directory / "records.jsonl"
    out.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "class"}) + "\n"
                           for r in records))  # fmt: skip
    script = directory / "mpirun"
    script.write_text(
        "#!/bin/sh\n"
        'case "$*" in *ppr:1:node*)\n'
        "  printf '%s\\n' 'Your job has requested more processes than the ppr for' "
        "'this topology can support:' >&2; exit 1;;\n"
        "esac\n"
        f'cat "{out}"\n'
    )  # fmt: skip
    script.chmod(0o755)
    return {"PATH": f"{directory}:{os.environ['PATH']}"}


HOST_LINK = {"alpha": 300, "per_byte": 0.1, "eager": 4096, "jump": 2000, "send": 20,
             "recv": 30, "gap": 25}  # fmt: skip


def model_lines(path) -> dict:
    return {line.split()[0]: line for line in path.read_text().splitlines()
            if line and not line.startswith("#")}  # fmt: skip


def test_on_one_host_the_defaults_calibrate_the_host_and_say_so(run_trellis, tmp_path) -> None:
    """Issue 35: `world` on one host used to stop calibrate with mpirun's raw error, the
    host's measurements lost and no model written."""
    env = fake_mpirun(tmp_path, made_up("host", HOST_LINK))
    out = tmp_path / "one.model"
    proc = run_trellis("calibrate", "--out", str(out), env=env)
    assert proc.returncode == 0, proc.stderr
    assert "trellis calibrate: world: mpirun found one host" in proc.stderr
    lines = model_lines(out)
    assert lines["world"].split()[1:] == lines["host"].split()[1:]
    text = out.read_text()
    assert "# host: measured between a and a" in text
    assert "# world: not measured (the job has one host): host's figures" in text


def test_a_failure_keeps_the_classes_measured_before(run_trellis, tmp_path) -> None:
    """Asked for world by name, its failure is one (exit 1), but the model of the classes
    measured before it is written, and --raw keeps their measurements."""
    env = fake_mpirun(tmp_path, made_up("host", HOST_LINK))
    out, raw = tmp_path / "part.model", tmp_path / "raw.jsonl"
    proc = run_trellis("calibrate", "--classes", "host,world", "--out", str(out),
                       "--raw", str(raw), env=env)  # fmt: skip
    assert proc.returncode == 1
    assert "trellis calibrate: world: mpirun failed (1):" in proc.stderr
    assert (f"trellis calibrate: wrote {out} from the classes measured before the failure "
            "(host)") in proc.stderr  # fmt: skip
    assert "host" in model_lines(out)
    assert {json.loads(line)["class"] for line in raw.read_text().splitlines()} == {"host"}
