#!/usr/bin/env bash
# The checkpoint family's restore names a planted corrupt block (file and offset) and fails the
# rank that read it; its safety rules are the storage family's, each with exit code 2 and a
# clear message: a missing directory, tmpfs for a save, a set directory it did not create (left
# untouched), too little free space (both numbers), a real ENOSPC on a small tmpfs (nothing left
# behind), bad config (the field named); the checkpoint is removed unless kept.
# A part this machine cannot run (tmpfs mounts and chown need root) makes the test a ctest
# skip (exit 77) naming it, never a pass; the other checks still run and can fail it.
# checkpoint_test.sh PREFLIGHT WORKDIR CHECKER...
set -uo pipefail
bin=$1 work=$2
shift 2
source "$(dirname "$0")/../faults/common.sh"
family=checkpoint
source "$(dirname "$0")/../storage/refusals.sh"

# A restore after a save reads back what the save wrote; a block corrupted between runs is
# named by file and offset, and only the rank that read it fails. The clean run's shards span
# 3 periods of the pattern, in blocks of less than one (filled whole) and of one (each buffer
# filled once, then only its pages' first words changed), with psync and io_uring at depth 2.
set_dir=$work/data/preflight-verify
args=(checkpoint --dir "$work/data" --dataset verify --size 3M --block-sizes 64K,1M --warmup 0
      --min-iters 1 --iters 2)
mpirun -np 4 "$bin" "${args[@]}" --engine psync,io_uring --queue-depth 2 --keep true \
  -o "$work/clean.h5" >"$work/clean.log" 2>&1
expect "save then restore of a clean checkpoint (exit 0)" test $? -eq 0
expect "the results re-derive (h5py checker)" "$@" --status complete --min-cases 4 "$work/clean.h5"
expect "--keep kept the checkpoint, marked complete after its restore" \
  grep -q '"state": "complete"' "$set_dir/.preflight-dataset"
# The checker re-derives the save's figures: a copy with one figure changed is rejected.
for plant in "stats/save_bw:save_bw" "stats/blocking_s:blocking_s" "stats/handoff_bw:handoff_bw"; do
  cp "$work/clean.h5" "$work/planted.h5"
  /usr/bin/python3 - "$work/planted.h5" "${plant%%:*}" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    save = next(c for c in f["cases"].values() if c.attrs["phase"] in (b"save", "save"))
    d = save[sys.argv[2]]
    d[0] = d[0] * 1.5
PY
  "$@" "$work/planted.h5" >"$work/planted.log" 2>&1
  expect "the checker rejects a changed ${plant##*:}" grep -q "${plant##*:} .* but the samples and counters give" "$work/planted.log"
done
printf 'XXXXXXXX' | dd of="$set_dir/rank-000002.dat" bs=1 seek=200000 conv=notrunc status=none
named="rank 2: verify: bad block in $set_dir/rank-000002.dat at offset 196608 (4 KiB page; first wrong byte at offset 200000)"
for engine in psync io_uring; do
  mpirun -np 4 "$bin" "${args[@]}" --phases restore --engine $engine --keep true \
    -o "$work/corrupt-$engine.h5" >"$work/corrupt-$engine.log" 2>&1
  rc=$?
  expect "$engine: a corrupt block fails the restore (exit 1, got $rc)" test $rc -eq 1
  expect "$engine: the bad block is named by file and offset" grep -qF "$named" "$work/corrupt-$engine.log"
  expect "$engine: the results say which rank read it" "$@" --status failed --failed-rank 2 \
    "$work/corrupt-$engine.h5"
done
mpirun -np 4 "$bin" "${args[@]}" --phases save,restore -o "$work/rewritten.h5" >"$work/rewritten.log" 2>&1
expect "a save writes the corrupt block again and the restore verifies (exit 0)" test $? -eq 0
expect "without --keep the checkpoint is removed" test ! -e "$set_dir"

refused "missing dir" "does not exist" --dir "$work/nowhere" "${small[@]}"
refused "no size" "expected exactly one of size (bytes per rank), model (a preset) or parameters" \
  --dir "$work/data" --block-sizes 64K
refused "unknown model" "llama3-8b" --dir "$work/data" --model llama-9 --block-sizes 64K
refused "too little free space for a preset (8B model on 2 ranks)" \
  "not enough free space in '$work/data' for the data set: it needs 112424124416 bytes" \
  --dir "$work/data" --model llama3-8b --block-sizes 1M --warmup 0 --min-iters 1 --iters 1
mkdir -p "$work/data/preflight-theirs" && echo precious >"$work/data/preflight-theirs/rank-000000.dat"
sum=$(sha256sum "$work/data/preflight-theirs/rank-000000.dat")
refused "a set directory preflight did not create" "was not created by preflight" \
  --dir "$work/data" --dataset theirs "${small[@]}"
expect "its file is untouched" test "$(sha256sum "$work/data/preflight-theirs/rank-000000.dat")" == "$sum"
np=3 refused "other-node with 2 ranks on one node and 1 on the other" \
  "checkpoint: restore: other-node needs the same number of ranks on every node" \
  --dir "$work/data" --ranks-per-node 2 --restore other-node "${small[@]}"

if mkdir -p "$work/mem" && mount -t tmpfs -o size=64m tmpfs "$work/mem" 2>/dev/null; then
  mounts+=("$work/mem")
  refused "tmpfs for a save" "is on tmpfs (memory)" --dir "$work/mem" "${small[@]}"
else
  skip_part "cannot mount tmpfs here (needs root): the tmpfs refusals did not run"
fi
# A real ENOSPC: two checkpoints on a 3 MiB tmpfs, each passing the free-space check alone.
if mkdir -p "$work/small" && mount -t tmpfs -o size=3m tmpfs "$work/small" 2>/dev/null; then
  mounts+=("$work/small")
  mpirun -np 2 "$bin" run "$(dirname "$0")/enospc.yaml" --set checkpoint.dir="$work/small" \
    -o "$work/real-enospc.h5" >"$work/stdout" 2>"$work/stderr"
  rc=$?
  expect "real ENOSPC: exit 2 (got $rc)" test $rc -eq 2
  expect "real ENOSPC: the message names the file and the error" \
    grep -q "writing $work/small/preflight-second/rank-00000[01].dat at offset [0-9]*: No space left on device; the partial data set was removed" "$work/stderr"
  expect "real ENOSPC: nothing is left on the file system ($(ls -A "$work/small" | tr '\n' ' '))" \
    test -z "$(ls -A "$work/small")"
else
  skip_part "cannot mount a small tmpfs here (needs root): the real ENOSPC did not run"
fi
expect "nothing of preflight's is left in the directory ($(ls -A "$work/data" | tr '\n' ' '))" \
  test "$(ls -A "$work/data")" = "preflight-theirs"
finish
