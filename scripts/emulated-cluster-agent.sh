#!/bin/sh
# Open MPI's launcher agent for emulated hosts (instead of ssh): runs the command in the
# host's network namespace with the host's own name.
host=$1
shift
exec ip netns exec "$host" unshare --uts /bin/sh -c "hostname $host; $*"
