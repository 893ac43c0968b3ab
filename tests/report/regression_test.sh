#!/usr/bin/env bash
# preflight-report --baseline judges each size by its case's repetitions, not by pooled
# iterations. From one real run of seven repetitions, copies made with h5py (so the test does not
# depend on this machine's run-to-run noise). Seven: one run against one baseline is judged by
# the rank test of their repetitions, whose p is at least 2 / C(14, 7) = 0.00058, and a lone
# size of the four must reach 0.01 / 4 (Benjamini-Hochberg); five a side could not (0.0079).
#   - a drift under the tolerance: the repetitions made tight (0.2% apart each), then every
#     sample 3% slower with 1% noise on each: nothing slower or faster with the default
#     --min-change (5%), exit 0 or 3; the same copy with --min-change 0.01 flags every size
#     slower, exit 1, so the clean side is clean because of the tolerance, not because there was
#     nothing to see;
#   - the repetitions made steady (1% apart each), one size 20% slower in every repetition: that size
#     slower with its evidence, nothing else, exit 1, the environment change shown first;
#   - the same 20% in one repetition only: not flagged (a shift between repetitions is noise);
#   - three steady baselines given: the 20% is judged at the level of runs and still flagged;
#   - the same 20% in a run whose hosts gave 9% of their CPU to others (the host-load
#     attributes planted): not flagged but withheld, the hosts' load named as what changed, exit
#     3; with a baseline as loaded, judged and flagged again.
# regression_test.sh PREFLIGHT PREFLIGHT_REPORT WORKDIR
set -uo pipefail
bin=$1 report=$2 work=$3
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
base=$work/base.h5
cat >"$work/campaign.yaml" <<'YAML'
campaign: {name: regression-test, repetitions: 7}
timing: {warmup: 5, min_iters: 100, max_iters: 100, budget: 1h, batch_blocks: 5}
benchmarks:
  - {name: collectives, family: comm, backend: mpi, ops: [allreduce, allgather], topologies: [world], sizes: "8,64K"}
YAML
mpirun -np 2 "$bin" run "$work/campaign.yaml" -o "$base" >/dev/null 2>&1 || fail "preflight could not write $base"
variant() {  # variant NAME SOURCE 'python using f (h5py.File, writable), rng, scale, cases_of'
  cp "$2" "$work/$1.h5"
  /usr/bin/python3 -c "
import h5py, sys, numpy as np
rng = np.random.default_rng(42)
f = h5py.File(sys.argv[1], 'r+')
def scale(case, point, factor):
    d = f['cases'][case]['points'][point]['samples']
    d[...] = d[...] * factor
def cases_of(collective):  # the group names of that collective's repetitions, in order
    return sorted(c for c in f['cases'] if f['cases'][c].attrs['collective'] in (collective, collective.encode()))
$3
f.close()" "$work/$1.h5"
}
# Every repetition a copy of the first, 1% apart: a steady baseline.
variant steady "$base" 'for coll in ("allreduce", "allgather"):
    first, *rest = cases_of(coll)
    for i, c in enumerate(rest):
        for p in f["cases"][c]["points"]:
            f["cases"][c]["points"][p]["samples"][...] = f["cases"][first]["points"][p]["samples"][...] * (1 + 0.01 * (i + 1))'
# Every repetition a copy of the first, 0.2% apart; then the same with every sample 3% slower and
# 1% noise on each: a drift under the default tolerance (5%) that a tolerance of 1% must flag.
variant tight "$base" 'for coll in ("allreduce", "allgather"):
    first, *rest = cases_of(coll)
    for i, c in enumerate(rest):
        for p in f["cases"][c]["points"]:
            f["cases"][c]["points"][p]["samples"][...] = f["cases"][first]["points"][p]["samples"][...] * (1 + 0.002 * (i + 1))'
variant drift "$work/tight.h5" 'for c in f["cases"]:
    for p in f["cases"][c]["points"]:
        d = f["cases"][c]["points"][p]["samples"]; d[...] = d[...] * 1.03 * rng.lognormal(0, 0.01, d.shape)'
# allgather at 64 KiB 20% slower in every repetition, and another MPI library on every rank.
variant slow "$work/steady.h5" 'for c in cases_of("allgather"):
    scale(c, "0001", 1.2)
del f["environment/mpi_library"]
f["environment/mpi_library"] = np.array([b"Open MPI v9.9"] * 2, dtype=object)
f["environment/mpi_library"].attrs["units"] = ""'
# Two more steady runs 0.5% apart from it: a history of three known-good runs.
variant steady2 "$work/steady.h5" 'for c in f["cases"]:
    for p in f["cases"][c]["points"]:
        scale(c, p, 1.005)'
variant steady3 "$work/steady.h5" 'for c in f["cases"]:
    for p in f["cases"][c]["points"]:
        scale(c, p, 0.995)'
