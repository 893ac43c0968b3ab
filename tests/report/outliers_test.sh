#!/usr/bin/env bash
# First the plant itself: --test-slow-node N (test-only) makes node N's ranks take 30% longer
# per operation, as a slow node would; on 2 ranks as 2 one-rank nodes (nothing oversubscribed)
# the per-rank samples must show rank 1 about 1.3x rank 0, and about 1x without it. Then the
# detection.
# The report names a planted slow node and its ranks from the per-rank samples alone (no
# baseline), in the terminal summary and as a straggler in the bottleneck summary, and names
# nothing when nothing is planted. 4 virtual nodes of 2 ranks on 2 cores; the planted node's
# ranks take 30% longer per operation (--test-slow-node). In trials it was named at 1.24-1.44x,
# robust z 3.6-9.5; with nothing planted nothing was named. A named slow node fails the
# acceptance check "no slow nodes or ranks" (exit 1) unless --slow-nodes warn (exit 0). Then a
# late rank both ways in a tiny run (below).
# outliers_test.sh PREFLIGHT PREFLIGHT_REPORT WORKDIR
set -uo pipefail
bin=$1 report=$2 work=$3
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
host=$(hostname)

ratio() {  # slowest-point ratio of rank 1's median time to rank 0's
  h5 "$1" 'import numpy as np
print(min(np.median(f["cases/000000/points"][p]["samples"][:], axis=0)[1] / np.median(f["cases/000000/points"][p]["samples"][:], axis=0)[0] for p in f["cases/000000/points"]))'
}
for plant in "--test-slow-node 1" ""; do
  out=$work/two${plant:+-planted}.h5
  mpirun -np 2 "$bin" comm --ranks-per-node 1 --op allreduce --sizes 64K,1M --iters 100 --budget 0.3s $plant \
    -o "$out" >/dev/null 2>&1 || fail "2 ranks, ${plant:-without plant}: run failed"
  r=$(ratio "$out")
  if [[ -n $plant ]]; then
    at_least "$r" 1.2 && at_most "$r" 1.45 && pass "the plant: rank 1 (node 1) is ${r}x rank 0" ||
      fail "the plant: rank 1 / rank 0 = $r, expected about 1.3"
  else
    at_least "$r" 0.9 && at_most "$r" 1.1 && pass "without the plant: rank 1 / rank 0 = $r" ||
      fail "without the plant: rank 1 / rank 0 = $r, expected about 1"
  fi
done
for plant in "--test-slow-node 2 --test-slow-factor 0.3" ""; do
  out=$work/run${plant:+-planted}.h5
  mpirun -np 8 "$bin" comm --ranks-per-node 2 --op allreduce,allgather --sizes 64K,256K,1M --iters 100 --budget 0.3s \
    $plant -o "$out" >/dev/null 2>&1 || fail "preflight ${plant:-without plant} failed"
  "$report" "$out" --no-color >"$work/out" 2>&1
  rc=$?
  if [[ -n $plant ]]; then
    [[ $rc -eq 1 ]] && pass "planted: the report fails, exit 1" || fail "planted: report exit $rc, expected 1"
    grep -q "^  fail  *no slow nodes or ranks: run-planted | node $host/v2 " "$work/out" &&
      pass "planted: the verdict's first reasons name it: $(grep -m1 '^  fail  *no slow nodes' "$work/out" | cut -c1-120)" ||
      { fail "planted: no failing check names the node first"; head -5 "$work/out"; }
    "$report" "$out" --no-color --slow-nodes warn >"$work/warn" 2>&1
    rc=$?
    [[ $rc -eq 0 ]] && grep -q "^# slow node: $host/v2 " "$work/warn" &&
      pass "planted, --slow-nodes warn: listed, exit 0" || fail "planted, --slow-nodes warn: exit $rc"
    grep -q "^# slow node: $host/v2 (ranks 4,5): " "$work/out" &&
      pass "planted: $(grep '^# slow node' "$work/out")" || { fail "planted node 2 not named"; grep '^# slow' "$work/out"; }
    bad=$(grep '^# slow' "$work/out" | grep -v -e "^# slow node: $host/v2 " -e "^# slow rank: rank [45] ")
    [[ -z $bad ]] && pass "planted: nothing else named" || fail "planted: others named too: $bad"
    grep -qE "^[0-9]+\. \[stragglers and hardware\] run-planted: slow node: $host/v2 \(ranks 4,5\)$" "$work/out" &&
      pass "bottleneck summary: $(grep 'stragglers and hardware' "$work/out" | head -1)" ||
      { fail "bottleneck summary does not name the node"; sed -n '/## Bottlenecks/,/^$/p' "$work/out"; }
    [[ $(grep -c "\[stragglers and hardware\]" "$work/out") -eq 1 ]] && pass "bottleneck summary: one straggler" ||
      fail "bottleneck summary: more than one straggler"
  else
    [[ $rc -eq 0 ]] && pass "not planted: exit 0" || fail "not planted: report exit $rc, expected 0"
    grep -q "^# slow nodes or ranks: none found" "$work/out" && pass "not planted: none named" ||
      { fail "not planted, yet named:"; grep -e '^# slow' -e '^# late' "$work/out"; }
    ! grep -q "\[stragglers and hardware\]" "$work/out" && pass "not planted: no straggler in the bottleneck summary" ||
      fail "not planted: a straggler in the bottleneck summary"
  fi
done

# A tiny run (5 iterations a size) of two intra groups {0,1}, {2,3} and the world: rank 1
# planted 1 ms late is named late, and rank 0, which waited for it, is not named slow; without
# the plant nothing is named. Slowness is not judged there (blocks of 1 operation), and says so.
# In 15 + 15 trials on the busy 2-core VM: rank 1 alone in 15 of 15, nothing in 15 of 15.
named() {  # named JSON: the outliers named, "kind:name" joined by ';'
  /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(";".join(o["kind"] + ":" + o["name"] for r in d["runs"] for o in r.get("outliers", [])))' "$1"
}
for plant in "--test-late-rank 1 --test-late-seconds 0.001" ""; do
  out=$work/tiny${plant:+-planted}.h5
  mpirun -np 4 "$bin" comm --op allreduce,allgather --topology world,intra --ranks-per-node 2 \
    --sizes 8,64K --iters 5 --budget 1ms $plant -o "$out" >/dev/null 2>&1 || fail "tiny run ${plant:-without plant} failed"
  "$report" "$out" --no-color --json "$out.json" >"$work/tiny-out" 2>&1
  rc=$? got=$(named "$out.json")
  if [[ -n $plant ]]; then
    [[ $rc -eq 1 && $got == "late rank:rank 1" ]] && pass "tiny, rank 1 late: named late, no one else, exit 1" ||
      fail "tiny, rank 1 late: named '${got}', exit $rc (expected 'late rank:rank 1', exit 1)"
  else
    [[ $rc -eq 0 && -z $got ]] && pass "tiny, nothing planted: nothing named, exit 0" ||
      fail "tiny, nothing planted: named '${got}', exit $rc"
  fi
  grep -q "^# not judged: slow nodes and ranks: 8 of 8 sizes left out, their back-to-back blocks of 1 operation" "$work/tiny-out" &&
    pass "tiny: slowness not judged, and why" || { fail "tiny: no 'not judged' for slowness"; grep '^#' "$work/tiny-out"; }
done
finish
