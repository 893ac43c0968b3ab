#!/usr/bin/env bash
# The device bundle (scripts/device-bundle.sh) made from this build: under 64 MiB; every library
# preflight needs beyond the C library, NCCL and cuBLAS (the GPU machine's own) resolves inside
# the bundle; in a clean environment (env -i, nothing set) device-check.sh runs up to its "no GPU"
# stop, exit 3, after printing its run-time estimate, and the python3 it runs never sees the
# bundle's library path; past the stop (on small stand-in campaigns) it prints a row per check.
# bundle_test.sh BUILD_DIR WORK ; exit 77 (skipped) where a GPU is present (it would run).
set -euo pipefail
build=$1 work=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
gpu_rc=0
"$root/tests/nccl/has_gpu.sh" "$build/bench/preflight" >/dev/null || gpu_rc=$?
case $gpu_rc in
  0) echo "SKIPPED: a GPU is present: device-check.sh would run the GPU checks, not stop"; exit 77 ;;
  1) ;;
  *) echo "FAIL: $("$root/tests/nccl/has_gpu.sh" "$build/bench/preflight")"; exit 1 ;;
esac
rm -rf "$work" && mkdir -p "$work"
"$root/scripts/device-bundle.sh" --build "$build" --from-build --out "$work/bundle"
b=$work/bundle
outside=$(env -i LD_LIBRARY_PATH="$b/lib" ldd "$b/bin/preflight" |
  awk '/=>/ {print $1, $3}' |
  grep -Ev "^(linux-vdso|ld-linux|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|libresolv|libnccl|libcublas)" |
  grep -v " $b/lib/" || true)
if [[ -n $outside ]]; then
  echo "FAIL: libraries resolved outside the bundle:"; echo "$outside"; exit 1
fi

# A python3 first on PATH that writes down the library path it was given.
fake=$work/fake-bin
mkdir -p "$fake"
printf '#!/bin/sh\necho "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}" >>"%s"\nexec /usr/bin/python3 "$@"\n' \
  "$work/python3-saw" >"$fake/python3"
chmod +x "$fake/python3"
output=
run_check() {  # EXPECTED-EXIT [VAR=VALUE...]: device-check.sh under env -i; its output in $output
  local want=$1 rc=0
  shift
  output=$(env -i PATH="$fake:/usr/bin:/bin" "$@" /bin/bash "$b/device-check.sh" --out "$work/out" 2>&1) || rc=$?
  echo "$output"
  [[ $rc -eq $want ]] || { echo "FAIL: device-check.sh ($*) exited $rc, expected $want"; exit 1; }
}
expect() {  # PATTERN WHAT
  grep -qE -- "$1" <<<"$output" || { echo "FAIL: $2 (no /$1/)"; exit 1; }
}

# env -i and nothing else: the bundle alone, up to its "no GPU" stop, its estimate said first.
run_check 3
expect "^device-check.sh: no GPU: " "no 'no GPU' message"
expect "^device-check.sh: estimated run time: about [0-9]+ s of timing" "no run-time estimate"
[[ -s $work/python3-saw ]] || { echo "FAIL: python3 never ran"; exit 1; }
if grep -q "$b/lib" "$work/python3-saw"; then
  echo "FAIL: python3 saw the bundle's libraries:"; sort -u "$work/python3-saw"; exit 1
fi
[[ -f $work/out/compute.plan.log ]] || { echo "FAIL: no plan log under --out"; exit 1; }
[[ ! -e $b/results ]] || { echo "FAIL: device-check.sh wrote into the bundle"; exit 1; }
# The same through the bundle's own loader and C library (a GPU machine with an older one).
run_check 3 PREFLIGHT_BUNDLE_LOADER=1
expect "^device-check.sh: running through the bundle's C library" "the bundle's loader was not used"
# Results kept inside the bundle would be lost with it: refused, nothing made there.
rc=0
env -i PATH=/usr/bin:/bin /bin/bash "$b/device-check.sh" --out "$b/results" >/dev/null 2>&1 || rc=$?
[[ $rc -eq 2 && ! -e $b/results ]] || { echo "FAIL: --out inside the bundle: exit $rc"; exit 1; }

# The table's machinery past the stop (PREFLIGHT_DEVICE_CHECK_WITHOUT_GPU=1) on a copy of the
# bundle whose campaigns are small stand-ins: a row per check, the targets not measured (nothing
# ran on a GPU), exit 1 (without a GPU the planted corruption is not caught).
small=$work/small-bundle
cp -rl "$b" "$small"
rm -rf "$small/configs/device" && mkdir -p "$small/configs/device"
cat >"$small/configs/device/compute.yaml" <<'YAML'
timing: {warmup: 1, min_iters: 2, max_iters: 3, budget: 1ms, batch_blocks: 1}
benchmarks:
  - {name: gemm, family: matmul, backend: cublaslt, dtypes: [bfloat16], sizes: [64]}
  - {name: host-memory, family: memory, kernels: [triad], sizes: 64K, layout: rank}
YAML
cat >"$small/configs/device/nccl.yaml" <<'YAML'
timing: {warmup: 1, min_iters: 2, max_iters: 3, budget: 1ms, batch_blocks: 1}
benchmarks:
  - {name: nccl, family: comm, backend: nccl, ops: [allreduce], sizes: [8]}
YAML
b=$small
run_check 1 PREFLIGHT_DEVICE_CHECK_WITHOUT_GPU=1
expect "^check +exit +time +summary +result" "no table header"
for row in compute torch-matmul-bf16 nccl nccl-planted-corruption gpu-peer-copies; do
  expect "^$row " "no row for $row"
done
expect "^compute +exit 0 .*1 case\(s\), status complete; skipped: backend cublaslt: no GPU" \
  "the compute row's summary"
expect "^target bf16 GEMM 8192\^3 >= 0.97 x torch.matmul: not measured in this run" "the GEMM target"
expect "^target HBM triad >= 0.95 x 4.1 TB/s: not measured in this run" "the HBM target"
# Past the stop python3 runs torch.matmul and the summaries: still with this machine's libraries.
if grep -q "bundle/lib" "$work/python3-saw"; then
  echo "FAIL: python3 saw the bundle's libraries:"; sort -u "$work/python3-saw"; exit 1
fi
b=$work/bundle
echo "PASS: bundle of $(du -sm "$b" | cut -f1) MiB loads under env -i alone, says its time and stops at 'no GPU' (exit 3); python3 never sees its libraries; past the stop a row per check"
