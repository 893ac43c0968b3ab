#!/usr/bin/env bash
# Sensitivity of the regression verdicts on emulated hosts: 4 network namespaces
# (scripts/emulated-cluster.sh) whose links tc limits to RATE; one baseline run, then TRIALS runs
# with the rate lowered by 20% and TRIALS runs at the original rate, each compared with the
# baseline. The inter-node bandwidth sizes (>= 1 MiB) must be "slower" in every lowered
# comparison and in none of the others. Needs root; removes the namespaces at the end.
#   scripts/bench/regression-sensitivity.sh [BUILD_DIR]   env: TRIALS (10), RATE (400, Mbit/s),
#     REPETITIONS (7), KEEP (a folder to keep the results files in)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(realpath "${1:-$root/build/default}")
trials=${TRIALS:-10} rate=${RATE:-400}
lowered=$((rate * 8 / 10))
cluster=$root/scripts/emulated-cluster.sh
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work"
# One user of the emulated hosts at a time (another run's `down` would remove them mid-trial).
exec 9>/tmp/preflight-emulated-cluster.lock
flock -w 900 9 || { echo "regression-sensitivity: another run held the emulated hosts for 15 minutes (/tmp/preflight-emulated-cluster.lock)" >&2; exit 1; }
cleanup() { "$cluster" down >/dev/null 2>&1 || true; [[ -n ${KEEP:-} ]] || rm -rf "$work"; }
trap cleanup EXIT
"$cluster" down >/dev/null 2>&1 || true
"$cluster" up 5 >/dev/null
# Inter-node collectives only: one rank on each of 4 emulated hosts. The rate-limited transfers
# share the 2 cores with the four ranks' TCP stacks, so one repetition's noise is 4-9%. Seven
# repetitions, as configs/regression.yaml: the rank test of 7 v 7 reaches 0.00058, below
# 0.01 x 4 / 6 for the four bandwidth sizes together; five (0.0079) could not decide them.
cat >"$work/campaign.yaml" <<YAML
campaign: {name: sensitivity, repetitions: ${REPETITIONS:-7}}
timing: {warmup: 2, min_iters: 10, max_iters: 10, budget: 1h, batch_blocks: 1, timeout: 5m}
benchmarks:
  - {name: collectives, family: comm, backend: mpi, ops: [allreduce, allgather], topologies: [world], sizes: "8,1M,4M"}
YAML
limit() { for h in pf1 pf2 pf3 pf4; do "$cluster" slow "$h" "${1}mbit"; done; }
run() {  # run OUT: the campaign on the 4 hosts
  "$cluster" mpirun pf1:1,pf2:1,pf3:1,pf4:1 "$build/bench/preflight" run "$work/campaign.yaml" \
    --set campaign.ranks_per_node=0 -o "$1" >/dev/null
}
compare() {  # compare CURRENT: "sizes>=1MiB slower, of, other sizes slower or faster"
  "$build/reports/preflight-report" "$1" --baseline "$work/base.h5" --json "$1.json" \
    --no-color >"$1.txt" 2>&1 || true
  /usr/bin/python3 - "$1.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["regressions"][0]
big = [p for p in r["points"] if float(p["size"]) >= 1 << 20]
small = [p for p in r["points"] if float(p["size"]) < 1 << 20]
share = lambda h: "?" if h["stolen"] is None else f"{(h['stolen'] + h['foreign']) * 100:.1f}%"
print(sum(p["verdict"] == "slower" for p in big), len(big),
      sum(p["verdict"] in ("slower", "faster") for p in small),
      sum(p["verdict"] == "undecided" for p in r["points"]),
      "->".join(share(h) for h in r["host_load"]) + (" withheld" if r["withheld"] else ""))
PY
}
echo "# baseline at ${rate} Mbit/s, then $trials runs at ${lowered} Mbit/s and $trials at ${rate}; started $(date -u +%H:%M:%S)"
limit "$rate"
run "$work/base.h5"
printf "%-10s %-6s %22s %24s %10s  %s\n" rate trial ">=1MiB sizes slower" "smaller sizes flagged" undecided "hosts' CPU to others, baseline -> run"
found=0 clean_quiet=0
for ((t = 1; t <= trials; t++)); do
  for r in "$lowered" "$rate"; do
    limit "$r"
    run "$work/r$r-$t.h5"
    read -r slower big flagged undecided load < <(compare "$work/r$r-$t.h5")
    printf "%-10s %-6s %22s %24s %10s  %s\n" "${r}mbit" "$t" "$slower of $big" "$flagged" "$undecided" "$load"
    if [[ $r -eq $lowered ]]; then
      [[ $slower -eq $big ]] && found=$((found + 1))
    else
      [[ $slower -eq 0 && $flagged -eq 0 ]] && clean_quiet=$((clean_quiet + 1))
    fi
  done
done
echo "# 20% lower rate: every >= 1 MiB size slower in $found of $trials; original rate: nothing flagged in $clean_quiet of $trials"
