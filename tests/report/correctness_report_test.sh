#!/usr/bin/env bash
# The report on a results file with correctness cases (made by correctness_fixture.py from the
# schema-v2 fixture until the bench side writes real ones): the planted ranks are named with
# their host and GPU in the terminal, the JSON verdict and the Prometheus exposition; the report
# fails (exit 1); the clean check is listed as compared with nothing wrong; the drain script
# drains the named device's host.
# correctness_report_test.sh SOURCE_DIR PREFLIGHT_REPORT WORKDIR
set -uo pipefail
src=$1 report=$2 work=$3
source "$src/tests/faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
/usr/bin/python3 "$src/tests/report/correctness_fixture.py" "$src/tests/fixtures/v2/run.h5" "$work/sdc.h5" ||
  { fail "fixture not made"; finish; exit 1; }
"$report" "$work/sdc.h5" --no-color --json "$work/sdc.json" --prometheus "$work/sdc.prom" \
  >"$work/terminal.txt" 2>&1
rc=$?
[[ $rc -eq 1 ]] && pass "exit 1: wrong results fail" || fail "exit $rc"
expect "terminal: the collective's receiver named with host and GPU" grep -qF \
  'rank 2 on host vm (GPU GPU-r2) received wrong elements in 1 of 30 allreduce runs with algorithm ring (coll_tuned_allreduce_algorithm=4)' "$work/terminal.txt"
expect "terminal: the GEMM rank unlike the majority named" grep -qF \
  'rank 3 on host vm (GPU GPU-r3) computed wrong results: 1 of 30 GEMMs 64x64x64 float32 disagreed with the majority of its class' "$work/terminal.txt"
expect "terminal: the first wrong element, C[i,j] from gemm_m" grep -qF \
  'iteration 7: C[5,1] expected 0.25 found 0.2500001 (4096 wrong elements; the majority'"'"'s result: rank 0)' "$work/terminal.txt"
expect "terminal: the section counts what was compared" grep -qF \
  '360 results compared in 3 checks, 2 wrong' "$work/terminal.txt"
expect "terminal: the generic finding lists the rank" grep -qF \
  'wrong elements by rank (1 rank): rank 2 on host vm (GPU GPU-r2): 5' "$work/terminal.txt"
expect "json: two device suspects, rank and device" /usr/bin/python3 -c "
import json, sys
s = [x for x in json.load(open(sys.argv[1]))['suspects'] if x['kind'] == 'device']
assert sorted((x['rank'], x['device'], x['hosts']) for x in s) == [(2, 'GPU-r2', ['vm']), (3, 'GPU-r3', ['vm'])], s
" "$work/sdc.json"
expect "prometheus: the device suspect's labels" grep -qF \
  'preflight_suspect{run="sdc",kind="device",hosts="vm",rank="2",device="GPU-r2"} 1' "$work/sdc.prom"
"$src/scripts/slurm/drain-suspects.sh" "$work/sdc.json" >"$work/drain.out" 2>&1
expect "drain: the named devices' host, once" grep -qxE \
  'scontrol update NodeName=vm State=DRAIN Reason="preflight: wrong results from rank [23] \(GPU GPU-r[23]\), rank [23] \(GPU GPU-r[23]\), check their ECC and Xid errors \(sdc\)"' "$work/drain.out"
[[ $(grep -c '^scontrol' "$work/drain.out") -eq 1 ]] && pass "drain: one command for one host" ||
  fail "drain: $(grep -c '^scontrol' "$work/drain.out") commands"
finish
