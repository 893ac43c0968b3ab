#!/usr/bin/env bash
# Verify mode: a data set prepared and kept reads back right; one corrupt 4 KiB page planted in
# rank 2's file (dd) is caught by every engine, named by file and offset, the cases fail on
# rank 2 alone and preflight exits 1. The run without --keep removes the data set.
# verify_test.sh PREFLIGHT WORKDIR CHECKER...
set -uo pipefail
bin=$1 work=$2
shift 2
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work/data"
set_dir=$work/data/preflight-verify
args=(storage --dir "$work/data" --dataset verify --engine psync,io_uring,mmap --size 1M
      --block-sizes 64K --verify true --warmup 0 --min-iters 1 --iters 2)
mpirun -np 4 "$bin" "${args[@]}" --keep true -o "$work/clean.h5" >"$work/clean.log" 2>&1
expect "a clean data set verifies (exit 0)" test $? -eq 0
expect "--keep kept the data set" test -f "$set_dir/rank-000002.dat"
expect "the marker says complete" grep -q '"state": "complete"' "$set_dir/.preflight-dataset"
# Offset 200000 lies in the 4 KiB page that starts at 196608.
printf 'XXXXXXXX' | dd of="$set_dir/rank-000002.dat" bs=1 seek=200000 conv=notrunc status=none
mpirun -np 4 "$bin" "${args[@]}" -o "$work/corrupt.h5" >"$work/corrupt.log" 2>&1
rc=$?
expect "a corrupt block fails the run (exit 1, got $rc)" test $rc -eq 1
expect "the bad block is named by file and offset" \
  grep -q "rank 2: verify: bad block in $set_dir/rank-000002.dat at offset 196608 (4 KiB page; first wrong byte at offset 200000)" "$work/corrupt.log"
expect "the results say which rank read it" "$@" --status failed --failed-rank 2 --min-cases 3 "$work/corrupt.h5"
expect "without --keep the data set is removed" test ! -e "$set_dir"
grep "verify:" "$work/corrupt.log" | head -3
finish
