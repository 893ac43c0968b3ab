#!/usr/bin/env bash
# device-check.sh: runs every GPU path preflight has on this machine's GPUs and prints one
# table: what ran, its figures, pass or fail. It runs every campaign in configs/device/*.yaml
# (a family with a GPU path adds its config there) and its own NCCL checks (a planted
# corruption caught on the GPU), on one rank per GPU.
#
# It runs from the bundle scripts/device-bundle.sh makes (device-bundle/, copied to the GPU
# machine): device-bundle/device-check.sh [--out DIR] [--timeout SECONDS]. From the repository,
# scripts/device-check.sh [--bundle DIR] uses that bundle (default device-bundle/).
# It points the loader at the bundle's libraries and at this machine's NCCL (and cuBLAS): the
# first found of $PREFLIGHT_NCCL_LIB, ldconfig, PyTorch's nvidia-nccl wheel, /usr/local/cuda.
#
# Exit codes: 0 every check passed; 1 a check failed (the table says which); 2 bad usage, or
# the bundle does not load here (a library missing: ldd's words); 3 no GPU: nothing ran (the
# message says why, in CUDA's words).
set -uo pipefail
export PATH=${PATH:-/usr/bin:/bin}
here=$(cd "$(dirname "$0")" && pwd)
bundle= out= timeout_s=300
while [[ $# -gt 0 ]]; do
  case $1 in
    --bundle) bundle=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    *) echo "device-check.sh: unknown argument $1 (see the header)" >&2; exit 2 ;;
  esac
done
if [[ -z $bundle ]]; then
  if [[ -x $here/bin/preflight ]]; then bundle=$here; else bundle=$here/../device-bundle; fi
fi
bundle=$(cd "$bundle" 2>/dev/null && pwd) || { echo "device-check.sh: no bundle at $bundle; make it with scripts/device-bundle.sh" >&2; exit 2; }
out=${out:-$bundle/results}
mkdir -p "$out" || exit 2

# This machine's NCCL and cuBLAS: preflight links the CUDA runtime in, not these.
find_lib() {  # NAME PYTHON-PACKAGE
  local name=$1 package=$2 dir
  for dir in ${PREFLIGHT_NCCL_LIB:-} \
             "$(ldconfig -p 2>/dev/null | awk -v n="$name" '$1 == n {print $NF; exit}' | xargs -r dirname)" \
             "$(python3 -c "import $package as p; print(list(p.__path__)[0] + '/lib')" 2>/dev/null)" \
             /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
    [[ -n $dir && -e $dir/$name ]] && { echo "$dir"; return; }
  done
}
nccl_dir=$(find_lib libnccl.so.2 nvidia.nccl)
cublas_dir=$(find_lib libcublasLt.so.13 nvidia.cublas)  # opened by preflight when a GEMM needs it
export LD_LIBRARY_PATH="$bundle/lib${nccl_dir:+:$nccl_dir}${cublas_dir:+:$cublas_dir}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OPAL_PREFIX=$bundle
export PMIX_MCA_mca_base_component_path=$bundle/lib/x86_64-linux-gnu/pmix2/lib/pmix
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
preflight=$bundle/bin/preflight report=$bundle/bin/preflight-report

# Where this machine's C library is older than the bundle's libraries need (or with
# PREFLIGHT_BUNDLE_LOADER=1), run the executables through the bundle's own loader and C library.
if [[ ${PREFLIGHT_BUNDLE_LOADER:-0} == 1 ]] || ! "$preflight" --version >/dev/null 2>"$out/load.log"; then
  loader=("$bundle/lib/glibc/ld-linux-x86-64.so.2" --library-path "$bundle/lib/glibc:$LD_LIBRARY_PATH")
  if ! "${loader[@]}" "$preflight" --version >/dev/null 2>>"$out/load.log"; then
    echo "device-check.sh: the bundle's preflight does not load here:" >&2
    cat "$out/load.log" >&2
    ldd "$preflight" | grep "not found" >&2
    exit 2
  fi
  echo "device-check.sh: running through the bundle's C library (this machine's is older, or PREFLIGHT_BUNDLE_LOADER=1)"
  preflight_cmd=("${loader[@]}" "$preflight") report_cmd=("${loader[@]}" "$report")
else
  preflight_cmd=("$preflight") report_cmd=("$report")
fi

