#!/usr/bin/env bash
# The storage family's safety rules, each with exit code 2 and a clear message: a directory
# that is missing or read-only, a directory or file it did not create (left untouched), too
# little free space (with the numbers), tmpfs for a cold read, and ENOSPC in the middle of
# prepare (test-only fault), which leaves no half data set: the next run writes it again.
# A planted data set is refused, its files untouched: a marker listing a symbolic link to
# another file, a set directory that is a symbolic link, one another user owns. other-node
# with a different number of ranks on each node is refused.
# A part this machine cannot run (tmpfs mounts and chown need root) makes the test a ctest
# skip (exit 77) naming it, never a pass; the other checks still run and can fail it.
# safety_test.sh PREFLIGHT WORKDIR
set -uo pipefail
bin=$1 work=$2
source "$(dirname "$0")/../faults/common.sh"
family=storage
source "$(dirname "$0")/refusals.sh"
refused "missing dir" "does not exist" --dir "$work/nowhere" "${small[@]}"

if mkdir -p "$work/ro" && mount -t tmpfs -o ro,size=1m tmpfs "$work/ro" 2>/dev/null; then
  mounts+=("$work/ro")
  refused "read-only dir" "cannot write to dir '$work/ro'" --dir "$work/ro" --cache warm "${small[@]}"
else
  skip_part "cannot mount a read-only tmpfs here (needs root): the read-only directory refusal did not run"
fi
if mkdir -p "$work/mem" && mount -t tmpfs -o size=64m tmpfs "$work/mem" 2>/dev/null; then
  mounts+=("$work/mem")
  refused "tmpfs for an evicted read" "is on tmpfs (memory)" --dir "$work/mem" --cache evicted "${small[@]}"
  refused "tmpfs for a direct read" "is on tmpfs (memory)" --dir "$work/mem" --cache direct "${small[@]}"
  mpirun -np 2 "$bin" storage --dir "$work/mem" --cache warm "${small[@]}" >/dev/null 2>&1
  expect "tmpfs for a warm read runs (it measures memory on purpose)" test $? -eq 0
else
  skip_part "cannot mount tmpfs here (needs root): the tmpfs refusals did not run"
fi

mkdir -p "$work/data/preflight-theirs" && echo precious >"$work/data/preflight-theirs/rank-000000.dat"
sum=$(sha256sum "$work/data/preflight-theirs/rank-000000.dat")
refused "a set directory preflight did not create" "was not created by preflight" \
  --dir "$work/data" --dataset theirs "${small[@]}"
expect "its file is untouched" test "$(sha256sum "$work/data/preflight-theirs/rank-000000.dat")" == "$sum"

mpirun -np 2 "$bin" storage --dir "$work/data" --dataset ours --keep true "${small[@]}" >/dev/null 2>&1
expect "a new set directory is private (mode $(stat -c %a "$work/data/preflight-ours"))" \
  test "$(stat -c %a "$work/data/preflight-ours")" = 700
echo precious >"$work/data/preflight-ours/shared.dat"
refused "a file in the set that the marker does not list" "its marker does not list it" \
  --dir "$work/data" --dataset ours --file-layout shared "${small[@]}"
expect "that file is untouched" grep -qx precious "$work/data/preflight-ours/shared.dat"
rm -rf "$work/data/preflight-ours"

# The attack: a planted set whose marker lists a symbolic link to someone else's file. Without
# the check preflight truncated and overwrote the victim, and its cleanup removed the link.
echo "the victim's own bytes" >"$work/victim"
victim_sum=$(sha256sum <"$work/victim")
plant() {  # plant SETDIR: a marker, as preflight writes it, listing rank-000000.dat
  mkdir -p "$1"
  printf '{"creator": "preflight", "bytes_per_rank": 1048576, "rank_files": 0, "shared_ranks": 0, "files": ["rank-000000.dat"], "state": "incomplete"}\n' \
    >"$1/.preflight-dataset"
}
planted=$work/data/preflight-1r-1048576
plant "$planted"
ln -s "$work/victim" "$planted/rank-000000.dat"
np=1 refused "a listed file that is a symbolic link (the reviewer's repro)" \
  "'$planted/rank-000000.dat' is a symbolic link" --dir "$work/data" "${small[@]}"
expect "the victim is byte-identical" test "$(sha256sum <"$work/victim")" == "$victim_sum"
expect "the link is still there" test -L "$planted/rank-000000.dat"
refused "the same with 2 ranks and the shared file" "'$planted/rank-000000.dat' is a symbolic link" \
  --dir "$work/data" --dataset 1r-1048576 --file-layout both "${small[@]}"
expect "the victim is byte-identical" test "$(sha256sum <"$work/victim")" == "$victim_sum"
rm -rf "$planted"
plant "$work/elsewhere"
ln "$work/victim" "$work/elsewhere/rank-000000.dat"
ln -s "$work/elsewhere" "$work/data/preflight-linked"
refused "a set directory that is a symbolic link" \
  "'$work/data/preflight-linked' is a symbolic link" --dir "$work/data" --dataset linked "${small[@]}"
expect "the victim is byte-identical" test "$(sha256sum <"$work/victim")" == "$victim_sum"
expect "the linked directory keeps its files" test -f "$work/elsewhere/rank-000000.dat"
rm "$work/data/preflight-linked"
mv "$work/elsewhere" "$work/data/preflight-hardlink"  # its rank-000000.dat is the victim
refused "a listed file with another hard link" "rank-000000.dat' has 2 hard links" \
  --dir "$work/data" --dataset hardlink "${small[@]}"
expect "the victim is byte-identical" test "$(sha256sum <"$work/victim")" == "$victim_sum"
rm -rf "$work/data/preflight-hardlink"
if [[ $(id -u) -eq 0 ]]; then
  plant "$work/data/preflight-owned"
  chown -R 65534 "$work/data/preflight-owned"
  refused "a set directory another user owns" "'$work/data/preflight-owned' is owned by uid 65534" \
    --dir "$work/data" --dataset owned "${small[@]}"
  expect "its marker is untouched" test -f "$work/data/preflight-owned/.preflight-dataset"
  rm -rf "$work/data/preflight-owned"
else
  skip_part "not root: cannot give a set directory to another user, that refusal did not run"
fi

# other-node needs the same ranks on every node: with 2 and 1 two ranks would read one file.
np=3 refused "other-node with 2 ranks on one node and 1 on the other" \
  "cache: other-node needs the same number of ranks on every node" \
  --dir "$work/data" --ranks-per-node 2 --cache other-node "${small[@]}"

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
  skip_part "cannot mount a small tmpfs here (needs root): the real ENOSPC did not run (the test-only fault below still runs)"
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
