#!/bin/bash
# issue 12 sweep: the other shapes, 1 Gbit/s links: 4 B for 8 collectives, 1 MiB allreduce/bcast
cd /work/main
T=.venv/bin/trellis
for shape in "8 2" "2 8" "3 6"; do
  set -- $shape
  $T testbed down >/dev/null 2>&1
  $T testbed up --hosts $1 --slots $2 --bandwidth 1gbit | tail -1
  $T bench --testbed --np 16 --sizes 4 --reps 6 --iters 200 \
    --colls bcast,reduce,allreduce,barrier,gather,scatter,allgather,alltoall \
    --config ompi --config han --config builtin: --config old:rules=/tmp/b/old.rules \
    --config flat:rules=/tmp/b/flat.rules --out /tmp/b/shape-$1x$2 > /tmp/b/shape-$1x$2.log 2>&1
  echo "shape $1x$2 small done rc=$?"
  $T bench --testbed --np 16 --sizes 1M --reps 6 --iters 8 --colls allreduce,bcast \
    --config ompi --config han --config builtin: --config old:rules=/tmp/b/old.rules \
    --config L1:rules=/tmp/b/L1.rules --config L5:rules=/tmp/b/L5.rules \
    --config L6:rules=/tmp/b/L6.rules --out /tmp/b/shapeL-$1x$2 > /tmp/b/shapeL-$1x$2.log 2>&1
  echo "shape $1x$2 large done rc=$?"
done
$T testbed down
