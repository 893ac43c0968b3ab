#!/usr/bin/env bash
# The dataloader family end to end: `preflight dataset make` writes 2,000 images (small ones, so
# the test is fast), three are damaged (a corrupt header, a truncated file, an end-of-image
# marker in the middle of the data); the pipeline runs with mpirun -np 2 over both cache states
# and two worker counts; the h5py checker re-derives every per-stage time and the AU; the
# damaged images are counted and named and the run still completes; a changed figure is
# rejected; the check pass catches a corrupted batch; the report names the limiting stage; bad
# input is refused with exit 2 before anything runs; shards read like files.
# dataloader_test.sh PREFLIGHT PREFLIGHT_REPORT WORKDIR CHECKER...
set -uo pipefail
bin=$1 report=$2 work=$3
shift 3
source "$(dirname "$0")/../faults/common.sh"
family=dataloader
source "$(dirname "$0")/../storage/refusals.sh"
data=$work/images

"$bin" dataset make --images 2000 --mean-width 96 --seed 7 "$data" >"$work/make.log" 2>&1
expect "dataset make writes 2000 images (exit 0)" test $? -eq 0 -a "$(ls "$data" | wc -l)" -eq 2000
"$bin" dataset make --images 3 --mean-width 96 --seed 7 "$work/again" >/dev/null 2>&1
expect "the same seed writes the same images" cmp -s "$data/img-0000002.jpg" "$work/again/img-0000002.jpg"
# A header that does not parse; a file cut in half; an end-of-image marker in the middle of the
# entropy-coded data (its header and end look whole: only decoding finds it).
printf '\xff\xd8\xff\x00garbage-garbage-garbage' | dd of="$data/img-0000000.jpg" conv=notrunc status=none
size=$(stat -c %s "$data/img-0000001.jpg")
truncate -s $((size / 2)) "$data/img-0000001.jpg"
size=$(stat -c %s "$data/img-0000002.jpg")
printf '\xff\xd9' | dd of="$data/img-0000002.jpg" bs=1 seek=$((size / 2)) conv=notrunc status=none

# 1,998 good images: 999 per rank, 27 batches of 37 each (every image in every pass).
args=(dataloader --data-dir "$data" --batch-size 37 --crop 32 --compute-per-batch 1ms --warmup 0
      --min-iters 3 --iters 3)
mpirun -np 2 "$bin" "${args[@]}" --cache warm --workers 1,2 -o "$work/run.h5" >"$work/run.log" 2>&1
expect "the pipeline runs to the end on 2 ranks despite the bad images (exit 0)" test $? -eq 0
expect "the results re-derive: per-stage times, rates, AU (h5py checker)" "$@" --status complete \
  --dataloader --bad-images 2 \
  --bad-names "img-0000000.jpg: corrupt JPEG header,img-0000001.jpg: truncated JPEG" "$work/run.h5"
expect "the image damaged mid-stream is named on stderr" \
  grep -q "dataloader: img-0000002.jpg failed to decode" "$work/run.log"
# The batch buffers are pinned where every rank has a GPU, and say why not elsewhere.
memory=$(h5 "$work/run.h5" "print(text(f['cases']['000000'].attrs['batch_memory']))")
if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then want="pinned (cudaHostRegister)"; else want="pageable: "; fi
expect "batch_memory says how the batches are held ($memory)" test "${memory#"$want"}" != "$memory"
errors=$(h5 "$work/run.h5" "print(int(min(c['stats']['decode_errors'][:].min() for c in f['cases'].values())))")
expect "and counted in decode_errors at every point (min $errors)" at_least "$errors" 1
# The checker re-derives the figures: a copy with one changed is rejected.
for column in au decode_s images_per_s workers_needed; do
  cp "$work/run.h5" "$work/planted.h5"
  /usr/bin/python3 - "$work/planted.h5" "$column" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    d = f["cases"]["000000"]["stats"][sys.argv[2]]
    d[0] = d[0] * 1.5 + 1
