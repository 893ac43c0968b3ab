#!/usr/bin/env bash
# The step fed by the dataloader's pipeline: a ResNet-50 step at 32 pixels on 4 ranks as 2
# virtual nodes, each micro-batch's images read (evicted first, proven by mincore), decoded,
# cropped and normalised by the loader; the h5py checker re-derives the data columns; the
# report prices the data term from the loader case that measured the same feed and puts the
# loader's own time beside the measured step; a feed no loader case measured is said to be
# unpriced; a data set too small for a step is refused naming data_dir.
# feed_test.sh PREFLIGHT PREFLIGHT_REPORT WORKDIR CONFIG CHECKER...
set -uo pipefail
bin=$1 report=$2 work=$3 config=$4
shift 4
source "$(dirname "$0")/../faults/common.sh"
source "$(dirname "$0")/../../scripts/mpi-env.sh"
rm -rf "$work" && mkdir -p "$work"
data=$work/images
"$bin" dataset make --images 64 --mean-width 160 --seed 11 "$data" >"$work/make.log" 2>&1
expect "dataset make writes 64 images (exit 0)" test $? -eq 0
set_data=(--set "loader.data_dir=$data" --set "step.data_dir=$data")

mpirun -np 4 "$bin" run "$config" "${set_data[@]}" -o "$work/run.h5" >"$work/run.log" 2>&1
expect "the fed step runs (exit 0)" test $? -eq 0
expect "the data columns re-derive, the images were evicted before each step (h5py checker)" \
  "$@" --status complete --nodes 2 --min-cases 5 "$work/run.h5"
feed=$(h5 "$work/run.h5" "a = [c for c in f['cases'].values() if text(c.attrs['family']) == 'step'][0].attrs
print(int(a['data_workers']), text(a['data_engine']), text(a['data_cache']), text(a['gemm_device']))")
expect "the case records its feed: 1 worker, psync, evicted, GEMMs on the CPU" test "$feed" = "1 psync evicted cpu"

"$report" "$work/run.h5" --json "$work/r.json" >"$work/r.txt" 2>&1
expect "the report runs (exit 0)" test $? -eq 0
expect "the data term is priced from the loader case of the same feed, 1 worker a rank" \
  grep -q "data: 2 samples per rank at .* (case [0-9]* (load files psync evicted batch 1 .*, 1 workers per rank, .*on the CPUs the GEMMs use: prefetched only while the ranks wait" "$work/r.txt"
expect "each measured step's data part counts the loader's share of the CPUs it shared with the GEMMs and collectives" \
  test "$(grep -c "data .*: waits .* and [0-9]*% of the rest, the loader's share" "$work/r.txt")" -ge 2

# Only the step's feed differs from the run above: matmul and the all-reduce at one point each.
mpirun -np 4 "$bin" run "$config" "${set_data[@]}" --set step.data_workers=2 --set gemm.sizes=[128] \
  --set gradient.sizes=4M -o "$work/other.h5" >"$work/other.log" 2>&1
"$report" "$work/other.h5" >"$work/other.txt" 2>&1
expect "a feed no loader case measured (2 workers) is not priced, and the report says what to add" \
  grep -q "data: no dataloader case measured the step's feed (.*, 2 workers per rank" "$work/other.txt"

"$bin" dataset make --images 6 --mean-width 64 "$work/few" >/dev/null 2>&1
mpirun -np 4 "$bin" step --ranks-per-node 2 --model resnet50 --image-size 32 --global-batch 8 \
  --step-data-dir "$work/few" -o "$work/few.h5" >"$work/few.log" 2>&1
rc=$?
expect "a data set too small for a step is refused (exit 2), naming data_dir and the fix" \
  test $rc -eq 2 -a "$(grep -c "step: data_dir: 6 images .* fewer than the 4 a step takes at 1 nodes: use a larger data set" "$work/few.log")" -ge 1
expect "... and writes no file" test ! -e "$work/few.h5"
finish
