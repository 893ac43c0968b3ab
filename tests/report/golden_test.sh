#!/usr/bin/env bash
# Golden report test: a small file written by preflight (one rank's host renamed, with h5py, to
# an HTML injection), reported with acceptance rules that must pass, fail and be inconclusive.
# The Markdown, JSON verdict, JUnit XML and HTML must hold what the rules and the file imply;
# every exit code of the report is produced by its situation.
# golden_test.sh PREFLIGHT PREFLIGHT_REPORT WORKDIR
set -uo pipefail
bin=$1 report=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
run=$work/golden.h5
mpirun -np 4 "$bin" comm --ranks-per-node 1 --op allreduce,allgather --topology world,ladder --sizes 8,64K,1M \
  --min-iters 10 --iters 20 --budget 50ms -o "$run" >/dev/null 2>&1 || fail "preflight could not write $run"
/usr/bin/python3 - "$run" <<'PY'
import h5py, sys, numpy as np
f = h5py.File(sys.argv[1], "r+")
for column, value in (("host", "<script>alert(1)</script>"), ("node_name", "<script>alert(1)</script>/v1")):
    values = [v.decode() if isinstance(v, bytes) else v for v in f["environment"][column][:]]
    values[1] = value
    attrs = dict(f["environment"][column].attrs)
    del f["environment"][column]
    f["environment"][column] = np.array(values, dtype=h5py.string_dtype())
    f["environment"][column].attrs.update(attrs)
PY

rules() {  # rules FILE RULE... (each a YAML mapping on one line)
  local file=$1; shift
  { echo "rules:"; for r in "$@"; do echo "  - $r"; done; } >"$file"
}
pass_rule='{name: busbw at least a trickle, where: {collective: allreduce, topology: world}, metric: busbw, sizes: [1M], expect: 1e-6}'
fail_rule='{name: busbw of a dream, where: {collective: allgather}, metric: busbw, band: medium, expect: 1e6}'
noisy_rule='{name: too few samples, where: {collective: allreduce, topology: world}, metric: busbw, sizes: [64K], expect: 1e-6, min_samples: 100000}'
rules "$work/all.yaml" "$pass_rule" "$fail_rule" "$noisy_rule"
rules "$work/pass.yaml" "$pass_rule"
rules "$work/noisy.yaml" "$pass_rule" "$noisy_rule"

"$report" "$run" --rules "$work/all.yaml" --md "$work/r.md" --json "$work/r.json" --junit "$work/r.xml" \
  --html "$work/r.html" >"$work/out" 2>&1
rc=$?
[[ $rc -eq 1 ]] && pass "a failed check: exit 1" || { fail "expected exit 1, got $rc"; tail -20 "$work/out"; }
# The verdict and its reasons come first, in every output: the failed rule on the first reason
# line of the terminal and of the Markdown, before anything else.
head -1 "$work/out" | grep -q "^verdict: fail (exit 1): " && sed -n 2p "$work/out" | grep -q "^  fail  *busbw of a dream: 6 checks fail in golden; " &&
  pass "terminal opens with the verdict and the failed rule: $(head -1 "$work/out" | cut -c1-100)" ||
  { fail "terminal does not open with the verdict and its reason"; head -3 "$work/out"; }
sed -n 3p "$work/r.md" | grep -q '^\*\*fail (exit 1): ' && grep -m1 '^- \*\*' "$work/r.md" | grep -q 'busbw of a dream' &&
  pass "Markdown opens with the verdict and the failed rule" || { fail "Markdown opening"; head -6 "$work/r.md"; }

/usr/bin/python3 - "$work" <<'PY' && pass "JSON verdict, JUnit and Markdown hold what is expected" || fail "JSON/JUnit/Markdown content"
import json, sys, xml.etree.ElementTree as ET
work = sys.argv[1]
v = json.load(open(f"{work}/r.json"))
def check(cond, what):
    if not cond:
        print("FAIL:", what); sys.exit(1)
check(v["schema"] == "preflight-report-verdict/1", "schema")
check(v["verdict"] == "fail" and v["exit_code"] == 1, "verdict fail, exit 1")
check(v["headline"].startswith("fail (exit 1): ") and v["reasons"] and v["reasons"][0]["kind"] == "fail"
      and "busbw of a dream" in v["reasons"][0]["text"], "headline and the failed rule as the first reason")