# The 20% of slow.h5 in a run measured while the hypervisor took 9% of the hosts' CPU, and a
# steady baseline measured so too.
load() {  # load STOLEN: python setting every case's planted host load
  echo "for c in f['cases']:
    f['cases'][c].attrs['host_cpu_stolen'] = $1
    f['cases'][c].attrs['host_cpu_foreign'] = 0.0
    f['cases'][c].attrs['host_cpu_s'] = 1.0"
}
variant busy_slow "$work/slow.h5" "$(load 0.09)"
variant busy_steady "$work/steady.h5" "$(load 0.09)"
variant quiet_steady "$work/steady.h5" "$(load 0.0)"
# The same 20% in the second repetition only.
variant one_rep "$work/steady.h5" 'scale(cases_of("allgather")[1], "0001", 1.2)'

"$report" "$work/drift.h5" --baseline "$work/tight.h5" >"$work/drift.out" 2>&1
rc=$?
[[ $rc -eq 0 || $rc -eq 3 ]] && grep -q "4 size(s) compared: 0 slower, 0 faster" "$work/drift.out" &&
  pass "3% drift, under the 5% tolerance: nothing flagged, exit $rc" || { fail "3% drift: exit $rc"; cat "$work/drift.out"; }
"$report" "$work/drift.h5" --baseline "$work/tight.h5" --min-change 0.01 >"$work/drift-1.out" 2>&1
rc=$?
[[ $rc -eq 1 ]] && grep -q "4 size(s) compared: 4 slower, 0 faster" "$work/drift-1.out" &&
  pass "the same 3% drift with --min-change 0.01: every size slower, exit 1" ||
  { fail "3% drift, --min-change 0.01: exit $rc"; cat "$work/drift-1.out"; }

"$report" "$work/slow.h5" --baseline "$work/steady.h5" >"$work/slow.out" 2>&1
rc=$?
line=$(grep "allgather float32 out-of-place world" "$work/slow.out" | grep " slower ")
[[ $rc -eq 1 && $line =~ slower\ +\+20\.0%\ \[\+[0-9.]+%,\ \+[0-9.]+%\],\ noise\ [0-9.]+%,\ 7\ v\ 7\ repetitions ]] &&
  pass "20% slower allgather 64 KiB flagged with its interval, noise and replicates, exit 1" ||
  { fail "20% slower: exit $rc"; cat "$work/slow.out"; }
grep -q "4 size(s) compared: 1 slower, 0 faster, 3 same, 0 undecided" "$work/slow.out" &&
  pass "only that size flagged" || fail "other sizes flagged too"
grep -q "Benjamini-Hochberg" "$work/slow.out" && pass "the method is stated" || fail "no method"
grep -q "^# environment changed: mpi_library: Open MPI v4.* -> Open MPI v9.9" "$work/slow.out" &&
  [[ $(grep -n "environment changed" "$work/slow.out" | head -1 | cut -d: -f1) -lt $(grep -n " slower " "$work/slow.out" | head -1 | cut -d: -f1) ]] &&
  pass "the MPI library change is shown first" || fail "environment change not shown first"

"$report" "$work/one_rep.h5" --baseline "$work/steady.h5" >"$work/one_rep.out" 2>&1
grep -q "0 slower, 0 faster" "$work/one_rep.out" &&
  pass "20% in one repetition of seven: not flagged" || { fail "one repetition flagged"; cat "$work/one_rep.out"; }

"$report" "$work/slow.h5" --baseline "$work/steady.h5" --baseline "$work/steady2.h5" \
  --baseline "$work/steady3.h5" --json "$work/history.json" >"$work/history.out" 2>&1
/usr/bin/python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))['regressions'][0]
assert len(r['baselines']) == 3, r['baselines']
slower = [c for c in r['changed'] if c['verdict'] == 'slower']
assert slower and all(c['replicate_level'] == 'runs' and c['baseline_replicates'] == 3 for c in slower), r['changed']
" "$work/history.json" && pass "three baselines: the 20% judged at the level of runs (3 runs)" ||
  { fail "history"; cat "$work/history.out"; }

"$report" "$work/busy_slow.h5" --baseline "$work/quiet_steady.h5" >"$work/busy.out" 2>&1
rc=$?
[[ $rc -eq 3 ]] && grep -q "4 size(s) compared: 0 slower, 0 faster, 0 same, 4 undecided" "$work/busy.out" &&
  grep -q "^# verdicts withheld: others took 9.0% " "$work/busy.out" &&
  grep -q "^# environment changed: host CPU others took .*-> 9.0% (hypervisor 9.0%" "$work/busy.out" &&
  pass "the 20% on hosts 9 points busier: withheld, the hosts' load named, exit 3" ||
  { fail "busier hosts: exit $rc"; cat "$work/busy.out"; }
"$report" "$work/busy_slow.h5" --baseline "$work/busy_steady.h5" >"$work/busy2.out" 2>&1
rc=$?
[[ $rc -eq 1 ]] && grep -q "1 slower, 0 faster, 3 same" "$work/busy2.out" &&
  pass "against a baseline as loaded: judged, the 20% flagged, exit 1" ||
  { fail "as loaded: exit $rc"; cat "$work/busy2.out"; }

"$report" "$base" --baseline "$work/missing.h5" >/dev/null 2>&1
[[ $? -eq 2 ]] && pass "missing baseline: exit 2" || fail "missing baseline: expected exit 2"
finish
