#!/usr/bin/env bash
# Emulated hosts on one machine: network namespaces pf0..pfN-1 on a bridge, each with its own
# address (198.51.100.10+i, a documentation range used only inside these namespaces) and, when
# Open MPI starts ranks in it through emulated-cluster-agent.sh, its own host name. Needs root.
#   scripts/emulated-cluster.sh up N      make pf0..pfN-1 (pf0 is where mpirun runs)
#   scripts/emulated-cluster.sh down      remove them all
#   scripts/emulated-cluster.sh mpirun HOSTS ARGS...   run mpirun in pf0 on HOSTS, e.g. pf1:2,pf2:2
#   scripts/emulated-cluster.sh slow HOST RATE         throttle HOST's link both ways, e.g. 100mbit (tc tbf)
#   scripts/emulated-cluster.sh unslow HOST            remove the throttle
#   scripts/emulated-cluster.sh slow-pair A B RATE     throttle only the traffic between hosts A
#                                                      and B: their own veth, /32 routes, tbf
#   scripts/emulated-cluster.sh unslow-pair A B        remove that link (back over the bridge)
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

# Only tbf and clsact exist in this kernel (no prio, htb, filters): a pair-only slowdown is a
# link of its own between the two namespaces, their addresses routed over it (/32), and tbf on
# both ends (shared/machine-notes.md, 2026-12-04).
address() { echo "198.51.100.$((10 + ${1#pf}))"; }
slow_pair() {
  local a=$1 b=$2 rate=$3 link=p${1#pf}${2#pf}
  ip link add "${link}a" netns "$a" type veth peer name "${link}b" netns "$b"
  ip -n "$a" link set "${link}a" up
  ip -n "$b" link set "${link}b" up
  ip -n "$a" route add "$(address "$b")/32" dev "${link}a"
  ip -n "$b" route add "$(address "$a")/32" dev "${link}b"
  ip netns exec "$a" tc qdisc replace dev "${link}a" root tbf rate "$rate" burst 128kb latency 100ms
  ip netns exec "$b" tc qdisc replace dev "${link}b" root tbf rate "$rate" burst 128kb latency 100ms
}
unslow_pair() {
  ip -n "$1" link del "p${1#pf}${2#pf}a" 2>/dev/null || true  # its peer and routes go with it
}

case ${1:-} in
  up) up "${2:?number of hosts}" ;;
  down) down ;;
  mpirun) shift; run_mpirun "$@" ;;
  slow) slow "${2:?host}" "${3:?rate}" ;;
  unslow) unslow "${2:?host}" ;;
  slow-pair) slow_pair "${2:?host}" "${3:?host}" "${4:?rate}" ;;
  unslow-pair) unslow_pair "${2:?host}" "${3:?host}" ;;
  *) sed -n '2,12p' "$0"; exit 2 ;;
esac
