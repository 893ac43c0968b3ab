#!/usr/bin/env bash
# On a machine with GPUs: the NCCL backend on one rank per GPU runs every collective in and out
# of place, stream-launched and from CUDA graphs, with local registration, and every result is
# right; a planted corruption is caught on the GPU; backend auto picks NCCL.
# gpu_test.sh PREFLIGHT WORK PYTHON CHECK_RESULTS... ; exit 77 (skipped, with the reason) without.
set -euo pipefail
bin=$1 work=$2 python=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
run=$here/../mpi/run_and_check.sh
rc=0
why=$("$here/has_gpu.sh" "$bin") || rc=$?
case $rc in
  0) ;;
  1) echo "SKIPPED: $why"; exit 77 ;;
  *) echo "FAIL: $why"; exit 1 ;;
esac
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || echo 1)
[[ $gpus -ge 1 ]] || gpus=1
rm -rf "$work" && mkdir -p "$work"
quick=(--warmup 2 --min-iters 3 --iters 5 --budget 1ms --batch-blocks 2 --sizes 8,12345,1M)
"$run" --np "$gpus" --rc 0 --out "$work/stream.h5" --bin "$bin" \
  --check "$python $here/check_backend.py --cases-backend nccl --gpu-attributes" \
  -- comm --backend nccl --op all --placement both --redop sum,max,min "${quick[@]}"
"$@" --status complete "$work/stream.h5"
"$run" --np "$gpus" --rc 0 --out "$work/graph.h5" --bin "$bin" \
  --check "$python $here/check_backend.py --cases-backend nccl" \
  -- comm --backend nccl --op allreduce,allgather --cuda-graph true --registration local "${quick[@]}"
"$run" --np "$gpus" --rc 1 --out "$work/corrupt.h5" --bin "$bin" \
  --check "$* --status failed --failed-rank 0" \
  -- comm --backend nccl --op allreduce,reducescatter,broadcast --test-corrupt-rank 0 "${quick[@]}"
"$run" --np "$gpus" --rc 0 --out "$work/auto.h5" --bin "$bin" \
  --check "$python $here/check_backend.py --cases-backend nccl" \
  -- comm --backend auto --op allreduce "${quick[@]}"
echo "PASS: NCCL collectives verified on $gpus GPU(s)"
