"""Real `trellis run` jobs: seed 000's global-reduction program (bench/global_reduction,
which knows nothing of Trellis) under mpirun with libtrellis.so preloaded, each algorithm
forced by a rule, and the start-up checks of the rules (errors, the warn policy, ranks
that disagree). Every test starts real MPI processes."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("TRELLIS_BUILD", REPO / "build"))
PROGRAM = BUILD / "bench" / "global_reduction"
LIBRARY = BUILD / "libtrellis.so"

# Every algorithm of the C table, from the table itself.
ALGORITHMS = {}


def algorithms(collective: str) -> list[str]:
    if not ALGORITHMS:
        out = subprocess.run(
            [str(BUILD / "trellis-info"), "algorithms"], capture_output=True, text=True, check=True
        ).stdout
        for entry in json.loads(out):
            # The inter_* algorithms serve intercommunicators only (tests/mpi/inter_check.c).
            if "intercommunicator" not in entry["restrictions"]:
                ALGORITHMS.setdefault(entry["collective"], []).append(entry["name"])
    return ALGORITHMS[collective]


def trellis_run(*args: str, env: dict | None = None, timeout: int = 120):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("TRELLIS_")}
    full_env["TRELLIS_BUILD"] = str(BUILD)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "trellis", "run", *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
        check=False,
    )


def mpirun(*args: str, timeout: int = 120):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env = {k: v for k, v in env.items() if not k.startswith("TRELLIS_")}
    return subprocess.run(
        ["mpirun", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )


def global_reduction_ok(proc, ranks: int) -> None:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(rf"ranks={ranks} .*errors=0", proc.stdout), proc.stdout


ALLREDUCE_VARIANTS = (
    [(name, "") for name in
     ("recursive_doubling", "ring", "rabenseifner", "knomial", "direct", "hier",
      "hier_sharded")]
    + [("knomial", "radix=3"), ("ring", "segment=8")]
    + [("reduce_bcast", f"reduce={r}") for r in
       ("linear", "binomial", "knomial", "kary", "chain", "rabenseifner", "hier")]
    + [("reduce_bcast", f"bcast={b}") for b in
       ("linear", "binomial", "knomial", "kary", "chain", "scatter_allgather", "hier",
        "hier_sharded")]
)  # fmt: skip


def test_variants_cover_every_reduce_and_bcast_algorithm():
    """The forced runs below reach every reduce and bcast builder through reduce_bcast
    (`tree` needs a file per size: tests/python/test_topology_runs.py runs it)."""
    named = " ".join(params for _, params in ALLREDUCE_VARIANTS)
    for coll, key in (("reduce", "reduce"), ("bcast", "bcast")):
        for name in algorithms(coll):
            if name not in {"mpi", "tree"}:
                assert f"{key}={name}" in named, f"{coll} {name} is never forced"
    for name in algorithms("allreduce"):
        assert name in {"mpi", "tree"} or any(v[0] == name for v in ALLREDUCE_VARIANTS)


@pytest.mark.parametrize("ranks", [3, 4])
@pytest.mark.parametrize(("algorithm", "params"), ALLREDUCE_VARIANTS)
def test_figure4_program_with_each_algorithm_forced(algorithm, params, ranks):
    rule = f"allreduce {algorithm} {params}".strip()
    proc = trellis_run("-np", str(ranks), "--rules", rule, "--verbose", str(PROGRAM))
    global_reduction_ok(proc, ranks)
    # Verbose mode names the algorithm and the rule that chose it, once, on rank 0.
    said = re.findall(
        r"^trellis: allreduce ranks=(\d+) bytes=4: (\S+) \((\S+?):(\d+): (.*)\)$", proc.stderr, re.M
    )
    assert said == [(str(ranks), algorithm, "TRELLIS_RULES", "1", rule)], proc.stderr


@pytest.mark.parametrize(
    ("ranks", "env", "said"),
    [(3, {}, "shared memory: 3 ranks on rank 0's node, up to 8192 bytes"),
     (16, {}, "shared memory: 16 ranks on rank 0's node, up to 512 bytes"),
     (3, {"TRELLIS_SHM": "0"}, "shared memory: off"),
     # The usual spellings of off (issue 35: only 0 used to work).
     (2, {"TRELLIS_SHM": "off"}, "shared memory: off"),
     (2, {"TRELLIS_SHM": "False"}, "shared memory: off")],
)  # fmt: skip
def test_verbose_says_whether_small_messages_go_through_shared_memory(ranks, env, said):
    """The slots are as large as a 1 MiB segment allows for the node's ranks."""
    proc = trellis_run("-np", str(ranks), "--rules", "allreduce ring", "--verbose",
                       str(PROGRAM), env=env)  # fmt: skip
    global_reduction_ok(proc, ranks)
    line = re.search(rf"^trellis: communicator of {ranks} ranks: .*$", proc.stderr, re.M)
    assert line, proc.stderr
    assert line.group(0).endswith(said), proc.stderr


