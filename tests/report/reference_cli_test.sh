#!/usr/bin/env bash
# Reference envelopes from the command line (docs/references.md): a run is judged against the
# envelope its environment matches and the verdict line says which, or says "peers only" when
# none matches; --make-reference writes an envelope that a later run is judged against, and a
# run 10x slower than it fails; bad input is exit 2 naming the key or flag, with a did-you-mean,
# and writes nothing.
# reference_cli_test.sh PREFLIGHT PREFLIGHT_REPORT WORKDIR
set -uo pipefail
bin=$1 report=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
run=$work/run.h5
mpirun -np 2 "$bin" comm --ranks-per-node 1 --op allreduce --sizes 64K,1M --min-iters 10 \
  --iters 20 --budget 50ms -o "$run" >/dev/null 2>&1 || fail "preflight could not write $run"

# This machine has no GPU: the shipped cpu envelope is chosen, and said so.
"$report" "$run" --json "$work/default.json" >"$work/default.out" 2>&1
rc=$?
[[ $rc -ne 2 ]] && /usr/bin/python3 -c "import json, sys
v = json.load(open(sys.argv[1]))
assert v['runs'][0]['reference']['name'] == 'cpu', v['runs'][0]['reference']
assert 'chosen from the environment: gpu_model empty on every rank' in v['runs'][0]['reference']['why']
assert v['judged_against'].startswith('peers only: reference cpu has no figure this run measured'), v['judged_against']" "$work/default.json" &&
  head -1 "$work/default.out" | grep -q "judged against peers only: reference cpu has no figure" &&
  pass "no GPU: the cpu envelope is chosen; a comm-only run is judged against peers only, and says so" ||
  { fail "default reference (exit $rc)"; head -3 "$work/default.out"; }

# A run that matches no envelope: judged against peers, and the verdict line says so.
mkdir -p "$work/refs" && sed 's/^  gpu_model: ""/  gpu_model: "^NVIDIA H200$"/' \
  "$here/../../configs/references/cpu.yaml" | sed 's/^reference: cpu/reference: gpu-only/' >"$work/refs/gpu-only.yaml"
"$report" "$run" --references "$work/refs" >"$work/none.out" 2>&1
head -1 "$work/none.out" | grep -q "judged against peers only: no reference envelope matches this run's hardware" &&
  pass "no envelope matches: judged against peers only, said on the verdict line" ||
  { fail "no match"; head -1 "$work/none.out"; }

# --make-reference from this run, then a run 10x slower against it: fails, naming the figure.
"$report" "$run" --make-reference "$work/site.yaml" >"$work/make.out" 2>&1 &&
  grep -q "^wrote $work/site.yaml: reference 'site', 2 figures from $run" "$work/make.out" &&
  pass "--make-reference writes 2 figures (one per size)" || { fail "--make-reference"; cat "$work/make.out"; }
"$report" "$run" --reference "$work/site.yaml" >"$work/same.out" 2>&1
rc=$?
[[ $rc -eq 0 || $rc -eq 3 ]] && head -1 "$work/same.out" | grep -q "judged against reference site (2 checks of its figures)" &&
  pass "the run it was made from is within it (exit $rc)" || { fail "same run against its reference: exit $rc"; head -2 "$work/same.out"; }
cp "$run" "$work/slow.h5"
/usr/bin/python3 - "$work/slow.h5" <<'PY'
import h5py, sys
f = h5py.File(sys.argv[1], "r+")
for case in f["cases"].values():  # every figure 10x slower: times x10, bandwidths / 10
    for column in case["stats"]:
        d = case["stats"][column]
        if d.dtype.kind != "f":
            continue
        if column.startswith("time_") and column != "time_cv" or column.startswith("median_ci") or column.startswith("batched_time"):
            d[...] = d[...] * 10
        elif column.endswith("bw"):
            d[...] = d[...] / 10
PY
"$report" "$work/slow.h5" --reference "$work/site.yaml" >"$work/slow.out" 2>&1
rc=$?
[[ $rc -eq 1 ]] && grep -q "^  fail  *reference site: " "$work/slow.out" &&
  pass "a run 10x slower than the reference fails it" || { fail "10x slower: exit $rc"; head -3 "$work/slow.out"; }

# Bad input: exit 2, the key or flag named, nothing written.
refuse() {  # refuse WHAT EXPECTED-TEXT ARGS...
  local what=$1 want=$2; shift 2
  rm -f "$work/bad.json"
  "$report" "$run" --json "$work/bad.json" "$@" >"$work/bad.out" 2>&1
  local rc=$?
  [[ $rc -eq 2 && ! -e $work/bad.json ]] && grep -qF -- "$want" "$work/bad.out" && pass "$what: exit 2" ||
    { fail "$what: exit $rc"; cat "$work/bad.out"; }
}
refuse "unknown platform" "--reference h200-sxn: no such platform (did you mean 'h200-sxm'?)" --reference h200-sxn
sed 's/metric: peak_fraction/metric: peak_fractoin/' "$here/../../configs/references/cpu.yaml" >"$work/bad-metric.yaml"
refuse "unknown figure" "unknown figure: no family declares the metric 'peak_fractoin' (did you mean 'peak_fraction'?)" \
  --reference "$work/bad-metric.yaml"
sed 's/^    unit: ""/    unit: "%"/' "$here/../../configs/references/cpu.yaml" >"$work/bad-unit.yaml"
refuse "unknown unit" "unit '%' is not the unit of peak_fraction" --reference "$work/bad-unit.yaml"
sed 's/^  gpu_model:/  gpu_modle:/' "$here/../../configs/references/cpu.yaml" >"$work/bad-match.yaml"
refuse "unknown environment column" "match: 'gpu_modle' is not an environment column (did you mean 'gpu_model'?)" \
  --reference "$work/bad-match.yaml"
mkdir -p "$work/badrefs" && cp "$work/bad-metric.yaml" "$work/badrefs/"
refuse "a bad envelope among --references" "bad-metric.yaml:" --references "$work/badrefs"
refuse "--references not a directory" "--references $work/nowhere: no such directory" --references "$work/nowhere"
"$report" "$run" "$run" --make-reference "$work/x.yaml" >"$work/bad.out" 2>&1
[[ $? -eq 2 && ! -e $work/x.yaml ]] && grep -q "give exactly one results file" "$work/bad.out" &&
  pass "--make-reference with two files: exit 2" || fail "--make-reference with two files"
finish
