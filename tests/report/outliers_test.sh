#!/usr/bin/env bash
# The report names a planted slow node and its rank from the per-rank samples alone (no
# baseline), and names nothing when nothing is planted. 4 one-rank virtual nodes on 2 cores;
# the plant doubles the node's time so the test does not hang on this machine's noise (a 30%
# plant was named in every trial too, at 1.21-1.30x, robust z 3.2-11.6).
# outliers_test.sh PREFLIGHT PREFLIGHT_REPORT WORKDIR
set -uo pipefail
bin=$1 report=$2 work=$3
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
host=$(hostname)
for plant in "--test-slow-node 2 --test-slow-factor 1.0" ""; do
  out=$work/run${plant:+-planted}.h5
  mpirun -np 4 "$bin" comm --ranks-per-node 1 --op allreduce --sizes 64K,256K,1M --iters 100 --budget 0.3s $plant \
    -o "$out" >/dev/null 2>&1 || fail "preflight ${plant:-without plant} failed"
  "$report" "$out" >"$work/out" 2>&1 || fail "report failed"
  if [[ -n $plant ]]; then
    grep -q "^# slow node: $host/v2 (ranks 2): " "$work/out" && grep -q "^# slow rank: rank 2 " "$work/out" &&
      pass "planted: $(grep '^# slow node' "$work/out")" || { fail "planted node 2 not named"; grep '^# slow' "$work/out"; }
    [[ $(grep -c '^# slow' "$work/out") -eq 2 ]] && pass "planted: nothing else named" || fail "planted: others named too"
  else
    grep -q "^# slow nodes or ranks: none found" "$work/out" && pass "not planted: none named" ||
      { fail "not planted, yet named:"; grep '^# slow' "$work/out"; }
  fi
done
finish