ranks_of_trust = [0 if not f["caveat"] else 1 for f in v["findings"]]
check(ranks_of_trust == sorted(ranks_of_trust), "no caveated finding ranks above a sound one")
check(all("virtual nodes" in f["caveat"] for f in v["findings"] if f["caveat"]), "caveats name the virtual nodes")
runs = v["runs"]
check(len(runs) == 1 and runs[0]["world_size"] == 4 and runs[0]["node_count"] == 4 and runs[0]["status"] == "complete", "run")
check(runs[0]["cases"] == 6, f"6 cases (2 ops x (world + the 2- and 4-node ladder steps)), got {runs[0]['cases']}")
check(len(runs[0]["skipped"]) == 1 and "topology ladder 1 node: every group has one rank" in runs[0]["skipped"][0],
      f"the 1-node ladder step of one rank skipped, with its reason: {runs[0]['skipped']}")
by_rule = {}
for c in v["checks"]:
    by_rule.setdefault(c["rule"], []).append(c)
check([c["verdict"] for c in by_rule["run completed"]] == ["pass"], "run completed")
check(len(by_rule["results correct"]) == 6 and all(c["verdict"] == "pass" for c in by_rule["results correct"]), "6 cases correct")
p = by_rule["busbw at least a trickle"]
check(len(p) == 1 and p[0]["verdict"] == "pass" and p[0]["size"] == "1048576 B" and p[0]["value"] > 1e-6, f"pass rule {p}")
check(p[0]["ci_low"] <= p[0]["value"] <= p[0]["ci_high"] and p[0]["samples"] >= 10, "pass rule interval and samples")
f = by_rule["busbw of a dream"]
# allgather at 64 KiB and 1 MiB (medium band) on the 2- and 4-node ladder steps and world; the
# 1-node step has one rank, moves no data, and is not judged.
check(len(f) == 6 and all(c["verdict"] == "fail" for c in f), f"fail rule: {[(c['case'], c['size'], c['verdict']) for c in f]}")
check(all(c["threshold"] == 1e6 * 0.9 for c in f) and all("below the threshold" in c["reason"] for c in f), "fail rule threshold and reason")
n = by_rule["too few samples"]
check(len(n) == 1 and n[0]["verdict"] == "inconclusive" and "fewer than the 100000" in n[0]["reason"], "inconclusive rule")
counts = v["counts"]
check(counts["fail"] == len(f) and counts["inconclusive"] == 1 and counts["pass"] == 1 + 6 + 1, f"counts {counts}")
chain = ["correctness", "data in", "compute", "communication", "checkpoint", "training step", "stragglers and hardware", "measurement quality"]
for caveated in (False, True):  # sound findings in chain order, then the caveated ones in chain order
    stages = [x["stage"] for x in v["findings"] if bool(x["caveat"]) == caveated]
    check(stages == sorted(stages, key=chain.index), f"findings in chain order (caveated: {caveated})")
check(any("virtual nodes" in x["title"] and not x["trustworthy"] for x in v["findings"]), "virtual nodes flagged as measurement quality")
check("data in" in v["not_measured"] and "compute" in v["not_measured"] and "communication" not in v["not_measured"], "not measured: the schema's stages no case declares")
ladder = [s for s in v["scaling"] if s["topology"] == "ladder" and s["subject"].endswith("allreduce float32 sum out-of-place")]
check(len(ladder) == 2 and {s["band"] for s in ladder} == {"small", "medium"}, f"allreduce ladder series by band: {[(s['subject'], s['band']) for s in ladder]}")
for s in ladder:
    ref = [p for p in s["points"] if p["nodes"] == s["reference_nodes"]]
    check(s["reference_nodes"] == 2 and ref[0]["efficiency"] == 1.0, "efficiency 1 at the 2-node reference")
    check([p["nodes"] for p in s["points"]] == [2, 4], "one-rank step left out (no bus transfer)")
fits = [x for x in v["fits"] if x["collective"] == "allreduce" and x["topology"] == "ladder"]
check(len(fits) == 1 and fits[0]["alpha_s"] >= 0 and fits[0]["beta_s_per_byte"] > 0 and fits[0]["points"] == 6, f"allreduce ladder fit {fits}")
check(any(p["nodes"] == 8 and p["tree_s"] is not None for p in fits[0]["predictions"]), "predictions at 8 nodes with tree")

root = ET.parse(f"{work}/r.xml").getroot()
cases = root.findall(".//testcase")
check(len(cases) == len(v["checks"]) and int(root.get("tests")) == len(cases), "one JUnit test case per check")
check(int(root.get("failures")) == counts["fail"] and len(root.findall(".//failure")) == counts["fail"], "JUnit failures")
skipped = [e.get("message") for e in root.findall(".//skipped")]
check(len(skipped) == counts["inconclusive"] + counts["not_measured"] and
      sum(m.startswith("inconclusive: ") for m in skipped) == 1,
      "JUnit: the inconclusive check is skipped, and reference figures not measured")

