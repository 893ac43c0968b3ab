#!/usr/bin/env bash
# A results file damaged at random is refused or reported as if intact, never a crash or a
# hang: preflight writes a small campaign (tests/integrity/campaign.yaml), and fuzz_report.py
# runs COUNT damaged copies of it through preflight-report (docs/testing.md, "Integrity").
# fuzz_test.sh PREFLIGHT PREFLIGHT_REPORT WORKDIR [COUNT [SEED]]
set -uo pipefail
bin=$1 report=$2 work=$3 count=${4:-300} seed=${5:-1}
here=$(dirname "$0")
source "$here/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work/data"
good=$work/good.h5
mpirun -np 2 "$bin" run "$here/campaign.yaml" --set storage.dir="$work/data" -o "$good" \
  >"$work/run.log" 2>&1 || { fail "preflight could not write $good"; tail -5 "$work/run.log"; finish; exit 1; }
pass "preflight wrote $good ($(stat -c %s "$good") bytes, $(h5 "$good" 'print(len(f["cases"]))') cases)"
/usr/bin/python3 "$here/fuzz_report.py" --report "$report" --file "$good" --work "$work/copies" \
  --count "$count" --seed "$seed" --timeout 20 --h5dump "$(command -v h5dump)" &&
  pass "$count damaged copies: each refused or reported as the intact file" ||
  fail "damaged copies: see above"
finish
