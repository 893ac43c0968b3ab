#!/usr/bin/env bash
# preflight-report --baseline: the same run with 2% noise is not flagged; one size slowed 20% is
# flagged with its p-value, exit 1; a changed environment is shown first. The copies are made
# with h5py from one real run, so the test does not depend on this machine's run-to-run noise.
# regression_test.sh PREFLIGHT PREFLIGHT_REPORT WORKDIR
set -uo pipefail
bin=$1 report=$2 work=$3
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
base=$work/base.h5
mpirun -np 2 "$bin" comm --op allreduce,allgather --sizes 8,64K --iters 100 --min-iters 100 --budget 1h \
  -o "$base" >/dev/null 2>&1 || fail "preflight could not write $base"
variant() {  # variant NAME 'python using f (h5py.File, writable) and rng'
  cp "$base" "$work/$1.h5"
  /usr/bin/python3 -c "
import h5py, sys, numpy as np
rng = np.random.default_rng(42)
f = h5py.File(sys.argv[1], 'r+')
def scale(case, point, factor):
    d = f['cases'][case]['points'][point]['samples']
    d[...] = d[...] * factor
$2
f.close()" "$work/$1.h5"
}
# 2% multiplicative noise on every sample of every size: the same run, measured again.
variant noise 'for c in f["cases"]:
    for p in f["cases"][c]["points"]:
        d = f["cases"][c]["points"][p]["samples"]; d[...] = d[...] * rng.lognormal(0, 0.02, d.shape)'
# allgather (case 1) at 64 KiB 20% slower, and another MPI library on every rank.
variant slow 'scale("000001", "0001", 1.2)
del f["environment/mpi_library"]
f["environment/mpi_library"] = np.array([b"Open MPI v9.9"] * 2, dtype=object)
f["environment/mpi_library"].attrs["units"] = ""'

"$report" "$work/noise.h5" --baseline "$base" >"$work/noise.out" 2>&1
rc=$?
[[ $rc -eq 0 ]] && grep -q "4 size(s) compared: 0 slower, 0 faster" "$work/noise.out" &&
  pass "2% noise: nothing flagged, exit 0" || { fail "2% noise: exit $rc"; cat "$work/noise.out"; }

"$report" "$work/slow.h5" --baseline "$base" >"$work/slow.out" 2>&1
rc=$?
line=$(grep "allgather float32 out-of-place world" "$work/slow.out" | grep slower)
[[ $rc -eq 1 ]] && [[ $line =~ \+20\.0%\ +0\.0%\ +([0-9.e+-]+)\ +slower ]] &&
  pass "20% slower allgather 64 KiB flagged (p = ${BASH_REMATCH[1]}), exit 1" || { fail "20% slower: exit $rc"; cat "$work/slow.out"; }
grep -q "1 slower, 0 faster, 3 within the noise" "$work/slow.out" && pass "only that size flagged" ||
  fail "other sizes flagged too"
grep -q "^# environment changed: mpi_library: Open MPI v4.* -> Open MPI v9.9" "$work/slow.out" &&
  [[ $(grep -n "environment changed" "$work/slow.out" | head -1 | cut -d: -f1) -lt $(grep -n "slower" "$work/slow.out" | head -1 | cut -d: -f1) ]] &&
  pass "the MPI library change is shown first" || fail "environment change not shown first"

"$report" "$base" --baseline "$work/missing.h5" >/dev/null 2>&1
[[ $? -eq 2 ]] && pass "missing baseline: exit 2" || fail "missing baseline: expected exit 2"
finish
