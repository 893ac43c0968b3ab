#!/usr/bin/env bash
# The correctness family's diagnosis both ways (docs/correctness.md): TRIALS runs with rank 2's
# results corrupted (--test-corrupt-rank 2 --test-corrupt-every EVERY: one bit of every EVERY-th
# GEMM result and received collective buffer flipped) and TRIALS clean runs, each followed by the
# report; counts the runs whose JSON verdict names exactly rank 2 (planted) and names nothing at
# all (clean: no suspect of any kind, no slow node), in two layouts:
#   cpu:   4 ranks on this machine (one host: rank 2 is named as HOST:2)
#   hosts: 4 emulated hosts pf1..pf4, one rank each (scripts/emulated-cluster.sh; rank 2 is on
#          pf3: named as pf3:2). Needs root.
# A run that fails where it should not (a clean run's exit code other than 0, a planted run's
# other than 1: wrong results), or a report that crashes or writes no verdict, counts as a wrong
# trial, never as a clean one.
#   scripts/bench/correctness-trials.sh [-n TRIALS] [-p cpu|hosts|all] [-e EVERY] PREFLIGHT REPORT WORKDIR
# Exit 0 when every trial was diagnosed right, 1 otherwise.
set -uo pipefail
trials=10 part=all every=7
while getopts n:p:e: o; do
  case $o in
    n) trials=$OPTARG ;;
    p) part=$OPTARG ;;
    e) every=$OPTARG ;;
    *) sed -n '2,15p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[[ $# -eq 3 ]] || { sed -n '2,15p' "$0"; exit 2; }
[[ $part == cpu || $part == hosts || $part == all ]] || { sed -n '2,15p' "$0"; exit 2; }
bin=$(realpath "$1") report=$(realpath "$2") work=$3
here=$(cd "$(dirname "$0")" && pwd)
cluster=$here/../emulated-cluster.sh
py=/usr/bin/python3
mkdir -p "$work"
work=$(realpath "$work")

# The checks: GEMM determinism at two small shapes and the MPI collective sweep (every algorithm
# Open MPI offers for all-reduce and all-gather) at two sizes; 30 timed iterations each.
args=(correctness --checks gemm,collective --gemm-backend openblas --sizes 64,192 --threads 1
      --comm-backend mpi --collectives allreduce,allgather --comm-sizes 64,64K
      --warmup 2 --min-iters 30 --iters 30 --budget 5s)

# named FILE: what the JSON verdict names, sorted, space-separated: each device suspect as
# HOST:RANK, any other suspect as its hosts, each slow node of the outlier analysis.
named() {
  "$py" -c "import json, sys
v = json.load(open(sys.argv[1]))
names = set()
for s in v['suspects']:
    if s['kind'] == 'device':
        names.add('{}:{}'.format(s['hosts'][0], s['rank']))
    else:
        names.add(s['kind'] + ' ' + '-'.join(s['hosts']))
for r in v['runs']:
    for o in r['outliers']:
        if o['kind'] == 'node':
            names.add('slow ' + o['name'])
print(' '.join(sorted(names)))" "$1"
}

# trial LAYOUT PLANT N: one run and its report; prints what was named, or why there is nothing.
trial() {
  local layout=$1 plant=$2 n=$3 out=$work/$1-$2-$3 extra=() want_rc=0
  if [[ $plant == planted ]]; then
    extra=(--test-corrupt-rank 2 --test-corrupt-every "$every")
    want_rc=1
  fi
  rm -f "$out.h5" "$out.json"
  if [[ $layout == hosts ]]; then
    timeout 600 "$cluster" mpirun pf1:1,pf2:1,pf3:1,pf4:1 "$bin" "${args[@]}" "${extra[@]}" \
      -o "$out.h5" >"$out.log" 2>&1 9>&-
  else
    OMPI_MCA_mpi_yield_when_idle=1 timeout 600 mpirun --allow-run-as-root --oversubscribe -np 4 \
      "$bin" "${args[@]}" "${extra[@]}" -o "$out.h5" </dev/null >"$out.log" 2>&1 9>&-
  fi
  local rc=$?
  if [[ $rc -ne $want_rc ]]; then echo "run ended with exit $rc, not $want_rc ($out.log)"; return; fi
  "$report" "$out.h5" --json "$out.json" >"$out.report" 2>&1
  [[ -s $out.json ]] || { echo "report wrote no verdict ($out.report)"; return; }
  named "$out.json" || echo "verdict unreadable ($out.json)"
}

failures=0
# count LAYOUT PLANT EXPECTED: TRIALS trials; prints each and how many named exactly EXPECTED.
count() {
  local layout=$1 plant=$2 expected=$3 right=0 got
  for ((i = 1; i <= trials; i++)); do
    got=$(trial "$layout" "$plant" "$i")
    echo "  $layout $plant trial $i: named '${got}'"
    [[ $got == "$expected" ]] && right=$((right + 1))
  done
  echo "$layout $plant: $right of $trials named '${expected}'"
  [[ $right -eq $trials ]] || failures=$((failures + 1))
}

if [[ $part == cpu || $part == all ]]; then
  host=$(hostname)
  count cpu planted "$host:2"
  count cpu clean ""
fi
if [[ $part == hosts || $part == all ]]; then
  # shellcheck source=emulated-hosts.sh
  source "$here/emulated-hosts.sh"
  hold_emulated_hosts correctness-trials 5
  count hosts planted "pf3:2"
  count hosts clean ""
fi
[[ $failures -eq 0 ]]
