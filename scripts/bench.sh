#!/usr/bin/env bash
# Set everything up (scripts/setup.sh), then run the main benchmark: Trellis against the
# MPI library's own collectives, printed as a table (bench/run_main.sh).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bash scripts/setup.sh

if [[ -f bench/run_main.sh ]]; then
    exec bash bench/run_main.sh "$@"
fi
# TODO(lead): bench/run_main.sh is written with the benchmark programs (bench/); until it
# lands there is no main benchmark to run, and this script says so and fails.
echo "bench: bench/run_main.sh is missing: the main benchmark is not written yet" >&2
exit 1
