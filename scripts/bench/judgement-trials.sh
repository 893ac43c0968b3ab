#!/usr/bin/env bash
# Diagnosis both ways on 4 emulated hosts (pf1..pf4, one rank each; scripts/emulated-cluster.sh),
# as issue 33 asks: each scenario runs TRIALS times a campaign of the fabric pair sweep and
# all-reduce and all-gather on world and inter (scripts/bench/judgement.yaml), and counts the
# runs whose report named exactly what was planted, nothing more:
#   clean      nothing planted                       -> nothing named
#   one-host   pf3's link throttled (tbf, RATE)      -> host pf3 alone, no link
#   two-hosts  pf2 and pf4 throttled                 -> hosts pf2 and pf4, nothing else; verdict fail
#   one-pair   only pf1-pf2 traffic throttled (own veth, /32 routes, tbf)  -> link pf1-pf2 alone
#   fabric     every host throttled to a tenth of the pair bandwidth a clean reference run showed,
#              judged against the envelope made from that run (--make-reference)
#                                                    -> the fabric; verdict fail
# "Named" is every suspect of the JSON verdict (host, link, fabric) and every slow node of the
# outlier analysis; a run or report that fails, or writes no JSON, counts as wrong, never as
# "nothing named".
# Needs root. Always removes the emulated hosts, also on failure or Ctrl-C.
#   scripts/bench/judgement-trials.sh [-n TRIALS] [-s SCENARIOS] PREFLIGHT REPORT WORKDIR
#   SCENARIOS: comma-separated (default clean,one-host,two-hosts,one-pair,fabric); env RATE (200mbit)
# Exit 0 when every trial of every scenario was diagnosed right, 1 otherwise.
set -uo pipefail
trials=5 scenarios=clean,one-host,two-hosts,one-pair,fabric
while getopts n:s: o; do
  case $o in
    n) trials=$OPTARG ;;
    s) scenarios=$OPTARG ;;
    *) sed -n '2,22p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[[ $# -eq 3 ]] || { sed -n '2,22p' "$0"; exit 2; }
bin=$(realpath "$1") report=$(realpath "$2") work=$3
here=$(cd "$(dirname "$0")" && pwd)
cluster=$here/../emulated-cluster.sh
campaign=$here/judgement.yaml
py=/usr/bin/python3
rate=${RATE:-200mbit}
mkdir -p "$work"
work=$(realpath "$work")
# shellcheck source=emulated-hosts.sh
source "$here/emulated-hosts.sh"
hold_emulated_hosts judgement-trials 5
hosts=pf1:1,pf2:1,pf3:1,pf4:1

# named FILE.json: what the verdict names, sorted: host:H, link:A-B, fabric, node:H (outliers);
# then "| verdict".
named() {
  "$py" -c "import json, sys
v = json.load(open(sys.argv[1]))
names = set()
for s in v['suspects']:
    names.add(s['kind'] if s['kind'] == 'fabric' else s['kind'] + ':' + '-'.join(s['hosts']))
for r in v['runs']:
    for o in r['outliers']:
        if o['kind'] == 'node':
            names.add('node:' + o['name'])
print(' '.join(sorted(names)) + ' | ' + v['verdict'])" "$1"
}

# run OUT: the campaign on the 4 hosts; fails with the log's tail when preflight fails.
run() {
  rm -f "$1".*  # preflight never overwrites a results file
  timeout 600 "$cluster" mpirun "$hosts" "$bin" run "$campaign" -o "$1.h5" >"$1.log" 2>&1 9>&- ||
    { echo "run failed (exit $?, $1.log)"; return 1; }
}

