#!/usr/bin/env bash
# Set everything up (scripts/setup.sh), then run the whole test suite:
#   ctest    the C tiers: patterns, rules, every algorithm with ranks as threads, real
#            mpirun runs with the library preloaded, Fortran programs, an installed
#            Trellis linked into programs (build/, Open MPI);
#   ctest    the MPI tiers again against MPICH (build-mpich/, label mpi: the light
#            scale of tests/mpi/CMakeLists.txt);
#   pytest   the `trellis` command (tests/cli) and any other Python tests;
#   ruff     the Python code's lint;
#   format   C as .clang-format says, Python as ruff format says (scripts/check_format.sh).
# Every runner runs even when an earlier one failed; the exit status is non-zero if any
# failed, and the output ends with each runner's own summary line.
#
# The slow tiers run a fixed core every time and a share of the rest that a seed picks
# (tests/CMakeLists.txt): the day of the year, or TRELLIS_TEST_SEED when set, so that
# `TRELLIS_TEST_SEED=N bash scripts/test.sh` checks seed N's cases again.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

export TRELLIS_TEST_SEED="${TRELLIS_TEST_SEED:-$((10#$(date -u +%j)))}"
echo "test: seed $TRELLIS_TEST_SEED (TRELLIS_TEST_SEED=$TRELLIS_TEST_SEED bash scripts/test.sh runs these cases again)"

bash scripts/setup.sh || { echo "test: setup failed" >&2; exit 1; }

LOGS="$(mktemp -d)"
trap 'rm -rf "$LOGS"' EXIT

echo "test: ctest (build/, Open MPI)"
# Tests without a TIMEOUT of their own get 600 s.
ctest --test-dir build --output-on-failure -j2 --timeout 600 2>&1 | tee "$LOGS/ctest"
ctest_rc=${PIPESTATUS[0]}

echo "test: ctest -L mpi (build-mpich/, MPICH)"
ctest --test-dir build-mpich -L mpi --output-on-failure -j2 --timeout 600 2>&1 |
    tee "$LOGS/ctest-mpich"
mpich_rc=${PIPESTATUS[0]}

py_dirs=()
for d in tests/cli tests/python; do
    [[ -d $d ]] && py_dirs+=("$d")
done
echo "test: pytest ${py_dirs[*]}"
# Two workers, as ctest runs two tests (pytest-xdist); a file's tests stay on one worker,
# so test_testbed.py's, which each want the machine's network namespaces, never overlap.
.venv/bin/pytest -q -n 2 --dist loadfile "${py_dirs[@]}" 2>&1 | tee "$LOGS/pytest"
pytest_rc=${PIPESTATUS[0]}

echo "test: ruff check python tests bench scripts"
.venv/bin/ruff check python tests bench scripts 2>&1 | tee "$LOGS/ruff"
ruff_rc=${PIPESTATUS[0]}

echo "test: format (scripts/check_format.sh)"
bash scripts/check_format.sh 2>&1 | tee "$LOGS/format"
format_rc=${PIPESTATUS[0]}

echo
echo "test: summary (seed $TRELLIS_TEST_SEED; ctest exit $ctest_rc, ctest MPICH exit $mpich_rc," \
    "pytest exit $pytest_rc, ruff exit $ruff_rc, format exit $format_rc)"
tail -n 1 "$LOGS/format"
tail -n 1 "$LOGS/ruff"
grep -E '[0-9]+% tests passed' "$LOGS/ctest" || echo "ctest: no summary (exit $ctest_rc)"
grep -E '[0-9]+% tests passed' "$LOGS/ctest-mpich" | sed 's/^/MPICH: /' ||
    echo "ctest MPICH: no summary (exit $mpich_rc)"
tail -n 1 "$LOGS/pytest"

((ctest_rc == 0 && mpich_rc == 0 && pytest_rc == 0 && ruff_rc == 0 && format_rc == 0))
