#!/usr/bin/env bash
# Installs what is needed, builds preflight, and runs the quick campaign (configs/quick.yaml)
# on this machine: 4 ranks as 2 virtual nodes, every collective on four topologies, into
# results.h5, then reports on it with preflight-report: results-report.txt, .html, .md, .json.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset default >/dev/null
cmake --build --preset default
source scripts/mpi-env.sh
out=${PREFLIGHT_OUTPUT:-results.h5}
if [[ -e $out ]]; then  # keep earlier results: never overwrite
  kept="${out%.h5}-$(date -u +%Y%m%dT%H%M%SZ).h5"
  mv "$out" "$kept"
  echo "quickstart: kept the earlier $out as $kept"
fi
mpirun -np 4 build/default/bench/preflight run configs/quick.yaml -o "$out"
report=${out%.h5}-report
verdict=0
build/default/reports/preflight-report "$out" --no-color --html "$report.html" --md "$report.md" \
  --json "$report.json" >"$report.txt" || verdict=$?
[[ $verdict -eq 2 ]] && { echo "quickstart: preflight-report could not read $out" >&2; exit 2; }
echo "quickstart: results in $out (h5dump, h5py or pandas read it; layout in results-schema/SPEC.md)"
echo "quickstart: report in $report.txt, $report.html (open in a browser), $report.md and $report.json"
echo "quickstart: $(tail -1 "$report.txt")"