md = open(f"{work}/r.md").read()
check(md.startswith("# preflight report: fail\n"), "Markdown headline")
for heading in ("## Runs", "## Bottlenecks, most important first", f"## Acceptance checks: {counts['pass']} pass, {counts['fail']} fail, 1 inconclusive", "## Scaling", "## Latency and bandwidth (alpha-beta) fits"):
    check(heading in md, f"Markdown section {heading}")
check("| **fail** | busbw of a dream |" in md and "| **inconclusive** | too few samples |" in md and "| pass | busbw at least a trickle |" in md, "Markdown check rows")
check("<script" not in md, "Markdown holds no raw HTML from the file")
PY

# HTML: self-contained, the injected host name escaped, and the charts inline: the ladder's
# busbw per band (small, medium) with both collectives, and busbw against size per collective
# with world and the multi-node ladder steps; each by its title and its series' legends.
html=$work/r.html
if grep -qF "&lt;script&gt;alert(1)&lt;/script&gt;" "$html" && ! grep -qi "<script" "$html" &&
  ! grep -qE "(src|href)=\"https?:" "$html"; then
  pass "HTML: host name escaped, no script, no external resource"
else
  fail "HTML: escaping or self-containedness"
fi
expected_charts="comm busbw vs nodes, medium sizes: comm: allgather float32 out-of-place [ladder]; comm: allreduce float32 sum out-of-place [ladder]
comm busbw vs nodes, small sizes: comm: allgather float32 out-of-place [ladder]; comm: allreduce float32 sum out-of-place [ladder]
comm busbw allreduce float32 sum out-of-place: world; ladder 2 nodes; ladder 4 nodes
comm busbw allgather float32 out-of-place: world; ladder 2 nodes; ladder 4 nodes"
charts=$(/usr/bin/python3 "$here/html_charts.py" "$html")
if [[ $charts == "$expected_charts" ]]; then
  pass "HTML: the $(grep -c . <<<"$expected_charts") expected charts, inline, each with its series"
else
  fail "HTML: charts differ from the expected ones (< expected, > found)"
  diff <(echo "$expected_charts") <(echo "$charts")
fi
# The comparison can fail: the same page less its first chart is caught.
/usr/bin/python3 - "$html" "$work/fewer-charts.html" <<'PY'
import re, sys
page = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(re.sub(r'<figure class="chart" id="chart-\d+">.*?</figure>\n', "", page, count=1, flags=re.S))
PY
fewer=$(/usr/bin/python3 "$here/html_charts.py" "$work/fewer-charts.html")
[[ $fewer != "$expected_charts" ]] &&
  pass "HTML: a page missing a chart is caught" || fail "HTML: a page missing a chart passes"
grep -q "Storage scaling" "$html" && fail "HTML: a storage chart without storage results" || pass "HTML: no storage chart without storage results"

# Instance comparison: a copy of the run as a second instance type, half as fast (times doubled,
# bandwidths halved, with h5py) but at 40% of the price, wins every row per dollar, and none
# clearly: the run has one repetition, so there is no run-to-run noise to judge a lead against
# (clear wins from repetitions: unit test Instances.*). One-rank steps move no data: no row.
cp "$run" "$work/slow-cheap.h5"
/usr/bin/python3 - "$work/slow-cheap.h5" <<'PY'
import h5py, sys
f = h5py.File(sys.argv[1], "r+")
for c in f["cases"].values():
    for name, d in c["stats"].items():
        if name.startswith("time_") and name != "time_cv" or name.startswith("median_ci") or name.startswith("batched_time"):
            d[...] = d[...] * 2
        elif d.attrs.get("direction") in ("higher", b"higher"):
            d[...] = d[...] / 2
    for p in c["points"].values():
        p["samples"][...] = p["samples"][...] * 2
PY
printf 'currency: EUR\ninstances:\n  - {name: fast, price_per_hour: 10}\n  - {name: slow-cheap, price_per_hour: 4}\n' >"$work/prices.yaml"
"$report" "$run" "$work/slow-cheap.h5" --label fast --label slow-cheap --prices "$work/prices.yaml" --json "$work/i.json" \
  --md "$work/i.md" >"$work/out" 2>&1
