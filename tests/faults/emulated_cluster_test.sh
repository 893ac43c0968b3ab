#!/usr/bin/env bash
# On emulated hosts (network namespaces, scripts/emulated-cluster.sh): nodes are found by host
# name, and the watchdog's reports reach rank 0 over the network (not loopback) and name the
# hanging rank's host. Skipped (exit 77) where network namespaces cannot be made.
# emulated_cluster_test.sh PREFLIGHT WORKDIR
set -uo pipefail
bin=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
cluster=$here/../../scripts/emulated-cluster.sh
source "$here/common.sh"
if [[ $(id -u) -ne 0 ]] || ! ip netns add pf-probe 2>/dev/null; then
  echo "SKIPPED: needs root and network namespaces"
  exit 77
fi
ip netns del pf-probe
rm -rf "$work" && mkdir -p "$work"
# One user of the emulated hosts at a time, in this tree or another (another run's `down` would
# remove them mid-test); scripts/bench/fabric-isolation-trials.sh takes the same lock.
exec 9>/tmp/preflight-emulated-cluster.lock
flock -w 600 9 || { echo "FAIL: another run held the emulated hosts for 600 s"; exit 1; }
"$cluster" down >/dev/null 2>&1
trap '"$cluster" down' EXIT
"$cluster" up 3 || { echo "FAIL: cannot make the emulated hosts"; exit 1; }

timeout 120 "$cluster" mpirun pf1:2,pf2:2 "$bin" comm --op allreduce --topology world,intra,inter --sizes 8,64K \
  --iters 5 --budget 1ms -o "$work/ok.h5" >"$work/ok.log" 2>&1
rc=$?
got=$(h5 "$work/ok.h5" 'print(text(f.attrs["status"]), f.attrs["node_count"], " ".join(text(x) for x in f["environment/host"][:]))' 2>&1)
[[ $rc -eq 0 && $got == "complete 2 pf1 pf1 pf2 pf2" ]] && pass "2 emulated hosts found by name: $got" ||
  { fail "emulated run: exit $rc, file says $got"; tail -5 "$work/ok.log"; }

start=$(date +%s.%N)
timeout 120 "$cluster" mpirun pf1:2,pf2:2 "$bin" comm --op allreduce --topology world,intra --sizes 8,64K,1M \
  --iters 5 --budget 1ms --timeout 3s --test-hang-rank 2 --test-hang-case 1 --test-hang-point 1 \
  --test-hang-seconds 60 -o "$work/hang.h5" >"$work/hang.log" 2>&1
rc=$?
took=$(echo "$(date +%s.%N) - $start" | bc)
[[ $rc -eq 3 ]] && (($(echo "$took <= 13" | bc))) && pass "hang on pf2: exit 3 after ${took}s (timeout 3s)" ||
  fail "hang on pf2: exit $rc after ${took}s"
grep -q "rank(s) 2 (pf2) did not arrive" "$work/hang.log" && grep -q "waiting for them inside MPI: 0 (pf1), 1 (pf1), 3 (pf2)" "$work/hang.log" &&
  pass "the report from pf2 reached rank 0 on pf1 over the network and names rank 2 (pf2)" ||
  { fail "timeout message"; grep timeout: "$work/hang.log"; }
got=$(h5 "$work/hang.h5" 'print(text(f.attrs["status"]), list(f["cases/000001/not_arrived"][:]))' 2>&1)
[[ $got == "timeout [2]" ]] && pass "file: $got" || fail "file says: $got"
finish
