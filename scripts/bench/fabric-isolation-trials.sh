#!/usr/bin/env bash
# Diagnosis both ways on 4 emulated hosts (pf1..pf4, one rank each; scripts/emulated-cluster.sh):
#   fabric:     TRIALS runs of the node-pair sweep with pf3's link slowed (tc tbf, both
#               directions) and TRIALS with nothing slowed; counts the runs whose report names
#               exactly pf3 (slowed) and nothing at all (clean).
#   collective: TRIALS runs of collectives (allreduce, allgather, sendrecv on world and inter,
#               8 B to 1 MiB) with nothing planted and TRIALS with node 2 (pf3) made slow by
#               --test-slow-node; counts the runs whose slow-node analysis names nothing (clean)
#               and exactly pf3 (planted). 40 iterations: back-to-back blocks of 8 operations, the
#               fewest the slow-node analysis judges where ranks wait for each other.
# Needs root. Always removes the emulated hosts, also on failure or Ctrl-C.
#   scripts/bench/fabric-isolation-trials.sh [-n TRIALS] [-p fabric|collective|all] PREFLIGHT REPORT WORKDIR
# Exit 0 when every trial was diagnosed right, 1 otherwise.
set -uo pipefail
trials=10 part=all
while getopts n:p: o; do
  case $o in
    n) trials=$OPTARG ;;
    p) part=$OPTARG ;;
    *) sed -n '2,15p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[[ $# -eq 3 ]] || { sed -n '2,15p' "$0"; exit 2; }
bin=$(realpath "$1") report=$(realpath "$2") work=$3
here=$(cd "$(dirname "$0")" && pwd)
cluster=$here/../emulated-cluster.sh
py=/usr/bin/python3
rate=${FABRIC_TRIALS_RATE:-100mbit}
mkdir -p "$work"
# shellcheck source=emulated-hosts.sh
source "$here/emulated-hosts.sh"
hold_emulated_hosts fabric-isolation-trials 5
hosts=pf1:1,pf2:1,pf3:1,pf4:1

# named KIND FILE: the hosts the report's JSON verdict names, sorted, space-separated.
# fabric: every suspect (host or link, as a-b); collective: the slow nodes of the outlier analysis.
named() {
  "$py" -c "import json, sys
v = json.load(open(sys.argv[2]))
if sys.argv[1] == 'fabric':
    names = ['-'.join(s['hosts']) if s['kind'] == 'link' else s['hosts'][0] for s in v['suspects']]
else:
    names = [o['name'] for r in v['runs'] for o in r['outliers'] if o['kind'] == 'node']
print(' '.join(sorted(names)))" "$1" "$2"
}

# trial KIND PLANT N: one run and its report; prints what was named (or "run failed").
trial() {
  local kind=$1 plant=$2 n=$3 out=$work/$1-$2-$3 args=()
  if [[ $kind == fabric ]]; then
    args=(fabric --transport mpi --tests bandwidth --sizes 8,256K --window 8 --passes 2
          --iters 10 --budget 0.2s)
    [[ $plant == slowed ]] && "$cluster" slow pf3 "$rate"
  else
    args=(comm --op allreduce,allgather,sendrecv --topology world,inter --sizes 8:1M:x8
          --min-iters 40 --iters 40 --budget 2s)
    [[ $plant == slowed ]] && args+=(--test-slow-node 2)
  fi
  timeout 300 "$cluster" mpirun "$hosts" "$bin" "${args[@]}" -o "$out.h5" >"$out.log" 2>&1 9>&-
  local rc=$?
  [[ $kind == fabric && $plant == slowed ]] && "$cluster" unslow pf3
  if [[ $rc -ne 0 ]]; then echo "run failed (exit $rc, $out.log)"; return; fi
  "$report" "$out.h5" --json "$out.json" --html "$out.html" --slow-nodes warn >"$out.report" 2>&1
  [[ -f $out.json ]] || { echo "report failed ($out.report)"; return; }
  named "$kind" "$out.json"
}

failures=0
# count KIND PLANT EXPECTED: runs TRIALS trials, prints each and the count that named EXPECTED.
count() {
  local kind=$1 plant=$2 expected=$3 right=0 got
  for ((i = 1; i <= trials; i++)); do
    got=$(trial "$kind" "$plant" "$i")
    echo "  $kind $plant trial $i: named '${got}'"
    [[ $got == "$expected" ]] && right=$((right + 1))
  done
  echo "$kind $plant: $right of $trials named '${expected}'"
  [[ $right -eq $trials ]] || failures=$((failures + 1))
}

if [[ $part == fabric || $part == all ]]; then
  count fabric slowed pf3
  count fabric clean ""
fi
if [[ $part == collective || $part == all ]]; then
  count collective clean ""
  count collective slowed pf3
fi
[[ $failures -eq 0 ]]
