#!/usr/bin/env bash
# How fast and how lean preflight-report is on a big job's results: generates a synthetic file
# (default 4096 ranks x 30 sizes x 5 collectives x 50 iterations, one slow node) and times the
# report on it. Targets (issue 34): 65,536 ranks under 20 s and under 2 GiB; TARGET_S sets the time.
#   scripts/bench/report-scale.sh [BUILD_DIR]   env: RANKS, SIZES, ITERATIONS, TARGET_S, FILE
# FILE: keep the generated file there and reuse it when it exists (65,536 ranks take minutes
# to generate and 3.4 GB).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build/default}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
large=${FILE:-$work/large.h5}
[[ -f $large ]] || /usr/bin/python3 "$here/make_large_results.py" "$large" --ranks "${RANKS:-4096}" \
  --sizes "${SIZES:-30}" --iterations "${ITERATIONS:-50}"
ranks=$(/usr/bin/python3 -c "import h5py, sys; print(h5py.File(sys.argv[1], 'r').attrs['world_size'])" "$large")
echo "file: $(du -h "$large" | cut -f1), $ranks ranks (sizes and iterations as generated: ${SIZES:-30} x ${ITERATIONS:-50} by default) x 5 collectives"
# Every output at once: terminal, HTML (with its gnuplot charts), Markdown, JSON and JUnit.
/usr/bin/time -f "%e %M" -o "$work/time" "$build/reports/preflight-report" "$large" --no-color \
  --html "$work/r.html" --md "$work/r.md" --json "$work/r.json" --junit "$work/r.xml" >"$work/report.txt" || true
ls -la "$work"/r.* | awk '{print "output: " $NF " " $5 " B"}'

# GNU time writes "Command exited with non-zero status N" first when the report exits non-zero
# (1: the planted slow node fails a check): the figures are on the last line.
read -r seconds kib < <(tail -1 "$work/time")
[[ $seconds =~ ^[0-9.]+$ && $kib =~ ^[0-9]+$ ]] || { echo "no time measured: $(cat "$work/time")"; exit 1; }
grep '^# slow node' "$work/report.txt" || echo "(no slow node named)"
awk -v s="$seconds" -v k="$kib" -v t="${TARGET_S:-20}" 'BEGIN {
  printf "%-22s %10s %10s %6s\n", "preflight-report", "measured", "target", "ratio"
  printf "%-22s %9.2fs %9.0fs %6.2f\n", "wall time", s, t, s / t
  printf "%-22s %8.0fMiB %7.0fMiB %6.3f\n", "peak memory", k / 1024, 2048, k / 1024 / 2048 }'
