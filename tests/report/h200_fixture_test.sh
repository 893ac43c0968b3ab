#!/usr/bin/env bash
# The report on files a real H200 wrote (tests/fixtures/h200/README.md): the envelope chosen from
# the recorded GPU with its 7 judged figures passing and the 2 it cannot judge on one GPU said;
# the step projection of the first workload within 5% of its measured step, and only that
# workload's measured step beside it (the resnet50 step of the same file is named, not mixed in).
# h200_fixture_test.sh PREFLIGHT_REPORT FIXTURES WORK
set -uo pipefail
report=$1 fixtures=$2 work=$3
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"

"$report" "$fixtures/compute.h5" --json "$work/compute.json" --no-color >"$work/compute.txt" 2>&1
expect "compute: the report passes (exit 0)" test $? -eq 0
expect "compute: judged against reference h200-sxm, 7 checks of its figures" \
  grep -q "judged against reference h200-sxm (7 checks of its figures)" "$work/compute.txt"
expect "compute: every envelope figure judged passes; NVLink and 8-GPU all-reduce not measured" \
  /usr/bin/python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
mine = [c for c in j['checks'] if c['rule'].startswith('reference h200-sxm')]
judged = [c for c in mine if c['verdict'] != 'not measured']
missing = sorted(c['rule'] for c in mine if c['verdict'] == 'not measured')
ok = len(judged) == 7 and all(c['verdict'] == 'pass' for c in judged) and len(missing) == 2 \
  and 'NVLink' in missing[1] + missing[0]
sys.exit(0 if ok else 1)" "$work/compute.json"

"$report" "$fixtures/step.h5" --json "$work/step.json" --no-color >"$work/step.txt" 2>&1
expect "step: the report runs (exit 0)" test $? -eq 0
expect "step: the llama layers projected within 5% of the measured step, one measured step only" \
  /usr/bin/python3 -c "
import json, sys
sec = next(s for s in json.load(open(sys.argv[1]))['sections'] if s['id'] == 'step-projection')
rows = [dict(zip(sec['header'], r)) for r in sec['rows']]
measured = [s for s in sec['charts'][0]['series'] if s['label'] == 'measured step'][0]
ok = len(rows) == 1 and abs(float(rows[0]['error'].rstrip('%'))) <= 5 \
  and len(measured['x']) == 1
sys.exit(0 if ok else 1)" "$work/step.json"
expect "step: the resnet50 step is named as another workload, not projected" \
  grep -q "not projected: case 000003 (resnet50 all-reduce 1 nodes), another workload" "$work/step.txt"
expect "step: the projection priced bfloat16 GEMMs on cuBLASLt" \
  grep -q "case 000000 (cublaslt bfloat16 square)" "$work/step.txt"
finish
