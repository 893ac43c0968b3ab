#!/usr/bin/env bash
# The storage family's safety rules, each with exit code 2 and a clear message: a directory
# that is missing or read-only, a directory or file it did not create (left untouched), too
# little free space (with the numbers), tmpfs for a cold read, and ENOSPC in the middle of
# prepare (test-only fault), which leaves no half data set: the next run writes it again.
# safety_test.sh PREFLIGHT WORKDIR
set -uo pipefail
bin=$1 work=$2
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work/data"
mounts=()
cleanup() { for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done; }
trap cleanup EXIT
small=(--size 1M --block-sizes 64K --warmup 0 --min-iters 1 --iters 1)
refused() {  # refused DESCRIPTION MESSAGE ARGS...: exit 2, MESSAGE on stderr, no results file
  local what=$1 message=$2; shift 2
  rm -f "$work/out.h5"
  mpirun -np 2 "$bin" storage "$@" -o "$work/out.h5" >"$work/stdout" 2>"$work/stderr"
  local rc=$?
  if [[ $rc -eq 2 ]] && grep -qF -- "$message" "$work/stderr" && [[ ! -e $work/out.h5 ]]; then
    pass "$what: $(grep -m1 preflight: "$work/stderr")"
  else
    fail "$what: exit $rc, stderr: $(head -3 "$work/stderr")"
  fi
}
refused "missing dir" "does not exist" --dir "$work/nowhere" "${small[@]}"

if mkdir -p "$work/ro" && mount -t tmpfs -o ro,size=1m tmpfs "$work/ro" 2>/dev/null; then
  mounts+=("$work/ro")
  refused "read-only dir" "cannot write to dir '$work/ro'" --dir "$work/ro" --cache warm "${small[@]}"
else
  echo "skip: cannot mount a read-only file system here"
fi
if mkdir -p "$work/mem" && mount -t tmpfs -o size=64m tmpfs "$work/mem" 2>/dev/null; then
  mounts+=("$work/mem")
  refused "tmpfs for an evicted read" "is on tmpfs (memory)" --dir "$work/mem" --cache evicted "${small[@]}"
  refused "tmpfs for a direct read" "is on tmpfs (memory)" --dir "$work/mem" --cache direct "${small[@]}"
  mpirun -np 2 "$bin" storage --dir "$work/mem" --cache warm "${small[@]}" >/dev/null 2>&1
  expect "tmpfs for a warm read runs (it measures memory on purpose)" test $? -eq 0
else
  echo "skip: cannot mount tmpfs here"
fi

mkdir -p "$work/data/preflight-theirs" && echo precious >"$work/data/preflight-theirs/rank-000000.dat"
sum=$(sha256sum "$work/data/preflight-theirs/rank-000000.dat")
refused "a set directory preflight did not create" "was not created by preflight" \
  --dir "$work/data" --dataset theirs "${small[@]}"
expect "its file is untouched" test "$(sha256sum "$work/data/preflight-theirs/rank-000000.dat")" == "$sum"

mpirun -np 2 "$bin" storage --dir "$work/data" --dataset ours --keep true "${small[@]}" >/dev/null 2>&1
echo precious >"$work/data/preflight-ours/shared.dat"
refused "a file in the set that the marker does not list" "its marker does not list it" \
  --dir "$work/data" --dataset ours --file-layout shared "${small[@]}"
expect "that file is untouched" grep -qx precious "$work/data/preflight-ours/shared.dat"
rm -rf "$work/data/preflight-ours"

refused "too little free space" "not enough free space in '$work/data' for the data set: it needs 2147483648000 bytes" \
  --dir "$work/data" --size 1000G --block-sizes 1M --warmup 0 --min-iters 1 --iters 1

# A real ENOSPC: two data sets on a 3 MiB tmpfs, each passing the free-space check alone.
if mkdir -p "$work/small" && mount -t tmpfs -o size=3m tmpfs "$work/small" 2>/dev/null; then
  mounts+=("$work/small")
  mpirun -np 2 "$bin" run "$(dirname "$0")/enospc.yaml" --set storage.dir="$work/small" \
    -o "$work/real-enospc.h5" >"$work/stdout" 2>"$work/stderr"
  rc=$?
  expect "real ENOSPC while preparing: exit 2 (got $rc)" test $rc -eq 2
  expect "real ENOSPC: the message names the file and the error" \
    grep -q "writing $work/small/preflight-second/rank-00000[01].dat at offset [0-9]*: No space left on device; the partial data set was removed" "$work/stderr"
  expect "real ENOSPC: nothing is left on the file system ($(ls -A "$work/small" | tr '\n' ' '))" \
    test -z "$(ls -A "$work/small")"
else
  echo "skip: cannot mount a small tmpfs here (the test-only fault below still runs)"
fi

PREFLIGHT_TEST_ENOSPC_AFTER=300000 mpirun -np 2 -x PREFLIGHT_TEST_ENOSPC_AFTER "$bin" storage \
  --dir "$work/data" --dataset full "${small[@]}" -o "$work/enospc.h5" >"$work/stdout" 2>"$work/stderr"
rc=$?
expect "ENOSPC while preparing: exit 2 (got $rc)" test $rc -eq 2
expect "ENOSPC: the message names the file, the offset and the error" \
  grep -q "failed on rank 0 .*: writing $work/data/preflight-full/rank-000000.dat at offset 300000: No space left on device; the partial data set was removed" "$work/stderr"
expect "ENOSPC: no half data set is left behind" test ! -e "$work/data/preflight-full"
mpirun -np 2 "$bin" storage --dir "$work/data" --dataset full --verify true "${small[@]}" \
  -o "$work/after.h5" >"$work/after.log" 2>&1
expect "the next run writes the data set again and it verifies" test $? -eq 0
finish
