#!/usr/bin/env bash
# Is a 24-hour soak of a 1,000-node job readable by preflight-report in under 60 s (issue 38)?
# Generates a synthetic soak file (make_soak_results.py: 8 ranks a node, one round of an
# allreduce sweep, a GEMM and an HBM triad every ROUND minutes, a slow node and a drifting rank
# planted), then times the report on it (terminal, JSON and HTML at once) RUNS times and prints
# ranks, rounds, cases, file size, wall time (median, min, max), CPU time (user + system, children
# such as gnuplot included: the figure to compare on a shared machine), peak RSS and the ratio of
# the median wall time to the target. Exit 1 when the median is over the target, or the report
# fails (exit 2 or more) or writes nothing; 2 on a bad argument.
#   scripts/bench/soak-scale.sh --work DIR [--build DIR] [--nodes 1000] [--ranks-per-node 8]
#     [--hours 24] [--round-minutes 1.5] [--samples summary|full] [--runs 3] [--target-s 60]
# --samples: the points as a soak writes them by default (summary: per-rank medians, each
# iteration's slowest time, watched telemetry per case; SPEC.md "Summary points") or in full.
# The file is kept in DIR, named by its parameters, and reused when it is there whole (the default,
# a 1,000-node day of 90-s rounds, is 1.9 GB and took 11 minutes to generate on a 2-core VM): delete
# it to generate it again. Defaults to build/ci, whose report counts work (PREFLIGHT_COUNT_WORK).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../build/ci work="" nodes=1000 per_node=8 hours=24 round=1.5 runs=3 target=60 samples=summary
usage() { echo "soak-scale.sh: $1 (see the comment at the top of $0)" >&2; exit 2; }
while (($#)); do
  [[ $# -ge 2 ]] || usage "$1 needs a value"
  case $1 in
    --work) work=$2 ;; --build) build=$2 ;; --nodes) nodes=$2 ;; --ranks-per-node) per_node=$2 ;;
    --hours) hours=$2 ;; --round-minutes) round=$2 ;; --runs) runs=$2 ;; --target-s) target=$2 ;;
    --samples) samples=$2 ;;
    *) usage "unknown flag $1" ;;
  esac
  shift 2
done
[[ -n $work ]] || usage "--work DIR is required: where the generated file and the reports go (not the repository)"
[[ $runs =~ ^[1-9][0-9]*$ ]] || usage "--runs $runs: a whole number of 1 or more"
[[ $samples == summary || $samples == full ]] || usage "--samples $samples: summary or full"
report=$build/reports/preflight-report
[[ -x $report ]] || usage "--build $build: no reports/preflight-report there (build it first)"
mkdir -p "$work"
file=$work/soak-${nodes}x${per_node}-${hours}h-${round}m-${samples}.h5
if [[ ! -f $file.whole ]]; then
  rm -f "$file"
  /usr/bin/time -f "%e" -o "$work/generate.time" /usr/bin/python3 "$here/make_soak_results.py" "$file" \
    --nodes "$nodes" --ranks-per-node "$per_node" --hours "$hours" --round-minutes "$round" --samples "$samples"
  touch "$file.whole"  # generated to the end: safe to reuse
  echo "generated in $(tail -1 "$work/generate.time") s"
else
  echo "reusing $file"
fi
read -r ranks rounds cases < <(/usr/bin/python3 -c "
import sys, h5py
with h5py.File(sys.argv[1], 'r') as f:
    reps = [int(c.attrs['repetition']) for c in f['cases'].values()]
    print(int(f.attrs['world_size']), max(reps) + 1, len(reps))" "$file")

times=() cpus=() peak_kib=0
for ((i = 1; i <= runs; i++)); do
  out=$work/run$i && rm -rf "$out" && mkdir -p "$out"
  rc=0
  /usr/bin/time -v -o "$out/time" "$report" "$file" --no-color --json "$out/r.json" --html "$out/r.html" \
    >"$out/terminal.txt" 2>"$out/stderr.txt" || rc=$?
  # 1: checks failed (the planted slow node); 2 or more: the report could not read or write.
  if ((rc >= 2)) || [[ ! -s $out/r.json || ! -s $out/r.html || ! -s $out/terminal.txt ]]; then
    echo "report failed (exit $rc) or wrote nothing on run $i:" >&2
    head -5 "$out/stderr.txt" "$out/terminal.txt" >&2
    exit 1
  fi
  # GNU time -v: "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:12.34", "Maximum resident set size (kbytes): N"
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$out/time")
  kib=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out/time")
  cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$out/time")
  faults=$(awk -F': ' '/Minor .*page faults/ {print $2}' "$out/time")
  times+=("$wall") cpus+=("$cpu")
  ((kib > peak_kib)) && peak_kib=$kib
  echo "run $i: ${wall} s wall, ${cpu} s CPU, ${kib} KiB, ${faults} page faults, exit $rc"
done
grep -m3 -E '^# (slow node|slow rank)' "$work/run1/terminal.txt" || echo "(no slow node or rank named)"
bytes=$(stat -c %s "$file")
cpu_median=$(printf '%s\n' "${cpus[@]}" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')
printf '%s\n' "${times[@]}" | sort -g | awk -v ranks="$ranks" -v rounds="$rounds" -v cases="$cases" \
  -v bytes="$bytes" -v kib="$peak_kib" -v cpu="$cpu_median" -v t="$target" '
  { v[NR] = $1 }
  END {
    med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%-7s %-6s %-6s %-9s %-34s %-9s %-9s %s\n", "ranks", "rounds", "cases", "file", "report wall: median [min, max] (runs)",
      "CPU", "peak RSS", "wall / target"
    printf "%-7d %-6d %-6d %-9s %-34s %-9s %-9s %.2f of %g s\n", ranks, rounds, cases, sprintf("%.2f GB", bytes / 1e9),
      sprintf("%.2f s [%.2f, %.2f] (%d)", med, v[1], v[NR], NR), sprintf("%.1f s", cpu), sprintf("%.0f MiB", kib / 1024),
      med / t, t
    exit (med > t) ? 1 : 0
  }'
