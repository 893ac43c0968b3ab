#!/usr/bin/env bash
# A soak writes its points as summaries by default (results-schema/SPEC.md, "Soak", "Summary
# points"; campaign soak.samples): the same tiny soak (2 ranks; a sweep of allreduce, a GEMM and a
# GEMM correctness check) run with soak.samples summary and full:
#  - both pass the schema check (check_results.py recomputes a summary's all-groups time
#    statistics from iteration_slowest); every case says its form (attribute samples); a summary
#    file holds no per-iteration x per-rank matrix;
#  - the report reads both (exit 0 or 1, the JSON lists every case);
#  - a summary case's datasets take fewer bytes than a full one's (both printed; 400 iterations
#    a point, so that the matrices of 2 ranks outweigh the datasets a summary adds);
#  - a damaged summary (a time figure that its iteration_slowest does not give, a per-rank row of
#    the wrong length) fails the schema check;
#  - soak.samples of another value is refused, exit 2, naming the key.
# That the reader fills the same figures from either form is tests/unit/summary_points_test.cpp.
# soak_summary_points_test.sh PREFLIGHT PREFLIGHT_REPORT WORKDIR CHECKER...
set -uo pipefail
bin=$1 report=$2 work=$3; shift 3
check=("$@")
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
config=$work/soak.yaml
cat >"$config" <<'YAML'
campaign:
  name: soak-summary-test
  ranks_per_node: 1
soak:
  duration: 4s
timing: {warmup: 1, min_iters: 400, max_iters: 400, budget: 10s, batch_blocks: 2}
benchmarks:
  - name: allreduce
    family: comm
    ops: [allreduce]
    sizes: 8,64K
  - name: gemm
    family: matmul
    backend: openblas
    sizes: 64
  - name: check
    family: correctness
    checks: [gemm]
    dtypes: [float32]
    sizes: [64]
    timing: {warmup: 1, min_iters: 5, max_iters: 20, budget: 40ms}
YAML

declare -A bytes_per_case
for form in summary full; do
  out=$work/$form.h5
  set_form=()
  [[ $form == full ]] && set_form=(--set soak.samples=full)
  mpirun -np 2 "$bin" run "$config" "${set_form[@]}" -o "$out" >"$work/$form.log" 2>&1
  rc=$?
  [[ $rc -eq 0 ]] && pass "$form soak: exit 0" || { fail "$form soak: exit $rc"; tail -5 "$work/$form.log"; continue; }
  "${check[@]}" --status complete "$out" >"$work/$form.check" 2>&1 && pass "$form soak passes the schema check" ||
    { fail "$form soak fails the schema check"; head -5 "$work/$form.check"; }
  shape=$(h5 "$out" '
cases = list(f["cases"].values())
forms = {text(c.attrs["samples"]) for c in cases}
matrices = []
f.visit(lambda name: matrices.append(name) if name.rsplit("/", 1)[-1] in ("samples", "batched", "counters") else None)
print(len(cases), ",".join(sorted(forms)), len(matrices) > 0)')
  read -r cases forms has_matrices <<<"$shape"
  want_matrices=$([[ $form == full ]] && echo True || echo False)
  expect "$form soak: every case says samples $form, matrices $want_matrices ($shape)" \
    test "$forms $has_matrices" = "$form $want_matrices"
  # The bytes a case's datasets take as stored, not the file's size over its cases: the file's
  # own (environment, config) would weigh on the form whose soak ran fewer rounds.
  bytes_per_case[$form]=$(h5 "$out" '
stored = [0]
def add(name, obj):
    if isinstance(obj, h5py.Dataset):
        stored[0] += obj.id.get_storage_size()
for c in f["cases"].values():
    c.visititems(add)
print(stored[0] // max(1, len(f["cases"])))')
  echo "$form: $(stat -c %s "$out") bytes, $cases cases, ${bytes_per_case[$form]} bytes of datasets a case"
  "$report" "$out" --no-color --json "$work/$form.json" >"$work/$form.report" 2>&1
  rc=$?
  n=$(/usr/bin/python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['runs'][0]['cases'])" \
    "$work/$form.json" 2>/dev/null)
  expect "the report reads the $form soak (exit $rc, $n of $cases cases)" test "$rc" -le 1 -a "$n" = "$cases"
done
expect "a summary case is smaller than a full one (${bytes_per_case[summary]:-?} < ${bytes_per_case[full]:-?} bytes)" \
  test "${bytes_per_case[summary]:-1}" -lt "${bytes_per_case[full]:-0}"

# Damaged summaries fail the schema check, naming what.
damaged() {  # damaged NAME PYTHON EXPECTED: a copy of the summary file changed by PYTHON (f open r+)
  local copy=$work/damaged-$1.h5
  cp "$work/summary.h5" "$copy"
  /usr/bin/python3 -c "import h5py, numpy as np
f = h5py.File('$copy', 'r+')
c = f['cases/000000']
$2
f.close()"
  "${check[@]}" "$copy" >"$copy.check" 2>&1
  local rc=$?
  expect "damaged summary ($1): the schema check fails naming it (exit $rc)" \
    bash -c "[[ $rc -eq 1 ]] && grep -q '$3' '$copy.check'"
}
damaged time_median 'm = c["stats"]["time_median"]; v = m[:]; v[0] *= 1.5; m[...] = v' "time_median"
damaged rank_row 'p = c["points/0000"]; del p["rank_time_median"]; p.create_dataset("rank_time_median", data=np.ones((1, 1)), chunks=True, fletcher32=True); p["rank_time_median"].attrs["units"] = "s"' \
  "rank_time_median: shape"

mpirun -np 1 "$bin" run "$config" --set soak.samples=some --dry-run >"$work/bad.log" 2>&1
rc=$?
expect "soak.samples some: exit 2 naming soak.samples (exit $rc)" \
  bash -c "[[ $rc -eq 2 ]] && grep -q 'soak.samples' '$work/bad.log'"
finish
