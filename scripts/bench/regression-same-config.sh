#!/usr/bin/env bash
# How quiet is this machine for regression runs? Runs the same campaign RUNS times (default 3)
# and compares every later run with every earlier one through preflight-report --baseline: on a
# quiet, dedicated node nothing should be flagged. What is flagged is a real run-to-run change
# of the machine (frequency, placement, neighbours), beyond the noise inside each run and the
# spread of the campaign's repetitions.
#   scripts/bench/regression-same-config.sh [CONFIG] [BUILD_DIR]   env: RUNS, NP
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
config=${1:-$here/same-config.yaml}
build=${2:-$here/../../build/default}
runs=${RUNS:-3}
source "$here/../mpi-env.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for ((i = 1; i <= runs; i++)); do
  mpirun -np "${NP:-2}" "$build/bench/preflight" run "$config" -o "$work/run$i.h5" >/dev/null
done
printf "%-12s %-12s %s\n" "baseline" "current" "what the report says"
for ((i = 1; i <= runs; i++)); do
  for ((j = i + 1; j <= runs; j++)); do
    line=$("$build/reports/preflight-report" "$work/run$j.h5" --baseline "$work/run$i.h5" --no-color |
      grep "size(s) compared" || true)
    printf "%-12s %-12s %s\n" "run$i" "run$j" "${line#\# }"
  done
done
