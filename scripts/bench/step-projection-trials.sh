#!/usr/bin/env bash
# The step projection against the measured step (docs/step.md, "Figures measured here"): RUNS
# runs of a step campaign on NP ranks (CONFIG's ranks_per_node makes the virtual nodes), each
# reported by preflight-report; one line per run with, for each node count the run measured,
# the projected and measured step time, the error (projected - measured) / measured, and the
# projected and measured bottleneck (the report's step-projection section, JSON). The header
# gives the date, the commit, the command and the load average before the first run; the
# footer the load average after the last, so a reader knows what else ran.
#   scripts/bench/step-projection-trials.sh [BUILD_DIR]
#   env: CONFIG (configs/step.yaml), RUNS (5), NP (4), SET ("": more --set KEY=VALUE words for
#        every run), IMAGES (0; N: make a data set of N images first, as `preflight dataset
#        make`, and set loader.data_dir and step.data_dir to it), WIDTH (500: their mean
#        width), HOSTS ("": on this host; e.g. pf1:2,pf2:2: on emulated hosts, which the script
#        makes with scripts/emulated-cluster.sh and removes afterwards; needs root), SLOW ("";
#        with HOSTS, e.g. "pf2 200mbit": that host's link limited both ways with tc tbf), DIR
#        (the work directory; default a fresh one in /var/tmp, removed afterwards)
# Exit 1 when a run or its report fails (the line says which), 2 on bad input.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/default}
preflight=$build/bench/preflight report=$build/reports/preflight-report
config=${CONFIG:-$root/configs/step.yaml} runs=${RUNS:-5} np=${NP:-4} images=${IMAGES:-0}
width=${WIDTH:-500} hosts=${HOSTS:-}
py=/usr/bin/python3
[[ -x $preflight && -x $report ]] || { echo "step-projection-trials: build preflight and preflight-report in $build first" >&2; exit 2; }
[[ -f $config ]] || { echo "step-projection-trials: CONFIG $config: no such file" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "step-projection-trials: RUNS must be a positive integer, not '$runs'" >&2; exit 2; }
source "$root/scripts/mpi-env.sh"
if [[ -n ${DIR:-} ]]; then
  work=$DIR && mkdir -p "$work"
else
  work=$(mktemp -d /var/tmp/step-projection-trials.XXXXXX) && trap 'rm -rf "$work"' EXIT
fi
read -ra sets <<<"${SET:-}"
if [[ -n $hosts ]]; then
  cluster=$root/scripts/emulated-cluster.sh
  last=$(grep -o 'pf[0-9]*' <<<"$hosts" | tr -d pf | sort -n | tail -1)
  # One user of the emulated hosts at a time (another run's `down` would remove them mid-run).
  exec 9>/tmp/preflight-emulated-cluster.lock
  flock -w 900 9 || { echo "step-projection-trials: another run holds the emulated hosts" >&2; exit 1; }
  "$cluster" down >/dev/null 2>&1
  trap '"$cluster" down >/dev/null 2>&1; [[ -n ${DIR:-} ]] || rm -rf "$work"' EXIT
  "$cluster" up $((last + 1)) || { echo "step-projection-trials: cannot make the emulated hosts" >&2; exit 1; }
  if [[ -n ${SLOW:-} ]]; then
    # shellcheck disable=SC2086
    "$cluster" slow ${SLOW} || { echo "step-projection-trials: cannot slow '$SLOW'" >&2; exit 1; }
  fi
fi
if [[ $images -gt 0 ]]; then
  "$preflight" dataset make --images "$images" --mean-width "$width" "$work/images" >/dev/null ||
    { echo "step-projection-trials: dataset make failed" >&2; exit 1; }
  sets+=(--set "loader.data_dir=$work/images" --set "step.data_dir=$work/images")
fi
launch() {  # launch OUT: one run of the campaign
  if [[ -n $hosts ]]; then
    "$cluster" mpirun "$hosts" "$preflight" run "$config" "${sets[@]}" -o "$1"
  else
    mpirun -np "$np" "$preflight" run "$config" "${sets[@]}" -o "$1"
  fi
}

echo "# step-projection-trials.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "# CONFIG=$config RUNS=$runs NP=$np${hosts:+ HOSTS=$hosts}${SLOW:+ SLOW=\"$SLOW\"}${SET:+ SET=\"$SET\"}$([[ $images -gt 0 ]] && echo " IMAGES=$images WIDTH=$width")"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# run | nodes: projected / measured s, error, projected / measured bottleneck | ..."
failed=0
for r in $(seq "$runs"); do
  out=$work/run$r.h5
  rm -f "$out"
  if ! launch "$out" >"$work/run$r.log" 2>&1; then
    echo "$r | run failed: $(tail -1 "$work/run$r.log")"; failed=1; continue
  fi
  "$report" "$out" --json "$work/run$r.json" >"$work/run$r.txt" 2>&1
  line=$("$py" - "$work/run$r.json" <<'PY'
import json, sys
sec = next((s for s in json.load(open(sys.argv[1]))["sections"] if s["id"] == "step-projection"), None)
if sec is None:
    sys.exit("no step projection in the report")
cells = []
for row in (dict(zip(sec["header"], r)) for r in sec["rows"]):
    if row["measured step s"] == "not run":
        continue
    measured = row["measured step s"].split()[0]
    cells.append(f"{row['nodes']}: {float(row['projected step s']):.3f} / {float(measured):.3f}, "
                 f"{row['error']}, {row['projected bottleneck']} / {row['measured bottleneck']}")
if not cells:
    sys.exit("no measured step in the report")
print(" | ".join(cells))
PY
  ) || { echo "$r | report failed: $line $(tail -1 "$work/run$r.txt")"; failed=1; continue; }
  echo "$r | $line"
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $failed
