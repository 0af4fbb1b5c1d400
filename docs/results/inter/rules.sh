#!/bin/bash
# The comparisons behind the built-in intercommunicator rules (issue 14): bench/inter_latency
# with the built-in rules (leader) and with forced forms, launches alternating; 4 B..64 KiB.
# Summary: python3 docs/results/inter/summarize.py <out>/one leader linear (and t44, t44b).
cd "$(dirname "$0")/../../.."
T=.venv/bin/trellis
out=${1:-results/inter-rules}; mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
LIN="bcast inter=yes inter_linear; allreduce inter=yes inter_linear; barrier inter=yes inter_linear"
HIER="bcast inter=yes inter_linear; allreduce inter=yes inter_leader reduce=hier bcast=hier; barrier inter=yes inter_leader barrier=hier release=hier"
for k in 1 2 3; do for cfg in leader linear; do
  [ $cfg = linear ] && R=$LIN || R=
  mpirun --oversubscribe --mca mpi_yield_when_idle 1 -np 4 -x LD_PRELOAD=build/libtrellis.so \
    -x TRELLIS_RULES="$R" build/bench/inter_latency --min 4 --max 64K --step 4 --iters 1000 \
    --min-iters 20 --scale 256K --csv "$out/one_${cfg}_$k.csv" > /dev/null
done; done
$T testbed up --hosts 4 --slots 4 | tail -1
for set in "t44 leader linear" "t44b leader hier"; do read -r name a b <<< "$set"
  for k in 1 2 3; do for cfg in $a $b; do
    case $cfg in linear) R=$LIN;; hier) R=$HIER;; *) R=;; esac
    TRELLIS_RULES="$R" $T run --testbed -np 16 build/bench/inter_latency --min 4 --max 64K --step 4 \
      --iters 300 --min-iters 10 --scale 64K --csv "$out/${name}_${cfg}_$k.csv" > /dev/null
  done; done
done
$T testbed down