def test_verbose_yes_is_verbose():
    proc = trellis_run("-np", "2", str(PROGRAM), env={"TRELLIS_VERBOSE": "yes"})
    global_reduction_ok(proc, 2)
    assert "trellis: allreduce ranks=2 bytes=4: " in proc.stderr


@pytest.mark.parametrize(
    ("env", "error"),
    [({"TRELLIS_SHM": "maybe"},
      ("TRELLIS_SHM:1:1: 'maybe' is neither on nor off (expected 1, on, yes, true; 0, off, no, "
       "false)")),
     ({"TRELLIS_CACHE_SIZE": "abc"},
      ("TRELLIS_CACHE_SIZE:1:1: 'abc' is not a count (expected digits: a whole number of at "
       "least 1)"))],
)  # fmt: skip
def test_a_setting_that_means_nothing_stops_the_job_as_a_bad_rule_does(env, error):
    """Issue 35: such values were ignored without a word."""
    proc = trellis_run("-np", "2", str(PROGRAM), env=env)
    assert proc.returncode != 0
    said = [ln for ln in proc.stderr.splitlines() if ln.startswith("trellis: ")]
    assert said == [f"trellis: {error}",
                    "trellis: stopping (set TRELLIS_ON_ERROR=warn to go on with its default)"], (
        proc.stderr)  # fmt: skip
    assert "errors=" not in proc.stdout
    proc = trellis_run("-np", "2", str(PROGRAM), env={**env, "TRELLIS_ON_ERROR": "warn"})
    global_reduction_ok(proc, 2)
    warned = f"trellis: {error}\ntrellis: TRELLIS_ON_ERROR=warn: going on with its default\n"
    assert warned in proc.stderr


def test_mpi_algorithm_hands_the_call_to_the_library():
    proc = trellis_run("-np", "2", "--rules", "allreduce mpi", "--verbose", str(PROGRAM))
    global_reduction_ok(proc, 2)
    assert "trellis: allreduce ranks=2 bytes=4: mpi (TRELLIS_RULES:1: allreduce mpi)" in proc.stderr


def test_plain_ld_preload_without_the_command():
    proc = mpirun(
        "-np",
        "2",
        "-x",
        f"LD_PRELOAD={LIBRARY}",
        "-x",
        "TRELLIS_VERBOSE=1",
        "-x",
        "TRELLIS_RULES=allreduce ring",
        str(PROGRAM),
    )
    global_reduction_ok(proc, 2)
    assert "allreduce ranks=2 bytes=4: ring (TRELLIS_RULES:1" in proc.stderr


def test_built_in_rules_when_no_rules_are_given():
    proc = trellis_run("-np", "2", "--verbose", str(PROGRAM))
    global_reduction_ok(proc, 2)
    assert re.search(
        r"^trellis: allreduce ranks=2 bytes=4: \S+ \(built-in:\d+: ", proc.stderr, re.M
    ), proc.stderr


def test_rules_file(tmp_path):
    rules = tmp_path / "mine.rules"
    rules.write_text("# a comment\n\nallreduce bytes=0-4K knomial radix=3\n")
    proc = trellis_run("-np", "3", "--rules", str(rules), "--verbose", str(PROGRAM))
    global_reduction_ok(proc, 3)
    assert f"knomial ({rules}:3: allreduce bytes=0-4K knomial radix=3)" in proc.stderr


def test_bad_rule_stops_the_job_with_its_position():
    proc = trellis_run("-np", "3", "--rules", "allreduce ringg", str(PROGRAM))
    assert proc.returncode != 0
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("trellis: TRELLIS_RULES")]
    # Reported once (by rank 0), with line and column of the bad token.
    assert len(errors) == 1, proc.stderr
    assert errors[0].startswith("trellis: TRELLIS_RULES:1:11: unknown algorithm 'ringg'")
    assert "errors=" not in proc.stdout  # the program never ran its loop


def test_warn_policy_runs_on_built_in_rules():
    proc = trellis_run(
        "-np",
        "2",
        "--rules",
        "allreduce ring radix=4",
        "--verbose",
        str(PROGRAM),
        env={"TRELLIS_ON_ERROR": "warn"},
    )
    global_reduction_ok(proc, 2)
    assert "trellis: TRELLIS_RULES:1:16: " in proc.stderr
    assert "running on the built-in rules" in proc.stderr
    assert re.search(r"allreduce ranks=2 bytes=4: \S+ \(built-in:", proc.stderr)


def test_ranks_that_see_different_rules_stop():
    # MPMD: rank 0 and rank 1 get different TRELLIS_RULES.
    proc = mpirun(
        "-np",
        "1",
        "-x",
        f"LD_PRELOAD={LIBRARY}",
        "-x",
        "TRELLIS_RULES=allreduce ring",
        str(PROGRAM),
        ":",
        "-np",
        "1",
        "-x",
        f"LD_PRELOAD={LIBRARY}",
        "-x",
        "TRELLIS_RULES=allreduce knomial",
        str(PROGRAM),
    )
    assert proc.returncode != 0
    assert "rank 1 sees different TRELLIS_RULES from rank 0" in proc.stderr, proc.stderr
    assert "errors=" not in proc.stdout


