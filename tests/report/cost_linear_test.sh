#!/usr/bin/env bash
# The report's cost is linear in ranks x sizes x iterations, checked by counting work, not by
# timing it: in builds with PREFLIGHT_COUNT_WORK (the ci preset) preflight-report appends the
# elements its statistics sorted to $PREFLIGHT_WORK_COUNT_FILE. On synthetic files
# (scripts/bench/make_large_results.py) 4x the ranks must cost about 4x (3.5 to 4.5: every part
# of the report is per rank), and 4x the iterations at most 4.5x (part of the work is per rank
# and size, not per iteration). A quadratic step in ranks (the lateness analysis once copied
# every other rank's ratios for each rank: 13 minutes at 16,384 ranks) gives far more.
# Exit 77 (skipped) in a build without the counter.
# cost_linear_test.sh PREFLIGHT_REPORT WORKDIR
set -uo pipefail
report=$1 work=$2
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
generator=$(dirname "$0")/../../scripts/bench/make_large_results.py

# cost NAME RANKS ITERATIONS: generates a file, runs the report with every output, prints the
# elements ordered (nothing when the report did not count); fails when the report failed.
cost() {
  local name=$1 file=$work/$1.h5
  /usr/bin/python3 "$generator" "$file" --ranks "$2" --sizes 6 --iterations "$3" >/dev/null ||
    { echo "generator failed" >&2; return 1; }
  rm -f "$work/$name.count"
  PREFLIGHT_WORK_COUNT_FILE=$work/$name.count "$report" "$file" --no-color --html "$work/$name.html" \
    --md "$work/$name.md" --json "$work/$name.json" --junit "$work/$name.xml" \
    --prometheus "$work/$name.prom" >"$work/$name.out" 2>&1
  local rc=$?
  # The planted slow node fails one check: exit 1. Anything else is a broken report.
  [[ $rc -eq 1 ]] || { echo "report of $name exited $rc" >&2; return 1; }
  for out in html md json xml prom; do
    [[ -s $work/$name.$out ]] || { echo "report of $name wrote no $out" >&2; return 1; }
  done
  [[ ! -f $work/$name.count ]] || awk '$1 == "ordered_elements" {print $2}' "$work/$name.count"
}

small=$(cost ranks256 256 10) || { fail "the report of 256 ranks failed"; finish; exit; }
if [[ -z $small ]]; then
  echo "skipped: preflight-report was built without PREFLIGHT_COUNT_WORK (use the ci preset)"
  exit 77
fi
big_ranks=$(cost ranks1024 1024 10) || fail "the report of 1024 ranks failed"
big_iterations=$(cost iterations40 256 40) || fail "the report of 40 iterations failed"
echo "elements ordered: 256 ranks x 10 iterations: $small; 1024 ranks: $big_ranks; 40 iterations: $big_iterations"
# ratio A B: A / B, empty unless both are positive numbers.
ratio() { is_number "$1" && is_number "$2" && awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.3f", a / b}'; }
r=$(ratio "$big_ranks" "$small")
at_least "$r" 3.5 && at_most "$r" 4.5 && pass "4x the ranks costs ${r}x" ||
  fail "4x the ranks costs '${r}'x (3.5 to 4.5 is linear)"
r=$(ratio "$big_iterations" "$small")
at_least "$r" 1 && at_most "$r" 4.5 && pass "4x the iterations costs ${r}x" ||
  fail "4x the iterations costs '${r}'x (at most 4.5 is linear)"
finish
