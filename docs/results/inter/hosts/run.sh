#!/bin/bash
# inter_hosts (bcast, allreduce, barrier: the groups cross host by host, leader to leader)
# against the built-in rules' forms, 8 + 8 ranks across the emulated 4 x 4, launches
# alternating; its parts binomial (its defaults) and linear.
# Summary: python3 docs/results/inter/summarize.py <out>/t44 builtin hosts hosts_lin
# K (launches of each form, 3), MAX (largest size, 64K), COLLS (allreduce,bcast,barrier),
# CFGS (the forms) and PREFIX (of the CSVs, t44) from the environment.
cd "$(dirname "$0")/../../../.."
T=.venv/bin/trellis
out=${1:-results/inter-hosts}; mkdir -p "$out"
K=${K:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
HOSTS="bcast inter=yes inter_hosts; allreduce inter=yes inter_hosts; barrier inter=yes inter_hosts"
HOSTS_LIN="bcast inter=yes inter_hosts bcast=linear; allreduce inter=yes inter_hosts reduce=linear bcast=linear; barrier inter=yes inter_hosts arrive=linear release=linear"
CFGS=${CFGS:-builtin hosts hosts_lin}
$T testbed up --hosts 4 --slots 4 | tail -1
for k in $(seq 1 "$K"); do for cfg in $CFGS; do
  case $cfg in hosts) R=$HOSTS;; hosts_lin) R=$HOSTS_LIN;; *) R=;; esac
  TRELLIS_RULES="$R" $T run --testbed -np 16 build/bench/inter_latency --colls "${COLLS:-allreduce,bcast,barrier}" \
    --min 4 --max "${MAX:-64K}" --step 4 --iters 300 --min-iters 10 --scale 64K \
    --csv "$out/${PREFIX:-t44}_${cfg}_$k.csv" > /dev/null; echo "$cfg $k rc=$?"
done; done
$T testbed down