def test_rules_files_that_differ_after_a_nul_byte_stop(tmp_path):
    """Each rank reads a file that holds a NUL, the two differing only after it. The text
    used to end at the NUL: both ranks hashed the same rules, the junk was never read,
    and the job ran. Now such a file is refused where the NUL is, and the job stops."""
    one, two = tmp_path / "one.rules", tmp_path / "two.rules"
    one.write_bytes(b"allreduce ring\n\0bcast ringgg nonsense\n")
    two.write_bytes(b"allreduce ring\n\0allreduce knomial\n")
    proc = mpirun(
        "-np", "1", "-x", f"LD_PRELOAD={LIBRARY}", "-x", f"TRELLIS_RULES={one}", str(PROGRAM),
        ":", "-np", "1", "-x", f"LD_PRELOAD={LIBRARY}", "-x", f"TRELLIS_RULES={two}",
        str(PROGRAM),
    )  # fmt: skip
    assert proc.returncode != 0
    assert f"trellis: {one}:2:1: not a text file (it holds a NUL byte)" in proc.stderr, proc.stderr
    assert "errors=" not in proc.stdout


def test_unreadable_rules_file_is_reported(tmp_path):
    missing = tmp_path / "nope.rules"
    proc = trellis_run("-np", "2", "--rules", str(missing), str(PROGRAM))
    assert proc.returncode != 0
    assert f"trellis: {missing}" in proc.stderr or "cannot read" in proc.stderr, proc.stderr


MPICH_BUILD = REPO / "build-mpich"


def test_a_program_of_the_other_mpi_runs_under_its_own():
    """`trellis run` reads which MPI the program links (issue 35): an MPICH program runs
    under MPICH's launcher with the library built for MPICH, no --mpi needed (and no
    TRELLIS_BUILD: the checkout's build tree for that MPI)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRELLIS_")}
    proc = subprocess.run([sys.executable, "-m", "trellis", "run", "-np", "2",
                           str(MPICH_BUILD / "bench" / "global_reduction")],
                          capture_output=True, text=True, env=env, timeout=120,
                          check=False)  # fmt: skip
    global_reduction_ok(proc, 2)
    assert "(MPICH)" in proc.stdout


@pytest.mark.parametrize(("built", "runs"), [("build", "build-mpich"), ("build-mpich", "build")])
def test_the_library_stops_under_an_mpi_it_was_not_built_for(built, runs):
    """Preloaded by hand into a program of the other MPI, the library says so and stops,
    once, before the MPI library sees a handle of the wrong kind (MPICH said "Invalid
    communicator", Open MPI crashed in MPI_Comm_rank)."""
    names = {"build": "Open MPI", "build-mpich": "MPICH"}
    library, program = REPO / built / "libtrellis.so", REPO / runs / "bench" / "global_reduction"
    if runs == "build":
        launch = ["mpirun", "--oversubscribe", "-np", "2", "-x", f"LD_PRELOAD={library}"]
    else:
        launch = ["mpiexec.mpich", "-n", "2", "-genv", "LD_PRELOAD", str(library)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRELLIS_")}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    proc = subprocess.run([*launch, str(program)], capture_output=True, text=True, env=env,
                          timeout=120, check=False)  # fmt: skip
    assert proc.returncode != 0
    said = [ln for ln in proc.stderr.splitlines() if ln.startswith("trellis: ")]
    assert len(said) == 1, proc.stderr
    assert said[0].startswith(f"trellis: this libtrellis.so is built for {names[built]}, but "
                              f"the program runs under {names[runs]} (")  # fmt: skip
    assert f"{runs}/libtrellis.so" in said[0]
    assert "errors=" not in proc.stdout
    assert "Invalid communicator" not in proc.stderr
    assert "Segmentation fault" not in proc.stderr


COLLECTIVES = [
    "bcast", "reduce", "allreduce", "barrier", "gather", "gatherv", "scatter", "scatterv",
    "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw", "reduce_scatter",
    "reduce_scatter_block", "scan", "exscan",
]  # fmt: skip


def test_unchanged_programs_using_every_collective_run_under_trellis():
    """The MPI-tier checkers, which know nothing of Trellis, under `trellis run --verbose`
    with the built-in rules: every check passes and Trellis reports running each of the
    seventeen collectives with one of its own algorithms."""
    said = ""
    for program in ("coll_check", "coll_check_move", "coll_check_scan"):
        proc = trellis_run(
            "-np", "3", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1", "--verbose",
            str(BUILD / "tests" / "mpi" / program), "--quick",
            env={"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"},
            timeout=300,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert re.search(r"checks, 0 failed$", proc.stdout, re.MULTILINE), proc.stdout
        said += proc.stderr
    for coll in COLLECTIVES:
        ran = re.findall(rf"^trellis: {coll} ranks=3(?: bytes=\d+)?: (\w+) ", said, re.MULTILINE)
        assert ran, f"Trellis never reported running {coll}"
        assert "mpi" not in ran, f"{coll} went to the MPI library: {ran}"
        assert set(ran) <= set(algorithms(coll)), ran
