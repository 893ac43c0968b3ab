#!/usr/bin/env bash
# Fails when a tracked C++ or CUDA file is not formatted as .clang-format says.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.c' '*.cpp' '*.hpp' '*.h' '*.cu' '*.cuh' 2>/dev/null || find bench kernels reports results-schema tests -name '*.[ch]pp')
[[ ${#files[@]} -eq 0 ]] && exit 0
if ! clang-format --dry-run --Werror "${files[@]}" 2>/tmp/preflight-format.$$; then
  head -20 /tmp/preflight-format.$$
  rm -f /tmp/preflight-format.$$
  echo "check-format: run 'clang-format -i' on the files above" >&2
  exit 1
fi
rm -f /tmp/preflight-format.$$
echo "check-format: ${#files[@]} files formatted"
