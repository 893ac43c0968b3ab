#!/usr/bin/env bash
# Diagnosis both ways for the report's slow-node and late-rank analyses (docs/report.md, "Slow
# nodes" and "late ranks"), on one machine: TRIALS runs with the fault planted and TRIALS without,
# alternating, and the count of each that the report judged right, as "planted: N of N named
# EXPECTED" and "clean: N of N named nothing". A run or report that fails, or writes no JSON,
# counts as wrong on both sides.
#   slow-node: 8 ranks as 4 virtual nodes of 2 (--ranks-per-node 2), node 2 made 30% slower
#              per operation (--test-slow-node 2); the report must name node 2 (HOST/v2) and
#              nothing else (its own ranks, 4 and 5, may be named with it, as its evidence).
#   late-rank: 4 ranks as 2 virtual nodes, rank 1 made 1 ms late before each operation
#              (--test-late-rank 1 --test-late-seconds 0.001); the report must name rank 1 late
#              and nothing else.
#   scripts/bench/outlier-trials.sh [-n TRIALS] slow-node|late-rank PREFLIGHT REPORT WORKDIR
# Exit 0 when every trial was judged right.
set -uo pipefail
trials=10
while getopts n: o; do
  case $o in
    n) trials=$OPTARG ;;
    *) sed -n '2,14p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[[ $# -eq 4 ]] || { sed -n '2,14p' "$0"; exit 2; }
kind=$1 bin=$(realpath "$2") report=$(realpath "$3") work=$4
source "$(dirname "$0")/../mpi-env.sh"
mkdir -p "$work"
case $kind in
  slow-node)
    np=8 args=(comm --ranks-per-node 2 --op allreduce,allgather --topology world,intra --sizes 8,64K
                --iters 40 --budget 1s --batch-blocks 5)
    plant=(--test-slow-node 2) expected="node:v2" ;;
  late-rank)
    np=4 args=(comm --op allreduce,allgather --topology world,intra --ranks-per-node 2 --sizes 8,64K
               --iters 5 --budget 1ms)
    plant=(--test-late-rank 1 --test-late-seconds 0.001) expected="late rank:rank 1" ;;
  *) echo "unknown kind $kind (slow-node or late-rank)"; exit 2 ;;
esac

# named FILE.json: every outlier of every run, "KIND:NAME", sorted and space-separated; a virtual
# node's host left out (host/v2 -> v2), and ranks of a named node left out (its evidence).
named() {
  /usr/bin/python3 -c "import json, sys
v = json.load(open(sys.argv[1]))
names = []
for r in v['runs']:
    of_nodes = {k for o in r['outliers'] if o['kind'] == 'node' for k in o['ranks']}
    for o in r['outliers']:
        if o['kind'] == 'rank' and set(o['ranks']) <= of_nodes:
            continue
        names.append(o['kind'] + ':' + (o['name'].split('/')[-1] if o['kind'] == 'node' else o['name']))
print(' '.join(sorted(names)))" "$1"
}

# trial NAME [PLANT...]: one run and its report; prints what was named, or why nothing was.
trial() {
  local out=$work/$1; shift
  rm -f "$out".*  # preflight never overwrites a results file
  mpirun -np "$np" "$bin" "${args[@]}" "$@" -o "$out.h5" >"$out.log" 2>&1 ||
    { echo "(run failed: $out.log)"; return; }
  "$report" "$out.h5" --json "$out.json" --reference none >"$out.report" 2>&1
  local rc=$?
  [[ ($rc -eq 0 || $rc -eq 1 || $rc -eq 3) && -s $out.json ]] || { echo "(report failed: exit $rc)"; return; }
  named "$out.json" || echo "(no JSON verdict)"
}

planted_right=0 clean_right=0
for ((i = 1; i <= trials; i++)); do
  got=$(trial "planted-$i" "${plant[@]}")
  [[ $got == "$expected" ]] && planted_right=$((planted_right + 1))
  echo "  planted trial $i: named '$got'"
  got=$(trial "clean-$i")
  [[ -z $got ]] && clean_right=$((clean_right + 1))
  echo "  clean trial $i: named '$got'"
done
echo "$kind planted: $planted_right of $trials named '$expected'"
echo "$kind clean: $clean_right of $trials named nothing"
[[ $planted_right -eq $trials && $clean_right -eq $trials ]]
