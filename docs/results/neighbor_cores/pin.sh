#!/bin/bash
# Started by docs/results/neighbor_cores/run.sh in place of the program: holds this
# rank to a core as PIN says (none, spread, packed), then runs the program.
# PIN=spread: a host's ranks over both cores; packed: a host's ranks on one core (by host); none
l=${OMPI_COMM_WORLD_LOCAL_RANK:-0}; w=${OMPI_COMM_WORLD_RANK:-0}; n=${OMPI_COMM_WORLD_LOCAL_SIZE:-1}
case "$PIN" in
spread) exec taskset -c $((l % 2)) "$@" ;;
packed) exec taskset -c $(( (w / n) % 2)) "$@" ;;
*) exec "$@" ;;
esac
