#!/usr/bin/env bash
# preflight-report on the test family "spin" (tests/family/), a family the report has never
# heard of: it must judge it from the file's declaration alone. 4 ranks on 4 virtual nodes,
# rank 2 planted slow (1.5x the work per operation, done by the family itself). Checks that the
# planted rank is named, the headline metric units_per_s appears in the scaling section, an
# acceptance rule on units_per_s is judged, and a regression against a second run works; in
# --json, --md, --junit and --html.
# test_family_test.sh PREFLIGHT_TEST_FAMILY PREFLIGHT_REPORT WORKDIR
set -uo pipefail
bin=$1 report=$2 work=$3
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
run() {  # run OUT [extra flags]
  local out=$1
  shift
  mpirun -np 4 "$bin" spin --ranks-per-node 1 --units 500,2000 --iters 40 --min-iters 20 \
    --budget 0.3s --scaling aggregate "$@" -o "$out" >"$out.log" 2>&1 ||
    { fail "preflight_test_family $* failed"; tail -20 "$out.log"; }
}
run "$work/planted.h5" --slow-rank 2
run "$work/base.h5"
cat >"$work/rules.yaml" <<'YAML'
rules:
  - name: spin throughput
    where: {family: spin}
    metric: units_per_s
    expect: 1
    tolerance: 10%
YAML
"$report" "$work/planted.h5" --no-color >"$work/out.txt" 2>&1
# The planted rank is named first (4 busy ranks on 2 cores: a neighbour may be named after it).
grep -m1 -E "^# slow (rank|node)" "$work/out.txt" | grep -qE "\(ranks 2\)|rank 2\b" &&
  pass "planted rank 2 named first" || { fail "planted rank 2 not named first"; grep -iE "^# (slow|late)" "$work/out.txt"; }
"$report" "$work/planted.h5" --rules "$work/rules.yaml" --json "$work/r.json" --md "$work/r.md" \
  --junit "$work/r.xml" --html "$work/r.html" >"$work/rules.out" 2>&1
rc=$?
[[ $rc -le 1 ]] && pass "report with rules: exit $rc" || { fail "report with rules: exit $rc"; tail -20 "$work/rules.out"; }
for f in r.json r.md r.xml r.html; do
  [[ -s $work/$f ]] && pass "$f written" || fail "$f missing"
done
json_check() {  # json_check DESCRIPTION 'python on doc (the JSON report)'
  /usr/bin/python3 -c "
import json, sys
doc = json.load(open(sys.argv[1]))
$2" "$work/r.json" && pass "json: $1" || fail "json: $1"
}
json_check "units_per_s in the scaling section" 'assert "units_per_s" in json.dumps(doc["scaling"]), doc["scaling"]'
json_check "the rule on units_per_s judged" 'judged = [c["verdict"] for c in doc["checks"] if c["rule"] == "spin throughput"]
assert judged and all(v in ("pass", "fail") for v in judged), judged'
grep -q "units_per_s" "$work/r.md" && pass "markdown names units_per_s" || fail "markdown lacks units_per_s"
grep -q "spin throughput" "$work/r.xml" && pass "junit has the rule" || fail "junit lacks the rule"
"$report" "$work/planted.h5" --baseline "$work/base.h5" >"$work/regression.out" 2>&1
rc=$?
[[ $rc -le 1 ]] && grep -qE "size\(s\) compared" "$work/regression.out" &&
  pass "regression against a second run: exit $rc" || { fail "regression: exit $rc"; tail -20 "$work/regression.out"; }
finish
