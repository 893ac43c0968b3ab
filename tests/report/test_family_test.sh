#!/usr/bin/env bash
# preflight-report on the test family "pace" (tests/family/), a family the report has never
# heard of and no file under reports/ names: it must judge it from the file's declaration
# alone. 4 ranks on 4 virtual nodes; in the planted runs rank 2 does 1.5x the work of each
# operation (the family's own slow_rank, not the harness's). Both ways: in every planted trial
# rank 2 and its node alone are named; in every clean trial nothing is named, and two clean
# runs show no size slower or faster. Its cases appear in scaling, peer outliers, an acceptance rule on its
# headline metric, regression, the bottleneck chain, the HTML chart, JSON, Markdown and JUnit.
# test_family_test.sh PREFLIGHT_TEST_FAMILY PREFLIGHT_REPORT WORKDIR [TRIALS]
set -uo pipefail
bin=$1 report=$2 work=$3 trials=${4:-3}
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
run() {  # run OUT [slow rank]: 6 repetitions, so that a regression is judged against the
  # run-to-run noise they show, not against the iterations of one run. Six: the rank test of
  # 6 v 6 reaches 0.0022 at best, enough for two sizes of six together (Benjamini-Hochberg at
  # 0.01: 0.0033) and not for a lone one (0.0017), which one launch can shift.
  local out=$1 slow=${2:--1}
  cat >"$out.yaml" <<YAML
campaign: {name: pace-test, ranks_per_node: 1, repetitions: 6}
timing: {warmup: 2, min_iters: 10, max_iters: 20, budget: 0.1s, batch_blocks: 2}
benchmarks:
  - {name: pace, family: pace, units: [2000, 8000], scaling: aggregate, slow_rank: $slow}
YAML
  mpirun -np 4 "$bin" run "$out.yaml" -o "$out" >"$out.log" 2>&1 ||
    { fail "preflight_test_family run $out.yaml failed"; tail -20 "$out.log"; }
}
named() {  # named FILE: the outliers the JSON verdict names, one "kind name ranks" a line
  /usr/bin/python3 -c '
import json, sys
for o in json.load(open(sys.argv[1])).get("outliers", []):
    print(o["kind"], o["name"], ",".join(str(r) for r in o["ranks"]))' "$1"
}
outliers_json() {  # outliers_json RESULTS OUT.json RC: the report's JSON outliers of one run.
  # Fails, saying why, unless the report exits RC and writes a JSON verdict that parses and has
  # its runs: a report that crashed or wrote nothing must not read as "nothing named".
  local rc
  rm -f "$2"
  "$report" "$1" --json "$2" >"$2.out" 2>&1
  rc=$?
  [[ $rc -eq $3 ]] || { echo "report on $1: exit $rc, expected $3: $(tail -3 "$2.out")"; return 1; }
  /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
out = [o for r in d["runs"] for o in r.get("outliers", [])]
json.dump({"outliers": out}, open(sys.argv[1], "w"))' "$2" 2>"$2.err" ||
    { echo "report on $1: exit $rc, but its JSON is missing or unreadable: $(tail -1 "$2.err")"; return 1; }
}