# One rank per GPU. One GPU: a singleton that starts no daemon; more: the bundle's mpirun.
env_line=$(OMPI_MCA_ess_singleton_isolated=1 "${preflight_cmd[@]}" env 2>&1 | sed -n 2p)
if [[ $env_line == *" none ("* ]]; then
  why=${env_line#* none (}
  echo "device-check.sh: no GPU: ${why%)}; nothing ran"
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    echo "device-check.sh: nvidia-smi sees GPUs (driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)): preflight's CUDA 13 runtime needs driver 580 or later"
  fi
  exit 3
fi
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[[ ${gpus:-0} -ge 1 ]] || gpus=1
launch() {
  if [[ $gpus -eq 1 ]]; then
    OMPI_MCA_ess_singleton_isolated=1 timeout "$timeout_s" "${preflight_cmd[@]}" "$@"
  else
    timeout "$timeout_s" "$bundle/bin/mpirun" -np "$gpus" --bind-to none "${preflight_cmd[@]}" "$@"
  fi
}

rows=()
failed=0
# check NAME EXPECTED-EXIT RESULT-FILE PREFLIGHT-ARGS...
check() {
  local name=$1 want=$2 file=$3
  shift 3
  local started=$SECONDS
  launch "$@" -o "$file" >"$out/$name.log" 2>&1
  local rc=$?
  local summary=""
  if [[ -f $file ]]; then
    "${report_cmd[@]}" "$file" --json "$out/$name.json" --no-color >"$out/$name.report.txt" 2>&1
    summary=$(python3 - "$out/$name.json" "$out/$name.log" <<'PY'
import json, sys
skipped = []
try:
    doc = json.load(open(sys.argv[1]))
    runs = doc.get("runs", [])
    cases = sum(r.get("cases", 0) for r in runs)
    status = ",".join(r.get("status", "?") for r in runs)
    # What the run left out and why ("copies p2p: one GPU: no pairs"), without the benchmark.
    for r in doc.get("reasons", []):
        text = r.get("text", "")
        if ": skipped: " in text:
            why = text.split(": skipped: ", 1)[1]
            skipped.append(why.split(": ", 1)[1] if why.startswith("benchmark ") else why)
except Exception as e:  # noqa: BLE001 - a summary, not a judge
    cases, status = "?", f"unread ({e})"
# The best busbw of the console's tables (a header row names the columns), for a figure that
# says the GPU path moved data.
best, header = 0.0, []
for line in open(sys.argv[2], errors="replace"):
    tokens = line.split()
    if line.startswith("#") and "busbw" in line[1:].split():
        header = line[1:].split()
    elif header and len(tokens) == len(header) and not line.startswith("#"):
        for name in ("batched_busbw", "busbw"):
            if name in header:
                try:
                    best = max(best, float(tokens[header.index(name)]))
                except ValueError:
                    pass
print(f"{cases} case(s), status {status}" + (f", best busbw {best:.3g} GB/s" if best else "")
      + "".join(f"; skipped: {why.split(' (')[0]}" for why in skipped))
PY
)
  fi
  local verdict=pass
  [[ $rc -eq $want ]] || { verdict="FAIL (exit $rc, expected $want; see $out/$name.log)"; failed=1; }
  # cuBLASLt is opened at run time: where it is missing the GEMM cases are left out, exit 0.
  if grep -q "cuBLASLt cannot be loaded" "$out/$name.log"; then
    verdict="FAIL (cuBLASLt cannot be loaded; see $out/$name.log)"
    failed=1
  fi
  rows+=("$(printf '%-28s %-7s %5ss  %-52s %s' "$name" "exit $rc" $((SECONDS - started)) "$summary" "$verdict")")
}

for config in "$bundle"/configs/device/*.yaml; do
  [[ -e $config ]] || continue
  name=$(basename "$config" .yaml)
  rm -f "$out/$name.h5"
  check "$name" 0 "$out/$name.h5" run "$config"
done
# Its own NCCL check: a corruption planted on rank 0 is caught on the GPU (exit 1, case failed).
rm -f "$out/nccl-planted-corruption.h5"
check nccl-planted-corruption 1 "$out/nccl-planted-corruption.h5" comm --backend nccl \
  --op allreduce,allgather,reducescatter,broadcast,reduce --sizes 8,1M --test-corrupt-rank 0 \
  --warmup 1 --min-iters 2 --iters 3 --budget 1ms

# GPU-to-GPU peer copies, every ordered pair of this machine's GPUs alone (nvbandwidth's matrix);
# with one GPU the row says "one GPU: no pairs" and nothing is measured.
rm -f "$out/gpu-peer-copies.h5"
check gpu-peer-copies 0 "$out/gpu-peer-copies.h5" memory --backend cuda --copies p2p --sizes 256M \
  --warmup 2 --min-iters 5 --iters 20 --budget 200ms

# torch.matmul's figure for bf16 8192^3 beside preflight's cuBLASLt one (the compute campaign's
# table): issue 11 asks preflight's to reach 95% of the better of the two.
if [[ -f $bundle/scripts/device/torch_matmul.py ]]; then
  started=$SECONDS
  line=$(python3 "$bundle/scripts/device/torch_matmul.py" 2>"$out/torch_matmul.log")
  rc=$?
  [[ $rc -eq 0 ]] && verdict="compare with compute's bf16 8192" || verdict="skipped (exit $rc: $(tail -1 "$out/torch_matmul.log"))"
  rows+=("$(printf '%-28s %-7s %5ss  %-52s %s' torch-matmul-bf16 "exit $rc" $((SECONDS - started)) "${line:-no figure}" "$verdict")")
fi

echo
echo "preflight device check · $(date -u +%Y-%m-%dT%H:%MZ) · $gpus GPU(s) · $env_line"
printf '%-28s %-7s %6s  %-52s %s\n' check exit time summary result
for r in "${rows[@]}"; do echo "$r"; done
echo "results and logs: $out"
exit $failed
