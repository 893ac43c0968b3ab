#!/usr/bin/env bash
# The HTML report's first screen (docs/report.md, "HTML report"): in a 1280 x 1000 browser
# window, the verdict line, its reasons and one chart lie within the first 1000 px, the chart's
# plot at full size; for (a) a quickstart run (configs/quick.yaml, scaled down) and (b) an
# acceptance report (configs/acceptance.yaml scaled down, its 24 storage configurations at two
# scales each making a 48-series storage scaling chart, judged with first_screen_rules.yaml:
# failed checks and an inconclusive one). Headless Chromium lays the pages out (first_screen.py) and
# takes screenshots: WORKDIR/quick.png and WORKDIR/acceptance.png, for a person to look at.
# Skipped (77) without Chromium.
# html_first_screen_test.sh PREFLIGHT PREFLIGHT_REPORT WORKDIR
set -uo pipefail
bin=$1 report=$2 work=$3
here=$(dirname "$0")
root=$(cd "$here/../.." && pwd)
source "$here/../faults/common.sh"
chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[[ -n $chromium ]] || { echo "skipped: no chromium (apt-get install chromium)"; exit 77; }
rm -rf "$work" && mkdir -p "$work/data"

# Both campaigns cut to seconds: tiny sizes and budgets, the same benchmarks and matrix.
short=(--set timing.warmup=1 --set timing.min_iters=3 --set timing.max_iters=5
  --set timing.budget=2ms --set timing.batch_blocks=2 --set timing.precision=0)
quick=$work/quick.h5 accept=$work/acceptance.h5
mpirun -np 4 "$bin" run "$root/configs/quick.yaml" "${short[@]}" --set collectives.sizes=8:32K:x64 \
  --set storage.dir="$work/data" --set storage.size=1M -o "$quick" >"$work/quick.log" 2>&1 ||
  { fail "quickstart run"; tail -5 "$work/quick.log"; }
mpirun -np 4 "$bin" run "$root/configs/acceptance.yaml" "${short[@]}" --set campaign.ranks_per_node=2 \
  --set collectives.sizes=8:32K:x64 --set collectives.ops=[allreduce,allgather] \
  --set collectives.topologies=[world,intra,inter,ladder] --set latency.sizes=[8] \
  --set latency.timing.budget=2ms --set latency.timing.max_iters=5 \
  --set storage.dir="$work/data" --set storage.size=1M --set storage.stonewall=0 \
  --set storage.scale_ranks_per_node=[1,2] --set storage.timing.budget=2ms \
  --set checkpoint.dir="$work/data" --set checkpoint.size=1M --set checkpoint.block_sizes=64K \
  --set checkpoint.timing.budget=2ms \
  --set silent_corruption.sizes=[64] --set silent_corruption.dtypes=[float32] \
  --set silent_corruption.comm_sizes=[64] \
  --set silent_corruption.algorithms=default --set silent_corruption.timing.budget=2ms \
  --set silent_corruption.timing.min_iters=2 --set silent_corruption.timing.max_iters=3 \
  --set pair_sweep.address=127.0.0.1 --set pair_sweep.sizes=[8] --set pair_sweep.passes=1 \
  --set pair_sweep.timing.budget=2ms --set pair_sweep.timing.max_iters=5 \
  --set matmul.sizes=[64] --set matmul.timing.budget=2ms --set matmul.timing.min_iters=2 \
  --set matmul.timing.max_iters=3 --set memory.sizes=64K --set memory.timing.budget=2ms \
  --set memory.timing.min_iters=2 --set memory.timing.max_iters=3 \
  --set dataloader.data_dir="$work/images" --set dataloader.synthetic_images=64 \
  --set dataloader.batch_size=8 --set dataloader.batches_per_iteration=1 --set dataloader.workers=[1] \
  --set dataloader.crop=32 --set dataloader.compute_per_batch=1ms --set dataloader.timing.budget=2ms \
  -o "$accept" >"$work/acceptance.log" 2>&1 || { fail "acceptance run"; tail -5 "$work/acceptance.log"; }

# first_screen NAME RESULTS [REPORT OPTIONS...]: the report's HTML, then its first screen.
first_screen() {
  local name=$1 results=$2
  shift 2
  "$report" "$results" --no-color --html "$work/$name.html" "$@" >"$work/$name.out" 2>&1
  local rc=$?
  [[ $rc -eq 0 || $rc -eq 1 || $rc -eq 3 ]] && pass "$name: report written (exit $rc)" ||
    { fail "$name: report exit $rc"; tail -5 "$work/$name.out"; }
  /usr/bin/python3 "$here/first_screen.py" "$chromium" "$work/$name.html" "$work/$name" "$rc" |
    sed "s/^\(ok:  \|FAIL:\) /\1 $name: /" | tee "$work/$name.checks"
  local line
  while read -r line; do
    [[ $line == ok:* ]] && checks=$((checks + 1))
    [[ $line == FAIL:* ]] && { checks=$((checks + 1)); failures=$((failures + 1)); }
  done <"$work/$name.checks"
  # The first screen's chart is a copy of one of the sections' charts.
  local first
  first=$(/usr/bin/python3 "$here/html_charts.py" "$work/$name.html" --first-screen)
  local all
  all=$(/usr/bin/python3 "$here/html_charts.py" "$work/$name.html")
  if [[ -n $first && $first != *$'\n'* && $first != BROKEN* && $first != "NOT DRAWN"* ]] &&
    grep -qxF "$first" <<<"$all"; then
    pass "$name: the first chart is the section's ${first%%: *}"
  else
    fail "$name: the first screen's chart is no section's chart: ${first:0:200}"
  fi
}
first_screen quick "$quick"
first_screen acceptance "$accept" --rules "$here/first_screen_rules.yaml"

# The acceptance page: the storage scaling chart has 48 series, more than its plot's legend
# holds: they are listed beside the plot, the plot is drawn without one, and a finding's 48
# lines of evidence show three and fold the rest.
charts=$(/usr/bin/python3 "$here/html_charts.py" "$work/acceptance.html")
storage=$(grep "^Storage scaling" <<<"$charts" | head -1)
series=$(awk -F'; ' '{print NF}' <<<"${storage#*: }")
if [[ ${series:-0} -gt 8 ]] && grep -q 'legend-beside' "$work/acceptance.html"; then
  pass "acceptance: the storage scaling chart's $series series listed beside the plot"
else
  fail "acceptance: storage scaling chart of ${series:-no} series, legend beside: $(grep -c legend-beside "$work/acceptance.html")"
fi
folded=$(grep -oE '<details><summary>[0-9]+ more</summary>' "$work/acceptance.html" | head -1)
[[ -n $folded ]] && pass "acceptance: long evidence folded ($folded)" || fail "acceptance: no evidence folded"
[[ -z $(ls -A "$work/data") ]] && pass "data sets removed" || fail "data left in $work/data"
echo "screenshots: $work/quick.png $work/acceptance.png"
finish
