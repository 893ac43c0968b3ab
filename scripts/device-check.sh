#!/usr/bin/env bash
# device-check.sh: runs every GPU path preflight has on this machine's GPUs and prints a table,
# one row as each check ends (a run cut off still shows what ran): what ran, its figures, pass
# or fail, then the targets of issue 35 as ratios. It runs the campaigns of configs/device/ (a
# family with a GPU path adds its config there), torch.matmul's figure beside preflight's, and
# its own NCCL checks (a planted corruption caught on the GPU, peer copies), one rank per GPU.
# Before it starts it prints the time its configs' timing will take (preflight's dry runs); the
# whole run keeps under --deadline (a check that would start past it is not run, and says so).
#
# It runs from the bundle scripts/device-bundle.sh makes (device-bundle/, copied to the GPU
# machine): device-bundle/device-check.sh [--out DIR] [--timeout S] [--deadline S]. From the
# repository, scripts/device-check.sh [--bundle DIR] uses that bundle (default device-bundle/).
#   --out DIR       where results, logs and the data set go (default $OUT/device-check when the
#                   caller's environment has OUT, else ./device-check-results); never the bundle
#   --timeout S     the most one check may take (default 150)
#   --deadline S    the most the whole run may take (default 220: under 4 minutes with start-up)
# Only preflight, preflight-report and mpirun see the bundle's libraries (LD_LIBRARY_PATH is set
# for them alone, or they run through the bundle's loader where this machine's C library is
# older): python3 and torch keep this machine's. NCCL, cuBLAS and nvJPEG are this machine's: the first
# found of $PREFLIGHT_NCCL_LIB, ldconfig, PyTorch's nvidia-nccl / nvidia-cublas wheels,
# /usr/local/cuda.
#
# PREFLIGHT_DEVICE_CHECK_WITHOUT_GPU=1 goes on where there is no GPU, for tests/nccl/bundle_test.sh
# to run the table's machinery on a CI machine (the GPU checks then fail or are skipped, exit 1).
#
# Exit codes: 0 every check passed; 1 a check failed or was not run (the table says which); 2 bad
# usage, or the bundle does not load here (a library missing: ldd's words); 3 no GPU: nothing ran
# (the message says why, in CUDA's words).
set -uo pipefail
export PATH=${PATH:-/usr/bin:/bin}
here=$(cd "$(dirname "$0")" && pwd)
bundle= out= timeout_s=150 deadline_s=220
while [[ $# -gt 0 ]]; do
  case $1 in
    --bundle) bundle=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --deadline) deadline_s=$2; shift 2 ;;
    *) echo "device-check.sh: unknown argument $1 (see the header)" >&2; exit 2 ;;
  esac
done
if [[ -z $bundle ]]; then
  if [[ -x $here/bin/preflight ]]; then bundle=$here; else bundle=$here/../device-bundle; fi
