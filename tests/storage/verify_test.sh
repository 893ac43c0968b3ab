#!/usr/bin/env bash
# Verify mode: a data set prepared and kept reads back right; one corrupt 4 KiB page planted in
# rank 2's file (dd) is caught by every engine: each engine reads it in a run of its own, which
# must name the page by file and offset, fail its cases on rank 2 alone and exit 1 (in one run
# of all engines, one engine's message would hide another's silence). The last run, without
# --keep, removes the data set.
# verify_test.sh PREFLIGHT WORKDIR CHECKER...
set -uo pipefail
bin=$1 work=$2
shift 2
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work/data"
set_dir=$work/data/preflight-verify
engines=(psync io_uring mmap)
args=(storage --dir "$work/data" --dataset verify --size 1M --block-sizes 64K --verify true
      --warmup 0 --min-iters 1 --iters 2)
mpirun -np 4 "$bin" "${args[@]}" --engine "$(IFS=,; echo "${engines[*]}")" --keep true \
  -o "$work/clean.h5" >"$work/clean.log" 2>&1
expect "a clean data set verifies with every engine (exit 0)" test $? -eq 0
expect "--keep kept the data set" test -f "$set_dir/rank-000002.dat"
expect "the marker says complete" grep -q '"state": "complete"' "$set_dir/.preflight-dataset"
# Offset 200000 lies in the 4 KiB page that starts at 196608.
printf 'XXXXXXXX' | dd of="$set_dir/rank-000002.dat" bs=1 seek=200000 conv=notrunc status=none
named="rank 2: verify: bad block in $set_dir/rank-000002.dat at offset 196608 (4 KiB page; first wrong byte at offset 200000)"
for engine in "${engines[@]}"; do
  keep=true
  [[ $engine == "${engines[-1]}" ]] && keep=false
  mpirun -np 4 "$bin" "${args[@]}" --engine "$engine" --keep $keep -o "$work/corrupt-$engine.h5" \
    >"$work/corrupt-$engine.log" 2>&1
  rc=$?
  expect "$engine: a corrupt block fails the run (exit 1, got $rc)" test $rc -eq 1
  expect "$engine: the bad block is named by file and offset" grep -qF "$named" "$work/corrupt-$engine.log"
  expect "$engine: the results say which rank read it" "$@" --status failed --failed-rank 2 --min-cases 1 \
    "$work/corrupt-$engine.h5"
  read_by=$(h5 "$work/corrupt-$engine.h5" 'print(" ".join(sorted({text(c.attrs["engine"]) for c in f["cases"].values()})))')
  expect "$engine: its cases are this engine's (engine attribute: '$read_by')" test "$read_by" = "$engine"
done
expect "without --keep the data set is removed" test ! -e "$set_dir"
grep -h "verify:" "$work"/corrupt-*.log | head -3

# A set kept by a preflight whose pattern was another (its marker has no "pattern" version) is
# written again, not read as bad blocks: planted bytes stand in for the old content.
legacy=(storage --dir "$work/data" --dataset legacy --size 3M --block-sizes 1M --verify true
        --warmup 0 --min-iters 1 --iters 1)
mpirun -np 4 "$bin" "${legacy[@]}" --keep true -o "$work/legacy-1.h5" >"$work/legacy-1.log" 2>&1
expect "3 MiB a rank (3 periods of the pattern) verifies (exit 0)" test $? -eq 0
/usr/bin/python3 - "$work/data/preflight-legacy/.preflight-dataset" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
del m["pattern"]
json.dump(m, open(sys.argv[1], "w"))
PY
printf 'XXXXXXXX' | dd of="$work/data/preflight-legacy/rank-000001.dat" bs=1 seek=$((2 * 1048576 + 4104)) \
  conv=notrunc status=none
mpirun -np 4 "$bin" "${legacy[@]}" --keep false -o "$work/legacy-2.h5" >"$work/legacy-2.log" 2>&1
expect "a set with an older pattern is written again and verifies (exit 0)" test $? -eq 0
expect "and removed after (not kept)" test ! -e "$work/data/preflight-legacy"
finish
