#!/usr/bin/env bash
# On 4 emulated hosts (network namespaces, scripts/emulated-cluster.sh): with pf3's link slowed
# both ways (tc tbf), the report's pair matrix names pf3 and nothing else; with nothing slowed
# it names no node and no link. One trial each (scripts/bench/fabric-isolation-trials.sh runs
# the 10 + 10 of docs/fabric.md). Skipped (exit 77) where network namespaces cannot be made.
# fabric_isolation_test.sh PREFLIGHT REPORT WORKDIR [PART]
set -uo pipefail
bin=$1 report=$2 work=$3 part=${4:-fabric}
here=$(cd "$(dirname "$0")" && pwd)
if [[ $(id -u) -ne 0 ]] || ! ip netns add pf-probe 2>/dev/null; then
  echo "SKIPPED: needs root and network namespaces"
  exit 77
fi
ip netns del pf-probe
rm -rf "$work" && mkdir -p "$work"
"$here/../../scripts/bench/fabric-isolation-trials.sh" -n 1 -p "$part" "$bin" "$report" "$work"
rc=$?
# The slowed run's HTML draws the pair matrix as a heat map, pf3's cells apart from the rest.
if [[ $part == fabric ]]; then
  html=$work/fabric-slowed-1.html
  if grep -q '<table class="heatmap"><caption>bandwidth at 262144 B, first pass (GB/s)' "$html" &&
    [[ $(grep -o 'background:hsl(' "$html" | wc -l) -eq 12 ]]; then
    echo "ok:   the HTML draws the 4 x 4 pair matrix as a heat map (12 measured cells)"
  else
    echo "FAIL: no heat map of the pair matrix in $html"
    rc=1
  fi
fi
exit $rc
