#!/usr/bin/env bash
# The device bundle (scripts/device-bundle.sh) made from this build: under 64 MiB; in a clean
# environment (env -i, only the bundle's library path) every library preflight needs beyond the
# C library, NCCL and cuBLAS (the GPU machine's own) resolves inside the bundle, and device-check.sh runs up to its "no GPU" stop, exit 3.
# bundle_test.sh BUILD_DIR WORK ; exit 77 (skipped) where a GPU is present (it would run).
set -euo pipefail
build=$1 work=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
if "$root/tests/nccl/has_gpu.sh" "$build/bench/preflight" >/dev/null; then
  echo "SKIPPED: a GPU is present: device-check.sh would run the GPU checks, not stop"
  exit 77
fi
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
set +e
output=$(env -i LD_LIBRARY_PATH="$b/lib" /bin/bash "$b/device-check.sh" 2>&1)
rc=$?
set -e
echo "$output"
[[ $rc -eq 3 ]] || { echo "FAIL: device-check.sh exited $rc, expected 3 (no GPU)"; exit 1; }
grep -q "^device-check.sh: no GPU: " <<<"$output" || { echo "FAIL: no 'no GPU' message"; exit 1; }
# The same through the bundle's own loader and C library (a GPU machine with an older one).
set +e
output=$(env -i LD_LIBRARY_PATH="$b/lib" PREFLIGHT_BUNDLE_LOADER=1 /bin/bash "$b/device-check.sh" 2>&1)
rc=$?
set -e
echo "$output"
[[ $rc -eq 3 ]] || { echo "FAIL: through the bundle's loader device-check.sh exited $rc, expected 3"; exit 1; }
grep -q "^device-check.sh: running through the bundle's C library" <<<"$output" || { echo "FAIL: the bundle's loader was not used"; exit 1; }
echo "PASS: bundle of $(du -sm "$b" | cut -f1) MiB loads under env -i and stops at 'no GPU' (exit 3)"
