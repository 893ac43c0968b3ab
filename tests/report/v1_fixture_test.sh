#!/usr/bin/env bash
# The report gives the same verdicts and figures for the version-1 fixtures (tests/fixtures/v1)
# as the report that wrote expected/ did: read through the v1 adapter, and read as schema v2
# after rewriting a copy's attributes into v2 form (make_v2_fixture.py, the primary path).
# A v2 file with an unknown or missing declaration is refused naming file, case and attribute.
# v1_fixture_test.sh PREFLIGHT_REPORT WORKDIR
set -uo pipefail
report=$(realpath "$1") work=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fixtures=$root/tests/fixtures/v1
source "$here/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work/v1" "$work/v2"
cp "$fixtures/run.h5" "$fixtures/baseline.h5" "$work/v1/"
for f in run baseline; do
  /usr/bin/python3 "$here/make_v2_fixture.py" "$fixtures/$f.h5" "$work/v2/$f.h5" ||
    fail "rewriting $f.h5 as v2"
done
for v in v1 v2; do
  # The expected files were written with the fixture files' names relative to the directory.
  (cd "$work/$v" && "$report" run.h5 --rules "$root/configs/rules/acceptance.yaml" \
    --json run.json >run.txt 2>&1)
  rc=$?
  # Two rules of the file match nothing here (a warning, not a verdict): exit 0, as expected/.
  [[ $rc -eq 0 ]] && pass "$v: rules exit 0 (pass), as expected/" || fail "$v: rules exit $rc"
  expect "$v: same checks, scaling, fits and findings as expected/run.json" \
    /usr/bin/python3 "$here/compare_verdicts.py" "$fixtures/expected/run.json" "$work/$v/run.json"
  (cd "$work/$v" && "$report" run.h5 --baseline baseline.h5 --json regression.json \
    >regression.txt 2>&1)
  rc=$?
  # One repetition a side: every size undecided (no run-to-run noise estimate), exit 3.
  [[ $rc -eq 3 ]] && pass "$v: baseline exit 3 (undecided), as expected/" || fail "$v: baseline exit $rc"
  expect "$v: same regressions as expected/regression.json" \
    /usr/bin/python3 "$here/compare_verdicts.py" "$fixtures/expected/regression.json" \
    "$work/$v/regression.json"
  # Case names are never cut (they were at 60 characters): two storage cases that differ only
  # past that point must keep their own rows.
  grep -q "^psync evicted sequential file-per-rank qd1 x1 4 ranks (2/node x 2 nodes) | storage | default  *262144 " "$work/$v/regression.txt" &&
    grep -q "^psync warm sequential file-per-rank qd1 x1 4 ranks (2/node x 2 nodes) | storage | default  *262144 " "$work/$v/regression.txt" &&
    pass "$v: regression rows keep whole case names" || fail "$v: a case name was cut in the regression table"
  # The verdict and its reasons open the terminal output.
  head -1 "$work/$v/regression.txt" | grep -q "^verdict: inconclusive (exit 3): 32 sizes undecided" &&
    pass "$v: the terminal opens with the verdict and its count of undecided sizes" ||
    fail "$v: terminal opening: $(head -1 "$work/$v/regression.txt")"
done
for broken in unknown-stage no-direction no-span; do
  /usr/bin/python3 "$here/make_v2_fixture.py" "$fixtures/run.h5" "$work/$broken.h5" --break "$broken"
  "$report" "$work/$broken.h5" >"$work/$broken.out" 2>&1
  rc=$?
  case $broken in
    unknown-stage) want="case 000000: attribute 'stage' is 'warp_drive', not one of" ;;
    no-direction) want="case 000000 column 'busbw': attribute 'direction' is missing" ;;
    no-span) want="case 000000: attribute 'span_nodes' is missing" ;;
  esac
  [[ $rc -eq 2 ]] && grep -qF "$work/$broken.h5: $want" "$work/$broken.out" &&
    pass "v2 $broken: refused naming file, case and attribute" ||
    { fail "v2 $broken: exit $rc"; cat "$work/$broken.out"; }
done
finish
