#!/usr/bin/env bash
# Power of the regression against a history of baselines, both ways, on emulated hosts: HOSTS
# network namespaces (scripts/emulated-cluster.sh), every host's link limited by tc tbf to RATE,
# one rank per host, a comm campaign. HOSTS is 2 by default: on a machine of 2 cores, 4 ranks
# take turns on them and one repetition's time differs from the next by 5-23% (measured
# 2026-12-04; 0.1-1.7% with 2 ranks), a noise of the emulation that no real host has. Three baseline runs at RATE, then TRIALS runs with every link 20%
# slower and TRIALS identical runs at RATE, each compared with the three baselines
# (preflight-report NEW --baseline B1 --baseline B2 --baseline B3 --json). Holds when every
# large size (>= 1 MiB) is flagged slower in every slowed run, no size is flagged in any
# identical run, and every identical run calls at least half its sizes same. Prints both counts
# (N of TRIALS) and exits 0 only when all hold, 1 when one does not, 2 on bad use. Needs root;
# removes the namespaces at the end, and refuses to start while another emulated cluster is up.
#   scripts/bench/regression-power.sh [BUILD_DIR]   env: TRIALS (5), RATE (1000, Mbit/s), HOSTS (2),
#     REPETITIONS (5), ITERATIONS (10), SIZES (256K,1M,2M,4M), KEEP (a folder to keep the files in)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(realpath "${1:-$root/build/default}")
trials=${TRIALS:-5} rate=${RATE:-1000} repetitions=${REPETITIONS:-5} iterations=${ITERATIONS:-10}
host_count=${HOSTS:-2}
sizes=${SIZES:-256K,1M,2M,4M}
slowed=$((rate * 8 / 10))
cluster=$root/scripts/emulated-cluster.sh
for tool in "$build/bench/preflight" "$build/reports/preflight-report"; do
  [[ -x $tool ]] || { echo "regression-power: no $tool: build first, or give BUILD_DIR" >&2; exit 2; }
done
[[ $trials =~ ^[1-9][0-9]*$ && $rate =~ ^[1-9][0-9]*$ && $host_count =~ ^[2-9]$ ]] ||
  { echo "regression-power: TRIALS and RATE must be positive integers, HOSTS 2 to 9 (got '$trials', '$rate', '$host_count')" >&2; exit 2; }
hosts=() placement=""
for ((h = 1; h <= host_count; h++)); do hosts+=("pf$h"); placement+="${placement:+,}pf$h:1"; done
# One user of the emulated hosts at a time (another run's `down` would remove them mid-trial).
exec 9>/tmp/preflight-emulated-cluster.lock
flock -w 900 9 || { echo "regression-power: another run held the emulated hosts for 15 minutes (/tmp/preflight-emulated-cluster.lock)" >&2; exit 1; }
if ip netns list 2>/dev/null | grep -q '^pf[0-9]'; then
  echo "regression-power: emulated hosts (pf*) are up already, another test may be using them;" \
    "wait for it, or remove them with scripts/emulated-cluster.sh down" >&2
  exit 2
fi
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work"
cleanup() { "$cluster" down >/dev/null 2>&1 || true; [[ -n ${KEEP:-} ]] || rm -rf "$work"; }
trap cleanup EXIT
"$cluster" up $((host_count + 1)) >/dev/null
# Inter-host collectives only, one rank on each host: every size here moves its bytes over
# the rate-limited links (256 KiB in about 3 ms at 1 Gbit/s), so all of them slow with the rate;
# "large" (>= 1 MiB) are those whose time is the links' alone, well past the latency.
cat >"$work/campaign.yaml" <<YAML
campaign: {name: regression-power, repetitions: $repetitions}
timing: {warmup: 2, min_iters: $iterations, max_iters: $iterations, budget: 1h, batch_blocks: 1, timeout: 5m}
benchmarks:
  - {name: collectives, family: comm, backend: mpi, ops: [allreduce, allgather, reducescatter], topologies: [world], sizes: "$sizes"}
YAML
limit() { for h in "${hosts[@]}"; do "$cluster" slow "$h" "${1}mbit"; done; }
run() {  # run OUT: the campaign on the hosts, its seconds on stdout
  local start=$SECONDS
  "$cluster" mpirun "$placement" "$build/bench/preflight" run "$work/campaign.yaml" \
    --set campaign.ranks_per_node=0 -o "$1" >"$1.log" 2>&1 ||
    { echo "regression-power: the run for $1 failed:" >&2; tail -5 "$1.log" >&2; exit 1; }
  echo $((SECONDS - start))
}
# compare CURRENT: "large-sizes-slower large-sizes flagged same sizes changes noise withheld"
compare() {
  "$build/reports/preflight-report" "$1" --baseline "$work/b1.h5" --baseline "$work/b2.h5" \
    --baseline "$work/b3.h5" --json "$1.json" --no-color >"$1.txt" 2>&1 || true
  /usr/bin/python3 - "$1.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["regressions"][0]
points = r["points"]
big = [p for p in points if float(p["size"]) >= 1 << 20]
changes = [p["change"] * 100 for p in points]
noise = [p["noise"] * 100 for p in points]
print(sum(p["verdict"] == "slower" for p in big), len(big),
      sum(p["verdict"] in ("slower", "faster") for p in points),
      sum(p["verdict"] == "same" for p in points), len(points),
      f"{min(changes):+.1f}..{max(changes):+.1f}%", f"{min(noise):.1f}-{max(noise):.1f}%",
      "withheld" if r["withheld"] else "judged")
PY
}
echo "# $host_count emulated hosts of 1 rank, every link at $rate Mbit/s: 3 baselines, then $trials runs at" \
  "$slowed Mbit/s and $trials at $rate; collectives $sizes, $repetitions repetitions of" \
  "$iterations iterations; started $(date -u +%H:%M:%S) UTC"
limit "$rate"
for b in 1 2 3; do
  seconds=$(run "$work/b$b.h5")
  echo "# baseline $b: $seconds s"
done
printf "%-9s %-5s %4s %20s %8s %12s %16s %14s  %s\n" rate trial s ">=1MiB sizes slower" flagged "same" \
  change "run-to-run" verdicts
found=0 quiet=0 half_same=0
for ((t = 1; t <= trials; t++)); do
  for r in "$slowed" "$rate"; do
    limit "$r"
    seconds=$(run "$work/r$r-$t.h5")
    read -r slower big flagged same all change noise judged < <(compare "$work/r$r-$t.h5") || true
    [[ -n ${judged:-} ]] ||
      { echo "regression-power: no comparison for run $r-$t:" >&2; tail -5 "$work/r$r-$t.h5.txt" >&2; exit 1; }
    printf "%-9s %-5s %4s %20s %8s %12s %16s %14s  %s\n" "${r}mbit" "$t" "$seconds" "$slower of $big" \
      "$flagged" "$same of $all" "$change" "$noise" "$judged"
    if [[ $r -eq $slowed ]]; then
      [[ $big -gt 0 && $slower -eq $big ]] && found=$((found + 1))
    else
      [[ $flagged -eq 0 ]] && quiet=$((quiet + 1))
      [[ $((2 * same)) -ge $all ]] && half_same=$((half_same + 1))
    fi
  done
done
echo "# every link 20% slower: every >= 1 MiB size flagged slower in $found of $trials;" \
  "identical: no size flagged in $quiet of $trials, at least half the sizes same in $half_same of $trials"
[[ $found -eq $trials && $quiet -eq $trials && $half_same -eq $trials ]]
