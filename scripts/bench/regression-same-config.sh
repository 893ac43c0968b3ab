#!/usr/bin/env bash
# Specificity of the regression verdicts: runs one campaign RUNS times in a row (default 10) and
# compares every run with every earlier one (RUNS x (RUNS-1) / 2 comparisons) through
# preflight-report --baseline --rules configs/rules/regression.yaml. Nothing changed between the
# runs, so any size "slower" or "faster" and any failed baseline rule is a false alarm; sizes
# "undecided" are allowed and counted. Prints a table per comparison and the totals.
#   scripts/bench/regression-same-config.sh [CONFIG] [BUILD_DIR]   env: RUNS (10), NP (4),
#     RANKS_PER_NODE (2: virtual nodes, so that the inter topology has two), SET (extra --set
#     arguments for preflight run), KEEP (a folder to keep the results files in), REUSE (1: keep
#     the runs already in KEEP and only compare them again), MPIRUN_ARGS (extra mpirun options,
#     e.g. "--map-by core --bind-to core:overload-allowed" to pin each rank to a core)
# The default CONFIG is configs/regression.yaml made to fit a 2-core machine: sizes 8 B to
# 4 MiB, shorter time budgets, a small storage data set in a temporary folder.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
config=${1:-$root/configs/regression.yaml}
build=${2:-$root/build/default}
runs=${RUNS:-10}
source "$root/scripts/mpi-env.sh"
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work"
[[ -n ${KEEP:-} ]] || trap 'rm -rf "$work"' EXIT
data=$(mktemp -d)
trap 'rm -rf "$data"; [[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
if [[ -z ${1:-} ]]; then
  fit=(--set collectives.sizes=8,64K,1M,4M --set timing.budget=0.3s --set timing.max_iters=200
    --set storage.dir="$data" --set storage.size=32M --set storage.block_sizes=1M
    --set storage.stonewall=2s)
else
  fit=()
fi
# shellcheck disable=SC2206
extra=(${SET:-})
echo "# $runs runs of $config on $(nproc) cores, ${NP:-4} ranks as virtual nodes of ${RANKS_PER_NODE:-2}${MPIRUN_ARGS:+, mpirun $MPIRUN_ARGS}; started $(date -u +%H:%M:%S)"
for ((i = 1; i <= runs; i++)); do
  [[ ${REUSE:-} == 1 && -f $work/run$i.h5 ]] && continue
  start=$SECONDS
  # shellcheck disable=SC2086
  mpirun -np "${NP:-4}" ${MPIRUN_ARGS:-} "$build/bench/preflight" run "$config" "${fit[@]}" "${extra[@]}" \
    --set campaign.ranks_per_node="${RANKS_PER_NODE:-2}" -o "$work/run$i.h5" >/dev/null
  echo "# run $i: $((SECONDS - start)) s"
done
printf "%-6s %-6s %5s %7s %7s %5s %10s %13s %5s  %s\n" baseline current sizes slower faster same undecided "rules failed" exit "hosts' CPU to others, baseline -> current"
totals=(0 0 0 0 0 0 0) withheld=0
for ((i = 1; i <= runs; i++)); do
  for ((j = i + 1; j <= runs; j++)); do
    set +e
    "$build/reports/preflight-report" "$work/run$j.h5" --baseline "$work/run$i.h5" \
      --rules "$root/configs/rules/regression.yaml" --json "$work/cmp-$i-$j.json" --no-color \
      >"$work/cmp-$i-$j.txt" 2>&1
    rc=$?
    set -e
    read -r sizes slower faster same undecided failed held load < <(/usr/bin/python3 - "$work/cmp-$i-$j.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
r = v["regressions"][0]
same = r["compared"] - r["slower"] - r["faster"] - r["undecided"]
failed = sum(1 for c in v["checks"] if c["verdict"] == "fail")
share = lambda h: "?" if h["stolen"] is None else f"{(h['stolen'] + h['foreign']) * 100:.1f}%"
load = "->".join(share(h) for h in r["host_load"])
print(r["compared"], r["slower"], r["faster"], same, r["undecided"], failed,
      1 if r["withheld"] else 0, load + (" withheld" if r["withheld"] else ""))
PY
)
    withheld=$((withheld + held))
    printf "%-6s %-6s %5s %7s %7s %5s %10s %13s %5s  %s\n" "run$i" "run$j" "$sizes" "$slower" "$faster" "$same" "$undecided" "$failed" "$rc" "$load"
    for k in 0 1 2 3 4 5; do
      v=($sizes $slower $faster $same $undecided $failed)
      totals[k]=$((totals[k] + v[k]))
    done
    [[ $slower -gt 0 || $faster -gt 0 || $failed -gt 0 ]] && totals[6]=$((totals[6] + 1))
  done
done
n=$((runs * (runs - 1) / 2))
echo "# $n comparisons: ${totals[0]} sizes compared in all, ${totals[1]} slower, ${totals[2]} faster, ${totals[3]} same, ${totals[4]} undecided, ${totals[5]} baseline rules failed; comparisons with any false alarm: ${totals[6]} of $n; withheld (no baseline in the current run's host state): $withheld of $n"
