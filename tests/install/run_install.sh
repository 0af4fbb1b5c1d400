#!/usr/bin/env bash
# Installs Trellis from a build tree into a temporary prefix (cmake --install), then
# builds an ordinary MPI program (tests/mpi/coll_check.c) against the installed copy
# twice, with pkg-config and with CMake's find_package(Trellis), and a Fortran one
# (tests/fortran/fcoll.F90, `use mpi_f08`) with pkg-config, linking -ltrellis ahead of
# the MPI library and preloading nothing, and runs each under the MPI's launcher with
# rules: the program's checks pass and Trellis reports running the forced algorithms
# (run_forced.sh's "linked" mode).
#
#   run_install.sh <build dir> <MPI C compiler wrapper> <openmpi|mpich> [<MPI Fortran wrapper>]
set -uo pipefail
build=$1 mpicc=$2 mpifort=${4:-}
export TRELLIS_MPI=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tests=$(dirname "$here")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*" >&2; exit 1; }

prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install"; }
libdir=$(dirname "$(find "$prefix" -name libtrellis.so | head -n 1)")
for f in "$libdir/libtrellis.so" "$prefix/include/trellis.h" "$prefix/bin/trellis-info" \
    "$libdir/pkgconfig/trellis.pc" "$libdir/cmake/Trellis/TrellisConfig.cmake"; do
    [ -f "$f" ] || fail "not installed: $f"
done
echo "installed into $prefix"

# The library must come before the MPI library among the program's needed libraries.
check_order() {
    local needed
    needed=$(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
    case "$needed" in
    *libtrellis.so*libmpi*) echo "$2: links $needed" ;;
    *) fail "$2: libtrellis.so does not come before the MPI library: $needed" ;;
    esac
}

# 1. pkg-config, with the MPI compiler wrapper (which puts the MPI library last).
export PKG_CONFIG_PATH=$libdir/pkgconfig
[ "$(pkg-config --variable=mpi trellis)" = "$TRELLIS_MPI" ] || fail "trellis.pc says mpi=$(pkg-config --variable=mpi trellis)"
# shellcheck disable=SC2046
"$mpicc" -o "$tmp/app_pc" "$tests/mpi/coll_check.c" "$tests/mpi/call_mode.c" \
    $(pkg-config --cflags --libs trellis) \
    -Wl,-rpath,"$(pkg-config --variable=libdir trellis)" -lm || fail "building with pkg-config"
check_order "$tmp/app_pc" pkg-config

# 2. CMake: find_package(Trellis) from the prefix.
cmake -S "$here" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" -DMPI_C_COMPILER="$mpicc" \
    -DAPP_SOURCES="$tests/mpi/coll_check.c;$tests/mpi/call_mode.c" >"$tmp/consumer.log" 2>&1 &&
    cmake --build "$tmp/consumer" >>"$tmp/consumer.log" 2>&1 || { cat "$tmp/consumer.log"; fail "building with CMake"; }
check_order "$tmp/consumer/app" cmake

for app in "$tmp/app_pc" "$tmp/consumer/app"; do
    "$tests/mpi/run_forced.sh" 2 linked "$app" "allreduce ring;bcast chain" chain -- --quick ||
        fail "$app"
done

# 3. Fortran, with pkg-config.
if [ -n "$mpifort" ]; then
    # shellcheck disable=SC2046
    "$mpifort" -cpp -DBINDING_F08 -o "$tmp/fcoll" "$tests/fortran/fcoll.F90" \
        $(pkg-config --libs trellis) -Wl,-rpath,"$(pkg-config --variable=libdir trellis)" ||
        fail "building the Fortran program with pkg-config"
    check_order "$tmp/fcoll" "Fortran, pkg-config"
    printf 'allreduce ring\nalltoallw pairwise\nbarrier dissemination\nscan linear\n' \
        >"$tmp/fortran.rules"
    "$tests/mpi/run_forced.sh" 3 linked "$tmp/fcoll" "$tmp/fortran.rules" --all ||
        fail "$tmp/fcoll"
fi
