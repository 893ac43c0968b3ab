#!/usr/bin/env bash
# Installs what is needed, checks formatting, builds with warnings as errors and runs every
# test. CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/check-format.sh
cmake --preset ci
cmake --build --preset ci
ctest --preset ci