planted_ok=0 clean_ok=0 same_ok=0
for t in $(seq 1 "$trials"); do
  run "$work/planted$t.h5" 2
  run "$work/clean$t.h5"
  # Planted: the slow rank fails the check "no slow nodes or ranks" (exit 1); clean: exit 0.
  if outliers_json "$work/planted$t.h5" "$work/planted$t.outliers.json" 1; then
    p=$(named "$work/planted$t.outliers.json")
    # Only rank 2, as a node (vm/v2) and as a rank: nothing else.
    if [[ -n $p ]] && ! grep -vqE ' 2$' <<<"$p" && grep -q '^node ' <<<"$p"; then
      planted_ok=$((planted_ok + 1))
    else
      echo "trial $t planted: named: ${p:-nothing}"
    fi
  else
    echo "trial $t planted: not judged (above)"
  fi
  if outliers_json "$work/clean$t.h5" "$work/clean$t.outliers.json" 0; then
    c=$(named "$work/clean$t.outliers.json")
    [[ -z $c ]] && clean_ok=$((clean_ok + 1)) || echo "trial $t clean: named: $c"
  else
    echo "trial $t clean: not judged (above)"
  fi
  if [[ $t -gt 1 ]]; then
    rm -f "$work/same$t.json"
    "$report" "$work/clean$t.h5" --baseline "$work/clean1.h5" --json "$work/same$t.json" \
      >"$work/same$t.out" 2>&1
    rc=$?
    # Two clean runs: no size slower or faster (undecided is allowed: the repetitions are the
    # replicates, and a shift between runs that they cannot tell from noise is no change). The
    # report must have judged: exit 0 (nothing changed) or 3 (undecided, or the hosts' load
    # differed), and a JSON whose regressions hold the compared points.
    flagged=$(/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
points = [p for s in d["regressions"] for p in s["points"]]
assert points, "no compared point"
print(sum(1 for p in points if p["verdict"] in ("slower", "faster")))' "$work/same$t.json" 2>"$work/same$t.err")
    [[ ($rc -eq 0 || $rc -eq 3) && -n $flagged && $flagged -eq 0 ]] && same_ok=$((same_ok + 1)) ||
      echo "trial $t: two clean runs: exit $rc, ${flagged:-no readable JSON ($(tail -1 "$work/same$t.err"))} size(s) flagged: $(grep -E -m3 ' (slower|faster) ' "$work/same$t.out")"
  fi
done
[[ $planted_ok -eq $trials ]] && pass "planted rank 2 (and its node alone) named in $planted_ok of $trials trials" ||
  fail "planted rank 2 named alone in only $planted_ok of $trials trials (the others: above)"
[[ $clean_ok -eq $trials ]] && pass "nothing named in $clean_ok of $trials clean trials" ||
  fail "nothing named in only $clean_ok of $trials clean trials (the others named something or could not be judged: above)"
[[ $same_ok -eq $((trials - 1)) ]] &&
  pass "two clean runs: no size slower or faster in $same_ok of $((trials - 1)) pairs" ||
  fail "two clean runs: a size flagged in $((trials - 1 - same_ok)) of $((trials - 1)) pairs"

cat >"$work/rules.yaml" <<'YAML'
rules:
  - name: pace throughput
    where: {family: pace}
    metric: units_per_s
    expect: 1
    tolerance: 10%
YAML
# Two separately measured runs: their hosts' load may differ by more than the report compares
# across (3 points; the hypervisor's steal moves between runs on a shared VM), which would
# withhold the verdict. Copies with the same load planted keep this test about the outputs.
for f in planted1 clean1; do
  cp "$work/$f.h5" "$work/$f.sameload.h5"
  /usr/bin/python3 -c '
import h5py, sys
with h5py.File(sys.argv[1], "r+") as f:
    for c in f["cases"]:
        f["cases"][c].attrs["host_cpu_stolen"] = 0.0
        f["cases"][c].attrs["host_cpu_foreign"] = 0.0
        f["cases"][c].attrs["host_cpu_s"] = 1.0' "$work/$f.sameload.h5"
done
"$report" "$work/planted1.sameload.h5" --baseline "$work/clean1.sameload.h5" --rules "$work/rules.yaml" \
  --json "$work/r.json" --md "$work/r.md" --junit "$work/r.xml" --html "$work/r.html" \
  >"$work/out.txt" 2>&1
rc=$?
[[ $rc -eq 1 ]] && pass "planted against clean, with rules: exit 1 (slower)" ||
  { fail "planted against clean: exit $rc, expected 1"; tail -20 "$work/out.txt"; }
/usr/bin/python3 - "$work/r.json" <<'PY' && pass "JSON: scaling, outliers, rule, regression and findings hold the family" || fail "JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
def check(cond, what):
    if not cond:
        print("FAIL:", what); sys.exit(1)
scaling = [s for s in d["scaling"] if s["metric"] == "units_per_s"]
check(len(scaling) == 2 and all(s["aggregate"] for s in scaling), f"two aggregate scaling series of units_per_s: {scaling}")
check(all([p["ranks"] for p in s["points"]] == [1, 2, 4] for s in scaling), "scaling over 1, 2, 4 ranks")
check(sorted(s["band"] for s in scaling) == ["2000 units", "8000 units"], "one series per point (each_point bands)")
rule = [c for c in d["checks"] if c["rule"] == "pace throughput"]
check(len(rule) == 36 and all(c["verdict"] == "pass" for c in rule), f"the rule judged at 6 points x 6 repetitions: {len(rule)}")
check(all(c["metric"] == "units_per_s" for c in rule), "the rule's metric")
slower = [p for s in d["regressions"] for p in s["changed"] if p["verdict"] == "slower"]
check(len(slower) == 2 and all(p["case"].startswith("pace aggregate 4 nodes") and
                               p["baseline_replicates"] == p["current_replicates"] == 6 for p in slower),
      f"the planted run is slower than the clean one where rank 2 ran (4 nodes), at both points, judged on 6 v 6 repetitions: {slower}")
stages = [f["stage"] for f in d["findings"]]
check("stragglers and hardware" in stages, f"a straggler finding: {stages}")
straggler = [f for f in d["findings"] if f["stage"] == "stragglers and hardware"]
check(all("vm/v2" in f["title"] for f in straggler), f"the straggler finding names vm/v2: {straggler}")
check("compute" not in d["not_measured"], f"compute measured: {d['not_measured']}")
check("communication" in d["not_measured"], f"communication not measured: {d['not_measured']}")
PY
grep -q 'units\\_per\\_s' "$work/r.md" && grep -q 'vm/v2' "$work/r.md" && grep -q 'pace throughput' "$work/r.md" &&
  pass "Markdown: the metric, the slow node and the rule" || fail "Markdown lacks the metric, node or rule"
[[ $(grep -c '<testcase classname="preflight.pace throughput"' "$work/r.xml") -eq 36 ]] &&
  grep -q 'name="results correct: 000002 pace aggregate 4 nodes"' "$work/r.xml" &&
  pass "JUnit: the rule at 6 points x 6 repetitions and the family's cases" || fail "JUnit lacks the rule or the cases"
# The sections' charts (html_charts.py leaves out the first screen's copy of one of them).
charts=$(/usr/bin/python3 "$(dirname "$0")/html_charts.py" "$work/r.html" |
  grep -c '^Pace scaling: aggregate units_per_s vs ranks')
[[ $charts -eq 2 ]] && grep -q '<svg' "$work/r.html" && pass "HTML: 2 scaling charts of units_per_s" ||
  fail "HTML: $charts scaling charts of units_per_s, expected 2"
finish