# report OUT [ARGS]: the report's JSON verdict of OUT.h5; fails when it crashes or writes none.
report() {
  local out=$1; shift
  "$report" "$out.h5" --json "$out.json" --no-color "$@" >"$out.report" 2>&1
  local rc=$?
  [[ $rc -le 3 && $rc -ne 2 && -s $out.json ]] || { echo "report failed (exit $rc, $out.report)"; return 1; }
  "$py" -c "import json, sys; json.load(open(sys.argv[1]))" "$out.json" 2>/dev/null ||
    { echo "report wrote no JSON verdict ($out.json)"; return 1; }
}

plant() {  # plant SCENARIO: throttle what the scenario slows
  case $1 in
    one-host) "$cluster" slow pf3 "$rate" ;;
    two-hosts) "$cluster" slow pf2 "$rate" && "$cluster" slow pf4 "$rate" ;;
    one-pair) "$cluster" slow-pair pf1 pf2 "$rate" ;;
    fabric) for h in pf1 pf2 pf3 pf4; do "$cluster" slow "$h" "$fabric_rate"; done ;;
  esac
}

unplant() {
  for h in pf1 pf2 pf3 pf4; do "$cluster" unslow "$h"; done
  "$cluster" unslow-pair pf1 pf2
}

expected() {  # expected SCENARIO: what must be named, and the verdict (any: not judged)
  case $1 in
    clean) echo " | any" ;;
    one-host) echo "host:pf3 | any" ;;
    two-hosts) echo "host:pf2 host:pf4 | fail" ;;
    one-pair) echo "link:pf1-pf2 | any" ;;
    fabric) echo "fabric | fail" ;;
  esac
}

# The fabric scenario's reference: a clean run made into an envelope, and a tenth of the median
# pair bandwidth it showed at its largest size as the throttle.
make_reference() {
  run "$work/reference" || return 1
  "$report" "$work/reference.h5" --make-reference "$work/site.yaml" >"$work/reference.report" 2>&1 ||
    { echo "--make-reference failed ($work/reference.report)"; return 1; }
  local gbs
  gbs=$("$py" -c "import h5py, sys, numpy as np
f = h5py.File(sys.argv[1], 'r')
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
values = []
for c in f['cases'].values():
    if text(c.attrs['family']) != 'fabric' or 'pair_bandwidth' not in c['stats']: continue
    s = c['stats']
    largest = s['size_bytes'][...].max()
    values += [b for b, g, x in zip(s['pair_bandwidth'][...], s['group'][...], s['size_bytes'][...]) if g >= 0 and x == largest]
print(np.median(values))" "$work/reference.h5") || { echo "cannot read the reference's pair bandwidth"; return 1; }
  fabric_rate=$(awk -v g="$gbs" 'BEGIN {printf "%dmbit", g * 8000 / 10}')
  echo "reference: median pair bandwidth $gbs GB/s; every host throttled to $fabric_rate"
}

failures=0
for scenario in ${scenarios//,/ }; do
  extra=()
  if [[ $scenario == fabric ]]; then
    make_reference || { failures=$((failures + 1)); continue; }
    extra=(--reference "$work/site.yaml")
  fi
  want=$(expected "$scenario")
  [[ -n $want ]] || { echo "unknown scenario $scenario"; exit 2; }
  right=0
  for ((i = 1; i <= trials; i++)); do
    out=$work/$scenario-$i
    plant "$scenario"
    if run "$out" && report "$out" "${extra[@]}"; then got=$(named "$out.json"); else got="(failed)"; fi
    unplant
    ok=0
    [[ ${got% | *} == "${want% | *}" ]] && [[ ${want#* | } == any || ${got#* | } == "${want#* | }" ]] && ok=1
    right=$((right + ok))
    echo "  $scenario trial $i: named '${got% | *}', verdict ${got#* | }$([[ $ok -eq 1 ]] || echo '  <- wrong')"
  done
  echo "$scenario: $right of $trials named '${want% | *}'$([[ ${want#* | } == any ]] || echo " with verdict ${want#* | }")"
  [[ $right -eq $trials ]] || failures=$((failures + 1))
done
[[ $failures -eq 0 ]]