fi
bundle=$(cd "$bundle" 2>/dev/null && pwd) || { echo "device-check.sh: no bundle at $bundle; make it with scripts/device-bundle.sh" >&2; exit 2; }
[[ -z $out && -n ${OUT:-} ]] && out=$OUT/device-check
out=$(realpath -m "${out:-$PWD/device-check-results}")
case $out/ in "$bundle"/*) echo "device-check.sh: --out $out is inside the bundle; give a directory the caller keeps" >&2; exit 2 ;; esac
mkdir -p "$out" || { echo "device-check.sh: cannot make --out $out" >&2; exit 2; }
cd "$out" || exit 2  # configs' relative paths (the data set) land here too

# This machine's NCCL, cuBLAS and nvJPEG on the bundle's programs' library path
# (scripts/device/bundle-env.sh, in the bundle or beside this script).
bundle_env=$bundle/scripts/device/bundle-env.sh
[[ -f $bundle_env ]] || bundle_env=$here/device/bundle-env.sh
# shellcheck source=device/bundle-env.sh
source "$bundle_env"
# The environment of the bundle's programs alone (not exported: python3 must not see it).
with_bundle=(env "LD_LIBRARY_PATH=$library_path" "OPAL_PREFIX=$bundle"
  "PMIX_MCA_mca_base_component_path=$bundle/lib/x86_64-linux-gnu/pmix2/lib/pmix"
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)

# Where this machine's C library is older than the bundle's libraries need (or with
# PREFLIGHT_BUNDLE_LOADER=1), the bundle's programs run through its own loader and C library.
through=()
if [[ ${PREFLIGHT_BUNDLE_LOADER:-0} == 1 ]] || ! "${with_bundle[@]}" "$bundle/bin/preflight" --version >/dev/null 2>"$out/load.log"; then
  through=("$bundle/lib/glibc/ld-linux-x86-64.so.2" --library-path "$bundle/lib/glibc:$library_path")
  if ! "${with_bundle[@]}" "${through[@]}" "$bundle/bin/preflight" --version >/dev/null 2>>"$out/load.log"; then
    echo "device-check.sh: the bundle's preflight does not load here:" >&2
    cat "$out/load.log" >&2
    "${with_bundle[@]}" ldd "$bundle/bin/preflight" | grep "not found" >&2
    exit 2
  fi
  echo "device-check.sh: running through the bundle's C library (this machine's is older, or PREFLIGHT_BUNDLE_LOADER=1)"
fi
preflight=("${through[@]}" "$bundle/bin/preflight")
report=("${through[@]}" "$bundle/bin/preflight-report")
mpirun=("${through[@]}" "$bundle/bin/mpirun")
summarize=(python3 "$bundle/scripts/device/summarize.py")
[[ -f ${summarize[1]} ]] || summarize=(python3 "$here/device/summarize.py")

# One rank per GPU. One GPU: a singleton that starts no daemon; more: the bundle's mpirun.
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[[ ${gpus:-0} -ge 1 ]] || gpus=1
launch() {  # TIMEOUT PREFLIGHT-ARGS...
  local limit=$1
  shift
  if [[ $gpus -eq 1 ]]; then
    "${with_bundle[@]}" OMPI_MCA_ess_singleton_isolated=1 timeout "$limit" "${preflight[@]}" "$@"
  else
    "${with_bundle[@]}" timeout "$limit" "${mpirun[@]}" -np "$gpus" --bind-to none "${preflight[@]}" "$@"
  fi
}

# The campaigns, in the order they run: the compute targets first, the decode last.
configs=()
for name in compute correctness-gemm nccl dataloader; do
  [[ -f $bundle/configs/device/$name.yaml ]] && configs+=("$bundle/configs/device/$name.yaml")
done
for config in "$bundle"/configs/device/*.yaml; do
  [[ " ${configs[*]} " == *" $config "* || ! -e $config ]] || configs+=("$config")
done

# What the configs' timing costs, from preflight's own plan of each (its dry run).
dry_logs=()
for config in "${configs[@]}"; do
  name=$(basename "$config" .yaml)
  launch 60 run "$config" --dry-run >"$out/$name.plan.log" 2>&1
  dry_logs+=("$out/$name.plan.log")
done
read -r timing_s planned < <("${summarize[@]}" estimate "${dry_logs[@]}")
echo "device-check.sh: estimated run time: about ${timing_s} s of timing in the ${planned} of ${#configs[@]} configs preflight could plan here (configs/device/*.yaml; each size point's budget twice, set-up not counted), plus torch.matmul and 4 short checks; deadline ${deadline_s} s"

env_table=$("${with_bundle[@]}" OMPI_MCA_ess_singleton_isolated=1 "${preflight[@]}" env 2>&1)
# Rank 0's row: the first below the column names (a warning may come first; tests/nccl/has_gpu.sh).
env_header=$(grep -m1 -E '^ *rank +host' <<<"$env_table")
env_line=$(awk 'seen && /^ *0 / {print; exit} /^ *rank +host/ {seen = 1}' <<<"$env_table")
if [[ $env_line == *" none ("* && ${PREFLIGHT_DEVICE_CHECK_WITHOUT_GPU:-0} == 1 ]]; then
  echo "device-check.sh: no GPU, going on (PREFLIGHT_DEVICE_CHECK_WITHOUT_GPU=1: a test of the table's machinery; nothing runs on a GPU)"
elif [[ $env_line == *" none ("* ]]; then
  why=${env_line#* none (}
  echo "device-check.sh: no GPU: ${why%)}; nothing ran"
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    echo "device-check.sh: nvidia-smi sees GPUs (driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)): preflight's CUDA 13 runtime needs driver 580 or later"
  fi
  exit 3
fi

started_all=$SECONDS
failed=0
echo
echo "preflight device check · $(date -u +%Y-%m-%dT%H:%MZ) · $gpus GPU(s)"
printf '%s\n%s\n' "$env_header" "$env_line"  # preflight env: its column names, rank 0's machine
printf '%-28s %-7s %6s  %-52s %s\n' check exit time summary result
row() { printf '%-28s %-7s %5ss  %-52s %s\n' "$@"; }
# The time a check may still take: its own limit, or what is left of the deadline.
allowance() {
  local left=$((deadline_s - (SECONDS - started_all)))
  [[ $left -lt $timeout_s ]] && echo "$left" || echo "$timeout_s"
}

# check NAME EXPECTED-EXIT RESULT-FILE PREFLIGHT-ARGS...
check() {
  local name=$1 want=$2 file=$3
  shift 3
  local limit
  limit=$(allowance)
  if [[ $limit -lt 10 ]]; then
    row "$name" "-" 0 "not run: the run's ${deadline_s} s deadline" "FAIL (not run)"
    failed=1
    return
  fi
  rm -f "$file"
  local started=$SECONDS
  launch "$limit" "$@" -o "$file" >"$out/$name.log" 2>&1
  local rc=$?
  local summary=""
  if [[ -f $file ]]; then
    "${with_bundle[@]}" "${report[@]}" "$file" --json "$out/$name.json" --no-color >"$out/$name.report.txt" 2>&1
    summary=$("${summarize[@]}" row "$name" "$out/$name.log" "$out/$name.json" "$gpus")
  fi
  local verdict=pass
  [[ $rc -eq $want ]] || { verdict="FAIL (exit $rc, expected $want; see $out/$name.log)"; failed=1; }
  [[ $rc -eq 124 ]] && verdict="FAIL (cut off at ${limit} s; see $out/$name.log)"
  # cuBLASLt is opened at run time: where it is missing the GEMM cases are left out, exit 0.
  if grep -q "cuBLASLt cannot be loaded" "$out/$name.log"; then
    verdict="FAIL (cuBLASLt cannot be loaded; see $out/$name.log)"
    failed=1
  fi
  row "$name" "exit $rc" $((SECONDS - started)) "$summary" "$verdict"
}

# torch.matmul's bf16 8192^3 with this machine's python3 and libraries (not the bundle's).
torch_row() {
  local started=$SECONDS limit line rc verdict
  limit=$(allowance)
  if [[ $limit -lt 10 ]]; then
    row torch-matmul-bf16 "-" 0 "not run: the run's ${deadline_s} s deadline" "skipped"
    return
  fi
  line=$(timeout "$limit" python3 "$bundle/scripts/device/torch_matmul.py" 2>"$out/torch_matmul.log")
  rc=$?
  echo "$line" >"$out/torch_matmul.txt"
  [[ $rc -eq 0 ]] && verdict="compare: target rows below" || verdict="skipped (exit $rc: $(tail -1 "$out/torch_matmul.log"))"
  row torch-matmul-bf16 "exit $rc" $((SECONDS - started)) "${line:-no figure}" "$verdict"
}

for config in "${configs[@]}"; do
  name=$(basename "$config" .yaml)
  check "$name" 0 "$out/$name.h5" run "$config"
  if [[ $name == compute && -f $bundle/scripts/device/torch_matmul.py ]]; then torch_row; fi
  if [[ $name == correctness-gemm ]]; then
    # The GEMM determinism check catches one flipped mantissa bit of C on the GPU (every 3rd run
    # of rank 0): exit 1, the case failed, rank 0 named.
    check gemm-determinism-planted 1 "$out/gemm-determinism-planted.h5" correctness --checks gemm \
      --gemm-backend cublaslt --dtype bfloat16,float32 --sizes 128,4096 --test-corrupt-rank 0 \
      --test-corrupt-every 3 --warmup 1 --min-iters 5 --iters 10 --budget 50ms
  fi
  if [[ $name == nccl ]]; then
    # Its own NCCL check: a corruption planted on rank 0 is caught on the GPU (exit 1, case failed).
    check nccl-planted-corruption 1 "$out/nccl-planted-corruption.h5" comm --backend nccl \
      --op allreduce,allgather,reducescatter,broadcast,reduce --sizes 8,1M --test-corrupt-rank 0 \
      --warmup 1 --min-iters 2 --iters 3 --budget 1ms
    # GPU-to-GPU peer copies, every ordered pair of this machine's GPUs alone (nvbandwidth's
    # matrix); with one GPU the row says "one GPU: no pairs" and nothing is measured.
    check gpu-peer-copies 0 "$out/gpu-peer-copies.h5" memory --backend cuda --copies p2p --sizes 256M \
      --warmup 2 --min-iters 5 --iters 20 --budget 200ms
  fi
done

echo
[[ -f $out/compute.log ]] && "${summarize[@]}" targets "$out/compute.log" "$out/torch_matmul.txt"
echo "$(( SECONDS - started_all )) s; results and logs: $out"
exit $failed
