#!/usr/bin/env bash
# The step projection in the report: a small campaign (matmul, comm, step) on 4 ranks as 2
# virtual nodes; the section is in the terminal, HTML (with its chart) and JSON outputs, names
# every input's case and file, puts each measured step beside its projection with the error,
# and says what limits the target; a gradient-bound step is a finding, a compute-bound one is
# not; without the matmul figures it says it cannot project.
# report_test.sh PREFLIGHT PREFLIGHT_REPORT WORKDIR CONFIG
set -uo pipefail
bin=$1 report=$2 work=$3 config=$4
source "$(dirname "$0")/../faults/common.sh"
source "$(dirname "$0")/../../scripts/mpi-env.sh"
rm -rf "$work" && mkdir -p "$work"

mpirun -np 4 "$bin" run "$config" -o "$work/run.h5" >"$work/run.log" 2>&1
expect "the campaign runs (exit 0)" test $? -eq 0
"$report" "$work/run.h5" --html "$work/r.html" --json "$work/r.json" >"$work/r.txt" 2>&1
expect "the report runs (exit 0)" test $? -eq 0
expect "the terminal shows the section" grep -q "Step time: projected from the measured figures" "$work/r.txt"
expect "the HTML has the section and its chart" \
  grep -q 'id="step-projection"' "$work/r.html"
expect "the HTML draws the chart" /usr/bin/python3 -c "
import re, sys; h = open(sys.argv[1]).read()
at = h.index('id=\"step-projection\"'); sys.exit(0 if '<svg' in h[at:at + 200000] else 1)" "$work/r.html"
# The JSON section: rows for 1, 2 and 4 nodes; the measured steps are the file's step_s, and
# the error is (projected - measured) / measured.
check_json() {
  /usr/bin/python3 - "$work/r.json" "$work/run.h5" <<'PY'
import json, sys, h5py
j = json.load(open(sys.argv[1]))
sec = next(s for s in j["sections"] if s["id"] == "step-projection")
head = sec["header"]
rows = {r[0]: dict(zip(head, r)) for r in sec["rows"]}
assert set(rows) == {"1", "2", "4"}, rows.keys()
f = h5py.File(sys.argv[2])
for case in f["cases"].values():
    if case.attrs["family"] != b"step":
        continue
    nodes = str(int(case["stats"]["nodes"][0]))
    step = float(case["stats"]["step_s"][list(case["stats"]["group"][:]).index(0 if len(case["stats"]["group"]) > 1 else -1)])
    row = rows[nodes]
    measured = float(row["measured step s"].split()[0])
    assert abs(measured - step) <= 1e-3 * step, (nodes, measured, step)
    projected = float(row["projected step s"])
    error = float(row["error"].rstrip("%"))
    assert abs(error - 100 * (projected - measured) / measured) <= 1, (nodes, error)
assert rows["4"]["measured step s"] == "not run"
lines = " ".join(sec["lines"])
assert "case 000001 (openblas float32 shapes) in" in lines, lines
assert "extrapolated from 4 ranks" in lines and "the alpha-beta fit, ring algorithm" in lines, lines
assert "at 4 nodes the" in lines and "of the" in lines, lines
assert any(s["label"] == "measured step" for s in sec["charts"][0]["series"])
PY
}
expect "JSON: each measured step beside its projection with the error; inputs and their sources named; the sentence" check_json

# A step of 4 micro-batches of 512 tokens a rank is bound by its GEMMs and names nothing (at 128
# tokens the GEMMs were 0.0049 s of a step and the 13 buckets' all-reduce 0.0053 s on a fresh
# CI run: a coin toss, not a compute-bound step); one of 2 tokens in 4 KiB
# buckets is bound by its gradient: the projection and the measured steps say communication, and
# a finding says it.
projected_finding() {  # projected_finding JSON: the findings the step plug-in made
  /usr/bin/python3 -c "import json, sys
print(sum(f['title'].startswith('projected step: ') for f in json.load(open(sys.argv[1]))['findings']))" "$1"
}
mpirun -np 4 "$bin" run "$config" --set step.seq_len=512 --set step.global_batch=32 -o "$work/compute.h5" >"$work/compute.log" 2>&1
"$report" "$work/compute.h5" --json "$work/compute.json" >"$work/compute.txt" 2>&1
expect "a compute-bound step: projected bottleneck compute at the target, and no finding" \
  test "$(projected_finding "$work/compute.json")" = 0 -a \
  "$(grep -c "^  compute: at 4 nodes the compute is" "$work/compute.txt")" = 1
mpirun -np 4 "$bin" run "$config" --set step.seq_len=2 --set step.bucket_size=4K \
  -o "$work/comm.h5" >"$work/comm.log" 2>&1
"$report" "$work/comm.h5" --json "$work/comm.json" >"$work/comm.txt" 2>&1
expect "a gradient-bound step: the finding names communication at the target" \
  grep -q "projected step: communication: at 4 nodes the exposed gradient" "$work/comm.txt"
expect "... and both the projected and the measured bottleneck at 1 and 2 nodes are communication" \
  /usr/bin/python3 -c "import json, sys
sec = next(s for s in json.load(open(sys.argv[1]))['sections'] if s['id'] == 'step-projection')
rows = [dict(zip(sec['header'], r)) for r in sec['rows'] if r[0] in ('1', '2')]
sys.exit(0 if len(rows) == 2 and all(r['projected bottleneck'] == r['measured bottleneck'] == 'communication' for r in rows) else 1)" "$work/comm.json"

# The step's GEMMs are float32 on a CPU (auto), recorded as its dtype; bfloat16 on OpenBLAS is
# bad input naming the key (exit 2).
expect "the step on a CPU records float32 GEMMs" /usr/bin/python3 -c "
import sys, h5py
f = h5py.File(sys.argv[1])
dtypes = {c.attrs['dtype'] for c in f['cases'].values() if c.attrs['family'] == b'step'}
sys.exit(0 if dtypes == {b'float32'} else 1)" "$work/run.h5"
mpirun -np 1 "$bin" step --step-gemm-dtype bfloat16 --min-iters 1 -n 1 -o "$work/bf16.h5" >"$work/bf16.log" 2>&1
expect "bfloat16 GEMMs on openblas: exit 2 naming the flag" \
  test $? -eq 2 -a "$(grep -c -- "--step-gemm-dtype: expected auto or float32" "$work/bf16.log")" -ge 1
"$bin" step --step-gemm-dtype bfloat16 --dry-run >"$work/bf16-dry.log" 2>&1
expect "... refused by a dry run too (exit 2)" test $? -eq 2

# Without matmul figures nothing is projected, and the report says why.
mpirun -np 4 "$bin" step --ranks-per-node 2 --model custom --layers 2 --hidden 64 \
    --ffn-hidden 128 --heads 4 --vocab 256 --seq-len 32 --global-batch 8 -w 1 --min-iters 3 \
    -n 3 -o "$work/step-only.h5" >"$work/only.log" 2>&1
"$report" "$work/step-only.h5" >"$work/only.txt" 2>&1
expect "without a matmul case: not projected, and why" grep -q "not projected: no float32 matmul case on openblas" "$work/only.txt"
finish
