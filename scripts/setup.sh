#!/usr/bin/env bash
# Set up Trellis on a Debian machine, from nothing or again (idempotent):
#   1. install the Debian packages that are missing (as root),
#   2. configure and build the C library and tools into build/ (against Open MPI), and
#      again into build-mpich/ against MPICH (docs/install.md),
#   3. create the Python virtual environment .venv with the `trellis` command and the
#      test tools (pytest, ruff) installed from this checkout (editable).
# Quiet: one line per step; on a failure the step's log is shown and the script stops.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
LOGDIR="$ROOT/build/logs"
# Both MPIs: Debian keeps Open MPI the default (mpicc, mpirun) with MPICH installed too;
# each has its own names (mpicc.openmpi, mpicc.mpich, ...). gfortran for the Fortran tests;
# iptables for the testbed's delay where the kernel has no netem (docs/testbed.md).
PACKAGES=(build-essential cmake pkg-config openmpi-bin libopenmpi-dev mpich libmpich-dev
          gfortran hwloc libhwloc-dev python3 python3-venv python3-pip iproute2 util-linux
          iptables clang-format)

step() { printf 'setup: %s\n' "$*"; }
fail() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# Run a command with its output in a log file; show the log's end if it fails.
quiet() {
    local name="$1"; shift
    mkdir -p "$LOGDIR"
    if ! "$@" >"$LOGDIR/$name.log" 2>&1; then
        printf 'setup: error: %s failed; the end of %s:\n' "$*" "$LOGDIR/$name.log" >&2
        tail -n 40 "$LOGDIR/$name.log" >&2
        exit 1
    fi
}

# 1. Debian packages.
missing=()
for pkg in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$pkg")
    fi
done
if ((${#missing[@]})); then
    step "installing Debian packages: ${missing[*]}"
    SUDO=()
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null || fail "not root and no sudo: install ${missing[*]} as root"
        SUDO=(sudo)
    fi
    export DEBIAN_FRONTEND=noninteractive
    quiet apt-update "${SUDO[@]}" apt-get update -q
    quiet apt-install "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
else
    step "Debian packages: all present"
fi

# 2. The C builds: one build tree per MPI, each configured with that MPI's compiler
# wrappers and launcher where Debian's names for them exist.
build_tree() {  # DIR MPI-SUFFIX LAUNCHER
    local dir=$1 mpi=$2 launcher=$3 opts=()
    command -v "mpicc.$mpi" >/dev/null && opts+=("-DMPI_C_COMPILER=mpicc.$mpi")
    command -v "mpifort.$mpi" >/dev/null && opts+=("-DMPI_Fortran_COMPILER=mpifort.$mpi")
    command -v "$launcher" >/dev/null && opts+=("-DMPIEXEC_EXECUTABLE=$(command -v "$launcher")")
    quiet "cmake-configure-$dir" cmake -S "$ROOT" -B "$ROOT/$dir" -DCMAKE_BUILD_TYPE=Release \
        -DTRELLIS_WERROR=ON "${opts[@]}"
    quiet "cmake-build-$dir" cmake --build "$ROOT/$dir" -j "$(nproc)"
    for f in "$dir/libtrellis.so" "$dir/trellis-info"; do
        [[ -e $f ]] || fail "the build did not produce $f"
    done
}
step "building the C library and tools into build/ (Open MPI)"
build_tree build openmpi mpirun.openmpi
step "building the library against MPICH into build-mpich/"
build_tree build-mpich mpich mpiexec.mpich

# 3. The Python environment. Debian's own python3, whatever else is on PATH, since that
# is the one the packages above provide venv and pip for.
PYTHON=/usr/bin/python3
[[ -x $PYTHON ]] || PYTHON="$(command -v python3)"
if [[ ! -x .venv/bin/python ]]; then
    step "creating the Python virtual environment .venv"
    quiet venv "$PYTHON" -m venv .venv
fi
# Reinstall only when the package's metadata changed (or nothing is installed yet).
stamp=.venv/.trellis-installed
want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [[ ! -x .venv/bin/trellis || ! -x .venv/bin/pytest || ! -x .venv/bin/ruff ||
      "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
    step "installing the trellis command and test tools into .venv"
    quiet pip-install .venv/bin/python -m pip install --quiet --disable-pip-version-check \
        -e ".[test]"
    echo "$want" >"$stamp"
else
    step "Python environment .venv: up to date"
fi
.venv/bin/trellis --version >/dev/null || fail ".venv/bin/trellis does not run"
step "done: build/, build-mpich/ and .venv are ready"
