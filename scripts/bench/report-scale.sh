#!/usr/bin/env bash
# How fast and how lean preflight-report is on a big job's results: generates a synthetic file
# (default 4096 ranks x 30 sizes x 5 collectives x 50 iterations, one slow node) and times the
# report on it. Targets: under 10 s and under 2 GiB.
#   scripts/bench/report-scale.sh [BUILD_DIR]   env: RANKS, SIZES, ITERATIONS
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build/default}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$here/make_large_results.py" "$work/large.h5" --ranks "${RANKS:-4096}" --sizes "${SIZES:-30}" \
  --iterations "${ITERATIONS:-50}"
echo "file: $(du -h "$work/large.h5" | cut -f1), ${RANKS:-4096} ranks x ${SIZES:-30} sizes x 5 collectives x ${ITERATIONS:-50} iterations"
# Every output at once: terminal, HTML (with its gnuplot charts), Markdown, JSON and JUnit.
/usr/bin/time -f "%e %M" -o "$work/time" "$build/reports/preflight-report" "$work/large.h5" --no-color \
  --html "$work/r.html" --md "$work/r.md" --json "$work/r.json" --junit "$work/r.xml" >"$work/report.txt" || true
ls -la "$work"/r.* | awk '{print "output: " $NF " " $5 " B"}'

read -r seconds kib <"$work/time"
grep '^# slow node' "$work/report.txt" || echo "(no slow node named)"
awk -v s="$seconds" -v k="$kib" 'BEGIN {
  printf "%-22s %10s %10s %6s\n", "preflight-report", "measured", "target", "ratio"
  printf "%-22s %9.2fs %9.0fs %6.2f\n", "wall time", s, 10, s / 10
  printf "%-22s %8.0fMiB %7.0fMiB %6.3f\n", "peak memory", k / 1024, 2048, k / 1024 / 2048 }'
