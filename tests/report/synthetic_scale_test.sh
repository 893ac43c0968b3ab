#!/usr/bin/env bash
# The synthetic large-job generator (scripts/bench/make_large_results.py) writes a layout the
# report reads, and the report names its planted slow node: a small run of the scale benchmark.
# synthetic_scale_test.sh PREFLIGHT_REPORT WORKDIR
set -uo pipefail
report=$1 work=$2
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
/usr/bin/python3 "$(dirname "$0")/../../scripts/bench/make_large_results.py" "$work/s.h5" --ranks 64 --sizes 4 \
  --iterations 20 || fail "generator failed"
"$report" "$work/s.h5" >"$work/out" 2>&1
rc=$?
# The planted node fails the check "no slow nodes or ranks" once: its ranks are evidence of it.
[[ $rc -eq 1 ]] && grep -qE "^# slow node: node0001 \(ranks 8,9,10,11,12,13,14,15\): 1\.[23]" "$work/out" &&
  head -1 "$work/out" | grep -q "^verdict: fail (exit 1): 1 check failed" &&
  pass "report reads the synthetic 64-rank file, names node0001 and fails one check" ||
  { fail "exit $rc"; head -5 "$work/out"; }
finish