PY
  "$@" "$work/planted.h5" >"$work/planted.log" 2>&1
  expect "the checker rejects a changed $column" grep -q "$column .* but the samples and counters give" "$work/planted.log"
done

# Evicted: every pass reads from storage, proven with mincore (a few batches: it is slow).
mpirun -np 2 "$bin" "${args[@]}" --cache evicted --workers 2 --batches-per-iteration 4 \
  -o "$work/evicted.h5" >"$work/evicted.log" 2>&1
expect "evicted: the pipeline runs (exit 0)" test $? -eq 0
expect "evicted: the results re-derive" "$@" --status complete --bad-images 2 "$work/evicted.h5"
resident=$(h5 "$work/evicted.h5" "print(float(f['cases']['000000']['stats']['resident_before_max'][0]))")
expect "evicted: at most 20% of the bytes were cached before a pass ($resident)" at_most "$resident" 0.2

# The check pass rebuilds batch 0 serially: a corrupted element fails that rank's case.
mpirun -np 2 "$bin" "${args[@]}" --cache warm --workers 2 --test-corrupt-rank 1 \
  -o "$work/corrupt.h5" >"$work/corrupt.log" 2>&1
expect "a corrupted batch fails the run (exit 1)" test $? -eq 1
expect "the results say rank 1 delivered it" "$@" --status failed --failed-rank 1 "$work/corrupt.h5"

# Decode is the dearest stage here; with too little compute per batch no worker count feeds
# the accelerator, and the report names the stage.
"$report" "$work/run.h5" >"$work/report.txt" 2>&1
expect "the report names the stage that limits the AU: data in: decode" \
  grep -q "data in: decode limits the accelerator utilisation" "$work/report.txt"
expect "the report shows the per-stage section" grep -q "Data pipeline: stages per worker count" "$work/report.txt"
expect "images/s below the AU target are shown as not valid, not as a figure" \
  grep -q "valid images/s *not valid (AU below target)" "$work/report.txt"

# Shards (WebDataset tar files) read like files.
"$bin" dataset make --images 200 --mean-width 64 --layout shards --shard-images 64 "$work/shards" >/dev/null 2>&1
mpirun -np 2 "$bin" dataloader --data-dir "$work/shards" --workers 1 --batch-size 20 --crop 16 \
  --cache warm --warmup 0 --min-iters 3 --iters 3 -o "$work/shards.h5" >"$work/shards.log" 2>&1
expect "tar shards: the pipeline runs (exit 0)" test $? -eq 0
expect "tar shards: the results re-derive" "$@" --status complete --bad-images 0 "$work/shards.h5"

mkdir -p "$work/empty" "$work/badshard" && echo "not a tar file, not at all, no header here" >"$work/badshard/a.tar"
head -c 600 /dev/zero | tr '\0' 'x' >"$work/badshard/a.tar"
refused "no images" "dataloader: data_dir: no images in '$work/empty'" --data-dir "$work/empty"
refused "missing directory" "is not a directory" --data-dir "$work/nowhere"
refused "unreadable shard" "dataloader: shard $work/badshard/a.tar cannot be read: no valid tar header at offset 0" \
  --data-dir "$work/badshard"
refused "smaller than one batch" "fewer than one batch of 5000: lower batch_size" \
  --data-dir "$data" --batch-size 5000
refused "no data_dir" "data_dir" --workers 1
if ! command -v nvidia-smi >/dev/null; then  # on a GPU machine scripts/device-check.sh runs it
  refused "nvjpeg without a GPU" "dataloader: decoder: nvjpeg cannot decode on every rank (no GPU" \
    --data-dir "$data" --decoder nvjpeg
fi
"$bin" dataset make --images 3 "$data" >"$work/stdout" 2>"$work/stderr"
expect "dataset make refuses a directory that is not empty (exit 2)" test $? -eq 2
expect "and says why" grep -q "exists and is not an empty directory" "$work/stderr"
finish
