#!/usr/bin/env bash
# preflight-report reads what preflight wrote, and answers every damaged or foreign file with a
# message naming the file and the problem, exit 2, never a crash (and no HDF5 error stack).
# reader_test.sh PREFLIGHT PREFLIGHT_REPORT WORKDIR
set -uo pipefail
bin=$1 report=$2 work=$3
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
good=$work/good.h5
mpirun -np 4 "$bin" comm --op allreduce,allgather --topology world,intra --ranks-per-node 2 --sizes 8,64K \
  --iters 5 --budget 1ms -o "$good" >/dev/null 2>&1 || fail "preflight could not write $good"

# A tiny run names no one (its back-to-back blocks are too short to judge slowness, and a rank
# descheduled at a few sizes is not late): without --slow-nodes warn, exit 0.
"$report" "$good" >"$work/out" 2>&1
rc=$?
[[ $rc -eq 0 ]] && grep -q "run complete (exit 0), 4 ranks on 2 nodes, 4 case(s)" "$work/out" &&
  grep -q "000003 allgather float32 out-of-place intra \[ok\]" "$work/out" && grep -q "busbw(GB/s)" "$work/out" &&
  pass "reads a good file and lists its 4 cases" || { fail "good file: exit $rc"; head -5 "$work/out"; }

# Damaged copies, each made with h5py (a writer that is not ours).
damage() {  # damage NAME 'python using f (h5py.File, writable)'
  cp "$good" "$work/$1.h5"
  /usr/bin/python3 -c "import h5py, sys; f = h5py.File(sys.argv[1], 'r+'); $2; f.close()" "$work/$1.h5"
}
damage version 'f.attrs["schema_version"] = 99'
damage no_environment 'del f["environment"]'
damage no_column 'del f["cases/000000/stats/time_median"]'
damage no_status 'del f["cases/000001"].attrs["status"]'
damage short_column 'd = f["cases/000002/stats/busbw"]; v = d[:-1]; a = dict(d.attrs); del f["cases/000002/stats/busbw"]; f["cases/000002/stats/busbw"] = v; f["cases/000002/stats/busbw"].attrs.update(a)'
damage no_world_size 'del f.attrs["world_size"]'
# Bytes changed in place, as a bad disk or copy would: each caught by its checksum, the message
# naming the object (SPEC.md, "Integrity").
flip() {  # flip NAME 'python giving the offset of a byte of f (h5py.File) to change'
  cp "$good" "$work/$1.h5"
  at=$(/usr/bin/python3 -c "import h5py, sys; f = h5py.File(sys.argv[1], 'r'); print($2)" "$good")
  /usr/bin/python3 -c "import sys; f = open(sys.argv[1], 'r+b'); f.seek(int(sys.argv[2])); b = f.read(1)[0]; f.seek(int(sys.argv[2])); f.write(bytes([b ^ 0x40]))" "$work/$1.h5" "$at"
}
flip chunk 'f["cases/000001/stats/time_median"].id.get_chunk_info(0).byte_offset + 3'
flip header 'h5py.h5o.get_info(f["cases/000002"].id).addr + 60'
flip superblock '30'
head -c 3000 "$good" >"$work/truncated.h5"
head -c $(($(stat -c %s "$good") / 2)) "$good" >"$work/half.h5"
echo "not results" >"$work/text.h5"

while IFS='|' read -r file expect; do
  [[ -z $file ]] && continue
  "$report" $file >"$work/out" 2>&1
  rc=$?
  if [[ $rc -eq 2 ]] && grep -qF -- "$expect" "$work/out" && ! grep -q "HDF5-DIAG" "$work/out"; then
    pass "$(basename "${file%% *}"): exit 2, '$(head -1 "$work/out" | cut -c1-110)'"
  else
    fail "$file: exit $rc, expected 2 and '$expect'"
    head -3 "$work/out"
  fi
done <<EOF2
$work/version.h5|results schema version 99, this preflight-report reads versions 1 and 2
$work/no_environment.h5|the group /environment is missing
$work/no_column.h5|column 'time_median' of case 000000's stats is missing
$work/no_status.h5|case 000001 was cut short while being written
$work/short_column.h5|stats column 'busbw' has a different length
$work/no_world_size.h5|attribute 'world_size' of the run is missing
$work/chunk.h5|chunk.h5: damaged results file: checksum failed reading /cases/000001/stats/time_median; its bytes changed after preflight wrote it
$work/header.h5|header.h5: damaged results file: checksum failed opening group /cases/000002;
$work/superblock.h5|superblock.h5: damaged results file: checksum failed opening the file
$work/truncated.h5|$work/truncated.h5: damaged or truncated results file (
$work/half.h5|$work/half.h5: damaged or truncated results file (
$work/text.h5|not an HDF5 file
$work/missing.h5|$work/missing.h5: no such file (check the path)
$good $work/version.h5|version.h5: results schema version 99
EOF2
# A file another process holds locked, as HDF5 does while a run writes it: in use, not damaged.
cp "$good" "$work/locked.h5"
/usr/bin/python3 -c '
import fcntl, subprocess, sys
with open(sys.argv[1], "rb") as f:
    fcntl.flock(f, fcntl.LOCK_EX)
    r = subprocess.run([sys.argv[2], sys.argv[1]], capture_output=True, text=True)
print(r.returncode, r.stderr.strip())' "$work/locked.h5" "$report" >"$work/out" 2>&1
grep -q "^2 .*locked.h5: in use by another process" "$work/out" &&
  pass "a file locked by its writer: exit 2, in use (not damaged)" ||
  { fail "locked file: $(cat "$work/out")"; }
"$report" "$work/locked.h5" >/dev/null 2>&1 && pass "the same file once unlocked: read" ||
  fail "the file unlocked: not read"

"$report" >"$work/out" 2>&1
[[ $? -eq 2 ]] && pass "no file: exit 2" || fail "no file: expected exit 2"
# A soak threshold out of range is bad input naming its flag (docs/report.md, "Soaks").
for flag in "--soak-isolate-episodes 0" "--soak-min-drift -1" "--soak-isolate-drift 0" "--soak-alpha 2" "--soak-frequent-share 0"; do
  # shellcheck disable=SC2086
  "$report" "$good" $flag >"$work/out" 2>&1
  rc=$?
  [[ $rc -eq 2 ]] && grep -qF -- "${flag%% *}" "$work/out" && pass "$flag: exit 2 naming it" ||
    fail "$flag: exit $rc: $(head -2 "$work/out")"
done
finish
