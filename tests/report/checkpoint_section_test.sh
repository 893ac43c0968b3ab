#!/usr/bin/env bash
# The report's checkpoint section: from a save (durable) and a restore after eviction on 2
# virtual nodes, the Young-Daly interval and the run time lost at it and at the planned interval,
# in every output (terminal, Markdown, HTML, JSON), with its chart of lost fraction against the
# interval. The figures are re-derived here from the results file: the save time is the save
# case's blocking_s, the restore time bytes / agg_bw of the restore case, the job MTBF the
# node MTBF over the job's nodes.
# checkpoint_section_test.sh PREFLIGHT PREFLIGHT_REPORT WORKDIR
set -uo pipefail
bin=$1 report=$2 work=$3
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work/data"
run=$work/ckpt.h5
mpirun -np 4 "$bin" checkpoint --ranks-per-node 2 --dir "$work/data" --size 2M --block-sizes 256K,1M \
  --node-mtbf 2000h --job-nodes 512 --planned-interval 20m -w 1 --min-iters 3 -n 3 -o "$run" \
  >"$work/run.log" 2>&1 || { fail "preflight checkpoint failed"; tail -5 "$work/run.log"; }
"$report" "$run" --no-color --json "$work/r.json" --md "$work/r.md" --html "$work/r.html" >"$work/out" 2>&1
rc=$?
[[ $rc -eq 0 || $rc -eq 1 || $rc -eq 3 ]] && pass "report written (exit $rc: the verdict, which a busy machine may fail)" || { fail "report: exit $rc"; tail -5 "$work/out"; }
expect "terminal: the checkpoint section" grep -q "^## Checkpoint interval" "$work/out"
expect "terminal: the formula and its inputs" grep -q "tau\* = sqrt(2 x delta x M)" "$work/out"
expect "terminal: the chart's points" grep -q "chart: Run time lost against checkpoint interval" "$work/out"
expect "Markdown: the checkpoint section" grep -q "^## Checkpoint interval" "$work/r.md"
expect "Markdown: the chart's points" grep -q "Chart: Run time lost against checkpoint interval" "$work/r.md"
/usr/bin/python3 - "$work/r.json" "$run" <<'PY' && pass "JSON: tau*, lost fractions and the chart re-derived from the results file" || fail "JSON: checkpoint section"
import json, math, re, sys
import h5py, numpy as np
v = json.load(open(sys.argv[1]))
f = h5py.File(sys.argv[2], "r")
text = lambda x: x.decode() if isinstance(x, bytes) else str(x)
def check(cond, what):
    if not cond:
        print("FAIL:", what); sys.exit(1)
sections = [s for s in v["sections"] if s["id"] == "checkpoint-interval"]
check(len(sections) == 1, "one checkpoint section")
s = sections[0]
cases = {text(c.attrs["name"]): c for c in f["cases"].values()}
saves = [c for c in cases.values() if text(c.attrs["phase"]) == "save"]
restores = [c for c in cases.values() if text(c.attrs["phase"]) == "restore"]
check(len(s["rows"]) == len(saves) == 1 and len(restores) == 1, "one row per save case")
row = dict(zip(s["header"], s["rows"][0]))
save = saves[0]
delta = float(np.nanmin(save["stats"]["blocking_s"][:]))
mtbf = float(save.attrs["node_mtbf_s"]) / int(save.attrs["job_nodes"])
check(math.isclose(mtbf, 2000 * 3600 / 512), "job MTBF = node MTBF / job nodes")
r = restores[0]
bw = r["stats"]["agg_bw"][:]
restore = max(float(r.attrs["bytes_per_rank"]) * int(r.attrs["ranks"]) / (b * 1e9) for b in bw)
tau = math.sqrt(2 * delta * mtbf)
nums = [float(x) for x in re.findall(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?", row["arithmetic"])]
# "tau* = sqrt(2 x D s x M s) = T s; ..." : D, M and T as the report shows them (4 digits).
check(math.isclose(nums[1], delta, rel_tol=1e-3), f"save time {nums[1]} is blocking_s {delta}")
check(math.isclose(nums[2], mtbf, rel_tol=1e-3), f"M {nums[2]} is {mtbf}")
check(math.isclose(nums[3], tau, rel_tol=1e-3), f"tau* {nums[3]} is sqrt(2 x {delta} x {mtbf}) = {tau}")
lost = 2 * math.sqrt(delta / (2 * mtbf)) + restore / mtbf
check(row["lost at tau*"] == f"{lost * 100:.3g}%", f"lost at tau* {row['lost at tau*']}, expected {lost * 100:.3g}%")
planned = 20 * 60
lost_plan = delta / planned + planned / (2 * mtbf) + restore / mtbf
check(row["lost at plan"] == f"{lost_plan * 100:.3g}%", f"lost at plan {row['lost at plan']}, expected {lost_plan * 100:.3g}%")
chart = s["charts"][0]
check(chart["title"] == "Run time lost against checkpoint interval" and len(chart["series"]) == 1, "the chart")
series = chart["series"][0]
check(min(series["x"]) < tau / 60 < max(series["x"]), "the chart spans tau*")
for x, y in zip(series["x"], series["y"]):
    t = x * 60
    check(math.isclose(y, 100 * (delta / t + t / (2 * mtbf) + restore / mtbf), rel_tol=1e-3), f"lost at {t} s")
check(min(series["y"]) >= lost * 100 * (1 - 1e-3), "no point of the curve below its minimum at tau*")
print(f"delta {delta:.4g} s, R {restore:.4g} s, M {mtbf:.4g} s: tau* {tau:.4g} s, lost {lost:.3%}, at 20 min {lost_plan:.3%}")
PY
charts=$(/usr/bin/python3 "$(dirname "$0")/html_charts.py" "$work/r.html")
expect "HTML: the lost-fraction chart is drawn ($(echo "$charts" | grep -c .) charts)" \
  grep -q "^Run time lost against checkpoint interval: save psync durable file-per-rank qd1" <<<"$charts"
expect "HTML: no broken chart" test -z "$(grep -E '^(BROKEN|NOT DRAWN)' <<<"$charts")"
expect "HTML: the checkpoint section" grep -q '<h2 id="checkpoint-interval">' "$work/r.html"
[[ -z $(ls -A "$work/data") ]] && pass "checkpoint removed after the run" || fail "checkpoint left in $work/data"
finish
