#!/usr/bin/env bash
# Installs what is needed, checks formatting, builds with warnings as errors and runs every
# test. CI runs exactly this (.ci/run). After ctest it lists the tests that did not run, each
# with its reason (ctest counts a skipped test as neither passed nor failed, so "100% tests
# passed" alone does not say that everything ran), then exits with ctest's code.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/check-format.sh
cmake --preset ci
cmake --build --preset ci
rc=0
ctest --preset ci || rc=$?
/usr/bin/python3 tests/skipped_tests.py build/ci/ctest-junit.xml
exit $rc