/usr/bin/python3 - "$work/i.json" "$work/i.md" <<'PY' && pass "instances: the half-as-fast, 40%-price type wins every row per EUR" || fail "instance comparison"
import json, sys
v = json.load(open(sys.argv[1]))["instances"]
rows = v["rows"]
ok = v["labels"] == ["fast", "slow-cheap"] and v["prices_per_hour"] == [10, 4] and v["currency"] == "EUR"
ok = ok and len(rows) > 0 and v["wins"] == [0, len(rows)] and all(r["winner"] == "slow-cheap" for r in rows) and not any(r["clear"] for r in rows)
ok = ok and all(abs(r["cells"][1]["per_dollar"] / r["cells"][0]["per_dollar"] - 1.25) < 1e-9 for r in rows if r["cells"][0]["per_dollar"])
ok = ok and "## Instance comparison" in open(sys.argv[2]).read()
print(len(rows), "rows") if ok else print(json.dumps(rows[:2], indent=1))
sys.exit(0 if ok else 1)
PY
"$report" "$run" "$work/slow-cheap.h5" --prices "$work/prices.yaml" >"$work/out" 2>&1
[[ $? -eq 2 ]] && grep -q "no price for instance 'golden'" "$work/out" && pass "instances: a label without a price: exit 2, '$(head -1 "$work/out")'" ||
  fail "instances: a label without a price"

"$report" "$run" --rules "$work/pass.yaml" >/dev/null 2>&1
[[ $? -eq 0 ]] && pass "all checks pass: exit 0" || fail "all pass: expected exit 0"
"$report" "$run" --rules "$work/noisy.yaml" >/dev/null 2>&1
[[ $? -eq 3 ]] && pass "an inconclusive check, none failed: exit 3" || fail "inconclusive: expected exit 3"
echo "rules: [{metric: busbw, expct: 3}]" >"$work/bad.yaml"
"$report" "$run" --rules "$work/bad.yaml" --json "$work/bad.json" >"$work/out" 2>&1
[[ $? -eq 2 ]] && grep -q "unknown key 'expct'" "$work/out" && [[ ! -e $work/bad.json ]] &&
  pass "bad rules: exit 2, '$(head -1 "$work/out")', nothing written" || fail "bad rules: expected exit 2 and the key named"
(cd "$work" && "$report" golden.h5 --html rel.html --md rel.md >/dev/null 2>&1) && [[ -s $work/rel.html && -s $work/rel.md ]] &&
  pass "relative output paths are written" || fail "relative output paths"
cp "$work/pass.yaml" "$work/keep-rules.yaml"
"$report" "$run" --rules "$work/keep-rules.yaml" --md "$work/keep-rules.yaml" >"$work/out" 2>&1
[[ $? -eq 2 ]] && cmp -s "$work/pass.yaml" "$work/keep-rules.yaml" && pass "an output onto the rules file is refused" ||
  fail "output onto the rules file"
printf 'rules:\n  - {metric: busbw, expect: 1, where: {[a]: x}}\n' >"$work/shape.yaml"
"$report" "$run" --rules "$work/shape.yaml" >"$work/out" 2>&1
[[ $? -eq 2 ]] && grep -q "shape.yaml:2:" "$work/out" && pass "a rules file of the wrong shape: exit 2, '$(head -1 "$work/out")'" ||
  { fail "a rules file of the wrong shape"; cat "$work/out"; }
cp "$run" "$work/keep.h5"
(cd "$work" && "$report" keep.h5 --html ./keep.h5) >"$work/out" 2>&1
[[ $? -eq 2 ]] && cmp -s "$run" "$work/keep.h5" && pass "an output onto an input is refused, the input kept: '$(head -1 "$work/out")'" ||
  fail "output onto an input"
# A file that cannot be written (its directory is there, but /proc takes no new file): exit 2 with
# its reason; the files beside it, rendered at the same time, are still written whole (the HTML,
# the first one a report writes, fails here: every file is attempted).
"$report" "$run" --html /proc/self/r.html --json "$work/beside.json" --md "$work/beside.md" >"$work/out" 2>&1
[[ $? -eq 2 ]] && grep -q "cannot write /proc/self/r.html" "$work/out" &&
  /usr/bin/python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$work/beside.json" && [[ -s $work/beside.md ]] &&
  pass "an output that cannot be written: exit 2, '$(grep -o 'cannot write /proc/self/r.html: [A-Za-z ]*' "$work/out")', the others written" ||
  { fail "an output that cannot be written"; tail -3 "$work/out"; }
finish
