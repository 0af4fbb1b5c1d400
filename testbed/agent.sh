#!/bin/sh
# The MPI's launch agent for the emulated cluster (Open MPI: --mca plm_rsh_agent;
# MPICH: -launcher ssh -launcher-exec): called as ssh would be, `agent [ssh options] HOST COMMAND...`, it runs COMMAND in the
# emulated host's network namespace (trellis-HOST) and under its hostname (the UTS
# namespace kept in uts/HOST next to this script). `trellis testbed up` copies it
# into the testbed's directory.
set -eu
while [ $# -gt 0 ]; do
    case "$1" in
    -[bcDEeFIiJLlmOopQRSWw]) shift 2 ;; # ssh options that take a value
    -*) shift ;;
    *) break ;;
    esac
done
[ $# -ge 2 ] || { echo "trellis testbed agent: usage: agent HOST COMMAND..." >&2; exit 2; }
host=$1
shift
dir=$(cd "$(dirname "$0")" && pwd)
case "$host" in
h[0-9]*) ;;
*) echo "trellis testbed agent: '$host' is not an emulated host (h0, h1, ...)" >&2; exit 2 ;;
esac
if [ ! -e "/run/netns/trellis-$host" ] || [ ! -e "$dir/uts/$host" ]; then
    echo "trellis testbed agent: no emulated host $host (is the testbed up?)" >&2
    exit 2
fi
# `ip netns exec` also mounts a /sys of the namespace's own, where MPICH's UCX looks for
# the host's network interfaces. Under `--cores split` the host's processes are held to
# the CPUs listed in cores/HOST (a list without blanks, so $pin splits into its words).
pin=
[ -s "$dir/cores/$host" ] && pin="taskset -c $(cat "$dir/cores/$host")"
exec $pin ip netns exec "trellis-$host" nsenter --uts="$dir/uts/$host" sh -c "$*"
