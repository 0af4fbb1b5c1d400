#!/usr/bin/env bash
# Set everything up (scripts/setup.sh), then run the main benchmark job,
# bench/run_main.sh: Trellis against the MPI library's own collectives on
# this machine, printed as tables (arguments are passed on, e.g. --quick).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bash scripts/setup.sh
exec bash bench/run_main.sh "$@"
