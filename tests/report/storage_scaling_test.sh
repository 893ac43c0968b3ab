#!/usr/bin/env bash
# The report's storage scaling: a storage read at 1 and 2 ranks per node and on the node ladder
# (4 ranks as 2 virtual nodes) becomes one series per engine and block size, aggregate bandwidth
# against ranks, efficiency per rank against the fewest ranks; the HTML draws it as the storage
# scaling chart.
# storage_scaling_test.sh PREFLIGHT PREFLIGHT_REPORT WORKDIR
set -uo pipefail
bin=$1 report=$2 work=$3
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work/data"
run=$work/storage.h5
mpirun -np 4 "$bin" storage --ranks-per-node 2 --dir "$work/data" --engine psync --cache direct --size 4M \
  --block-sizes 1M --scale-ranks-per-node 1,2 --node-ladder true -w 1 --min-iters 3 -n 3 -o "$run" >"$work/run.log" 2>&1 ||
  { fail "preflight storage failed"; tail -5 "$work/run.log"; }
"$report" "$run" --no-color --json "$work/r.json" --html "$work/r.html" >"$work/out" 2>&1
rc=$?
# Exit 0, or 1 where a check failed: the run is real O_DIRECT reads on a disk other tests share,
# where a rank can be slow (seen on CI: rank 3 at 1.43x its peers). The series are the claim.
[[ $rc -eq 0 || $rc -eq 1 ]] && pass "report: exit $rc (0 pass, 1 a check failed: $(grep -m1 '^verdict' "$work/out"))" ||
  { fail "report: exit $rc"; tail -5 "$work/out"; }
/usr/bin/python3 - "$work/r.json" <<'PY' && pass "storage series: agg_bw against ranks per node and against nodes, per-rank efficiency" || fail "storage scaling series"
import json, sys
v = json.load(open(sys.argv[1]))
series = [s for s in v["scaling"] if s["family"] == "storage"]
def check(cond, what):
    if not cond:
        print("FAIL:", what, json.dumps(series, indent=1)[:2000]); sys.exit(1)
check(len(series) == 2, "two series (one engine, one block size): ranks per node, and nodes")
by = {s["topology"]: s for s in series}
check(set(by) == {"ranks per node, on 2 nodes", "nodes, 2 ranks per node"}, f"series {list(by)}")
for s in series:
    check(s["metric"] == "agg_bw" and s["unit"] == "GB/s" and s["band"] == "1 MiB blocks", "agg_bw per block size")
    check(s["points"][0]["efficiency"] == 1.0 and s["reference_ranks"] == s["points"][0]["ranks"], "reference: the fewest ranks")
    last, first = s["points"][-1], s["points"][0]
    check(abs(last["efficiency"] - (last["value"] / last["ranks"]) / (first["value"] / first["ranks"])) < 1e-12, "efficiency per rank")
    check(all(p["value"] > 0 for p in s["points"]), "measured bandwidths")
steps = lambda s: [(p["ranks"], p["nodes"]) for p in s["points"]]
check(steps(by["ranks per node, on 2 nodes"]) == [(2, 2), (4, 2)], "1 and 2 ranks on each of 2 nodes")
check(steps(by["nodes, 2 ranks per node"]) == [(2, 1), (4, 2)], "the node ladder with 2 ranks per node")
for s in series:
    print(s["topology"] + ": " + ", ".join(f"{p['ranks']:g} ranks/{p['nodes']:g} nodes {p['value']:.3g} GB/s ({p['efficiency']:.0%})" for p in s["points"]))
PY
# The page's one chart: aggregate agg_bw against ranks with both curves (ranks per node, nodes).
expected_charts="Storage scaling: aggregate agg_bw vs ranks, 1 MiB blocks: storage: psync direct sequential file-per-rank qd1 x1 [ranks per node, on 2 nodes]; storage: psync direct sequential file-per-rank qd1 x1 [nodes, 2 ranks per node]"
charts=$(/usr/bin/python3 "$(dirname "$0")/html_charts.py" "$work/r.html")
if [[ $charts == "$expected_charts" ]]; then
  pass "HTML: the storage scaling chart, drawn with both curves"
else
  fail "HTML: charts differ from the expected storage scaling chart (< expected, > found)"
  diff <(echo "$expected_charts") <(echo "$charts")
fi
[[ -z $(ls -A "$work/data") ]] && pass "data set removed after the run" || fail "data set left in $work/data"
finish
