#!/usr/bin/env bash
# Where no GPU is present (this CI machine), the NCCL backend says "no GPU" once and skips its
# cases with that reason in the file; backend auto runs MPI and the file says so; a variant's bad
# NCCL_ALGO and a NCCL option with backend mpi are bad input (exit 2) before anything runs.
# A variant that changes a variable NCCL reads once per process is refused too (exit 2).
# no_gpu_test.sh PREFLIGHT WORK PYTHON CHECK_RESULTS... ; on a GPU machine its GPUs are hidden
# (CUDA_VISIBLE_DEVICES empty), so it shows the same no-GPU path there.
set -euo pipefail
bin=$1 work=$2 python=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
run=$here/../mpi/run_and_check.sh
quick=(--warmup 1 --min-iters 2 --iters 2 --budget 1ms --batch-blocks 1 --sizes 8,4K)
export CUDA_VISIBLE_DEVICES=
gpu_rc=0
"$here/has_gpu.sh" "$bin" >/dev/null || gpu_rc=$?
[[ $gpu_rc -eq 1 ]] || { echo "FAIL: with CUDA_VISIBLE_DEVICES empty preflight still sees a GPU, or cannot say"; exit 1; }
rm -rf "$work" && mkdir -p "$work"

# nccl without a GPU: one line, no case, the reason in the file.
"$run" --np 2 --rc 0 --out "$work/nccl.h5" --bin "$bin" \
  --expect-output "^skipped: benchmark comm: backend nccl: no GPU on rank 0 \(" \
  --check "$python $here/check_backend.py --skipped-no-gpu" \
  -- comm --backend nccl --op allreduce,allgather "${quick[@]}" | tee "$work/nccl.log"
lines=$(grep -c "^skipped: .*no GPU" "$work/nccl.log" || true)
[[ $lines -eq 1 ]] || { echo "FAIL: 'no GPU' said $lines times, expected once"; exit 1; }

# auto without a GPU: MPI ran, every case says so; the file passes the schema checker.
"$run" --np 2 --rc 0 --out "$work/auto.h5" --bin "$bin" \
  --check "$python $here/check_backend.py --cases-backend mpi" \
  -- comm --backend auto --op allreduce "${quick[@]}"
"$@" --status complete "$work/auto.h5"

# A variant's misspelt NCCL_ALGO value: exit 2, the message names the key and the choices.
cat >"$work/bad_algo.yaml" <<'YAML'
variants:
  - name: rnig
    env: {NCCL_ALGO: Rnig}
benchmarks:
  - family: comm
    backend: auto
    sizes: 8
YAML
"$run" --np 2 --rc 2 --bin "$bin" \
  --expect-output "variants\[0\]\.env\.NCCL_ALGO: expected algorithms from ring, tree" \
  -- run "$work/bad_algo.yaml"
# A misspelt variable name: exit 2 with the name it resembles.
sed -i 's/NCCL_ALGO: Rnig/NCCL_PORTO: LL/' "$work/bad_algo.yaml"
"$run" --np 2 --rc 2 --bin "$bin" --expect-output "did you mean NCCL_PROTO" -- run "$work/bad_algo.yaml"
# Two variants that give NCCL_BUFFSIZE (read once per process) different values: exit 2 naming
# the variant's key and why; NCCL_ALGO (read per communicator) may differ.
cat >"$work/per_process.yaml" <<'YAML'
variants:
  - name: ring
    env: {NCCL_ALGO: ring}
  - name: tree-big-buffers
    env: {NCCL_ALGO: tree, NCCL_BUFFSIZE: 8388608}
benchmarks:
  - family: comm
    backend: auto
    sizes: 8
YAML
"$run" --np 2 --rc 2 --bin "$bin"   --expect-output "variants\[1\]\.env\.NCCL_BUFFSIZE: expected the same NCCL_BUFFSIZE in every variant: NCCL reads it once per process"   -- run "$work/per_process.yaml"
# A NCCL option with backend mpi: exit 2 naming it.
"$run" --np 2 --rc 2 --bin "$bin" --expect-output "cuda[-_]graph: expected backend nccl or auto" \
  -- comm --backend mpi --cuda-graph true "${quick[@]}"
echo "PASS: no-GPU skip, auto fallback and NCCL variable checks"
