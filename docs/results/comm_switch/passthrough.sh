#!/bin/bash
# What handing a call on costs: intercommunicator bcast 1 + 1, 4 B and 16-256 KiB,
# bench/inter_latency (PMPI_Bcast against MPI_Bcast, alternating in one run) with
#   aa:   nothing preloaded (MPI_Bcast is the library's own: both variants the same code)
#   shim: a preloaded MPI_Bcast that only calls PMPI_Bcast (built here, 2 lines)
#   mpi:  libtrellis.so with the rule `bcast mpi` (Trellis looks the call up, then hands it on)
# warm and with --cold 8M, K launches each (default 4), alternating.
#   bash docs/results/comm_switch/passthrough.sh [OUT]
# Summary: python3 docs/results/inter/summarize.py OUT/warm aa shim mpi (and OUT/cold)
cd "$(dirname "$0")/../../.."
out=${1:-docs/results/comm_switch/passthrough}; mkdir -p "$out"
shim=$(mktemp -d)/libshim.so
printf '#include <mpi.h>\nint MPI_Bcast(void *b, int n, MPI_Datatype t, int r, MPI_Comm c)\n%s\n' \
  '{ return PMPI_Bcast(b, n, t, r, c); }' | mpicc -O2 -shared -fPIC -x c -o "$shim" -
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for k in $(seq 1 "${K:-4}"); do for cfg in aa shim mpi; do for cold in 0 8M; do
  case $cfg in aa) lib="";; shim) lib=$shim;; mpi) lib=build/libtrellis.so;; esac
  mpirun --mca mpi_yield_when_idle 1 -np 2 -x LD_PRELOAD="$lib" -x TRELLIS_RULES="bcast mpi" \
    build/bench/inter_latency --colls bcast --min 4 --max 256K --step 4 --iters 2000 \
    --min-iters 200 --scale 256K --cold $cold \
    --csv "$out/$([ $cold = 0 ] && echo warm || echo cold)_${cfg}_$k.csv" > /dev/null
done; done; done
