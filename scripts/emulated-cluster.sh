#!/usr/bin/env bash
# Emulated hosts on one machine: network namespaces pf0..pfN-1 on a bridge, each with its own
# address (198.51.100.10+i, a documentation range used only inside these namespaces) and, when
# Open MPI starts ranks in it through emulated-cluster-agent.sh, its own host name. Needs root.
#   scripts/emulated-cluster.sh up N      make pf0..pfN-1 (pf0 is where mpirun runs)
#   scripts/emulated-cluster.sh down      remove them all
#   scripts/emulated-cluster.sh mpirun HOSTS ARGS...   run mpirun in pf0 on HOSTS, e.g. pf1:2,pf2:2
#   scripts/emulated-cluster.sh slow HOST RATE         throttle HOST's link both ways, e.g. 100mbit (tc tbf)
#   scripts/emulated-cluster.sh unslow HOST            remove the throttle
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bridge=br-pf

up() {
  local n=$1
  ip link add $bridge type bridge && ip link set $bridge up
  for ((i = 0; i < n; i++)); do
    ip netns add pf$i
    ip link add vpf$i type veth peer name eth0 netns pf$i
    ip link set vpf$i master $bridge && ip link set vpf$i up
    ip -n pf$i link set lo up
    ip -n pf$i addr add 198.51.100.$((10 + i))/24 dev eth0 && ip -n pf$i link set eth0 up
  done
}

down() {
  for ns in $(ip netns list | awk '/^pf[0-9]+/ {print $1}'); do ip netns del "$ns"; done
  ip link del $bridge 2>/dev/null || true
  for link in $(ip -o link show | awk -F': ' '/vpf[0-9]+@/ {sub(/@.*/, "", $2); print $2}'); do
    ip link del "$link" 2>/dev/null || true
  done
}

run_mpirun() {
  local hosts=$1; shift
  source "$here/mpi-env.sh"
  local args
  printf -v args '%q ' "$@"
  # OMPI_MCA_* settings from mpi-env.sh reach the remote daemons and ranks through mpirun.
  ip netns exec pf0 unshare --uts /bin/sh -c "hostname pf0; exec mpirun --mca plm_rsh_agent $here/emulated-cluster-agent.sh \
    --mca btl self,vader,tcp --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 --host $hosts $args"
}

slow() {
  local host=$1 rate=$2 i=${1#pf}
  ip netns exec "$host" tc qdisc replace dev eth0 root tbf rate "$rate" burst 128kb latency 100ms
  tc qdisc replace dev vpf"$i" root tbf rate "$rate" burst 128kb latency 100ms
}

# Removes what slow() added (`down` removes it too, with the links).
unslow() {
  local host=$1 i=${1#pf}
  ip netns exec "$host" tc qdisc del dev eth0 root 2>/dev/null || true
  tc qdisc del dev vpf"$i" root 2>/dev/null || true
}

case ${1:-} in
  up) up "${2:?number of hosts}" ;;
  down) down ;;
  mpirun) shift; run_mpirun "$@" ;;
  slow) slow "${2:?host}" "${3:?rate}" ;;
  unslow) unslow "${2:?host}" ;;
  *) sed -n '2,10p' "$0"; exit 2 ;;
esac
