"""An unchanged MPI program that calls every non-blocking collective (the checker programs
of tests/mpi, their calls made MPI_Ixxx + a completion call by TRELLIS_TEST_MODE; see
tests/mpi/call_mode.c) runs under `trellis run --verbose`, and verbose mode reports Trellis
serving each of the 17 (issue 13)."""

import re

from test_runtime import BUILD, trellis_run

COLLECTIVES = [
    "bcast", "reduce", "allreduce", "barrier", "gather", "gatherv", "scatter", "scatterv",
    "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw", "reduce_scatter",
    "reduce_scatter_block", "scan", "exscan",
]  # fmt: skip


def reported(stderr: str) -> set[str]:
    return set(re.findall(r"^trellis: (\w+) ranks=\d+", stderr, re.MULTILINE))


def test_every_nonblocking_collective_is_served_and_reported():
    seen = set()
    for program in ("coll_check", "coll_check_move", "coll_check_scan"):
        proc = trellis_run("-np", "3", "--verbose", str(BUILD / "tests" / "mpi" / program),
                           "--quick", env={"TRELLIS_TEST_MODE": "nonblocking"},
                           timeout=300)  # fmt: skip
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert re.search(r", 0 failed$", proc.stdout, re.MULTILINE), proc.stdout
        seen |= reported(proc.stderr)
    missing = [c for c in COLLECTIVES if f"i{c}" not in seen]
    assert not missing, f"never reported as served non-blocking: {missing}; saw {sorted(seen)}"


def test_persistent_collectives_are_served_and_reported():
    proc = trellis_run("-np", "3", "--verbose", str(BUILD / "tests" / "mpi" / "coll_check"),
                       "--quick", env={"TRELLIS_TEST_MODE": "persistent"},
                       timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    seen = reported(proc.stderr)
    for c in ("bcast", "reduce", "allreduce", "barrier"):
        assert f"{c}_init" in seen, sorted(seen)
