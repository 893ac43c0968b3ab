#!/usr/bin/env bash
# preflight under a real Slurm (scripts/slurm/local-cluster.sh: munged, slurmctld and slurmd on
# 127.0.0.1, torn down afterwards, also on failure): `srun --mpi=pmix -n 2 preflight run
# configs/quick.yaml` (sizes trimmed for time), then the report. The file records the job's
# facts, the ranks-per-node check compares against Slurm's placement, and the report shows both.
# Exit 77 (skipped) with the exact reason where slurmd cannot run.
# slurm_test.sh PREFLIGHT PREFLIGHT_REPORT SOURCE_DIR WORKDIR
set -uo pipefail
bin=$1 report=$2 src=$3 work=$4
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
cluster="$work/cluster"
trap '"$src/scripts/slurm/local-cluster.sh" stop "$cluster"' EXIT
conf=$("$src/scripts/slurm/local-cluster.sh" start "$cluster" 2>"$work/start.err")
rc=$?
if [[ $rc -eq 77 ]]; then
  echo "skipped: $(cat "$work/start.err")"
  exit 77
fi
[[ $rc -eq 0 ]] || { echo "FAIL: local Slurm did not start: $(cat "$work/start.err")"; exit 1; }
export SLURM_CONF=$conf

cd "$work"
srun --mpi=pmix -n 2 --job-name preflight-quick "$bin" run "$src/configs/quick.yaml" -o "$work/quick.h5" \
  --set collectives.sizes=8:32K:x64 --set collectives.ops=allreduce,allgather \
  --set storage.engines=psync --set storage.dir="$work" >"$work/run.log" 2>&1
rc=$?
[[ $rc -eq 0 ]] && pass "srun --mpi=pmix -n 2 preflight run configs/quick.yaml: exit 0" ||
  { fail "srun ... preflight run: exit $rc"; tail -20 "$work/run.log"; }
grep -q '^# preflight quick · .* · 2 ranks on 1 node' "$work/run.log" && pass "2 ranks launched by srun" ||
  fail "the run's header does not say 2 ranks on 1 node"
facts=$(h5 "$work/quick.h5" 'import json; d = json.loads(text(f.attrs["scheduler"])); print(d["kind"], d["job_name"], d["tasks_per_node"], d["partition"], "job_id" in d)')
[[ $facts == "slurm preflight-quick 2 test True" ]] && pass "the file records Slurm's job facts: $facts" ||
  fail "scheduler attribute: '$facts'"
ranks=$(h5 "$work/quick.h5" 'c = [text(x) for x in f["env_checks/check"][()]]; i = c.index("ranks per node"); print(text(f["env_checks/status"][i]), text(f["env_checks/detail"][i]))')
[[ $ranks == "pass 2 on each of 1 host, as the scheduler placed them (SLURM_STEP_TASKS_PER_NODE=2 at SLURM_NODEID=0)" ]] &&
  pass "ranks per node checked against Slurm's placement" || fail "ranks per node: '$ranks'"

"$report" "$work/quick.h5" --md "$work/summary.md" >"$work/report.txt" 2>&1
rc=$?
[[ $rc -eq 0 || $rc -eq 3 ]] && pass "preflight-report: exit $rc" || { fail "preflight-report: exit $rc"; tail -20 "$work/report.txt"; }
grep -q '^# scheduler: kind slurm, job_id [0-9]*, job_name preflight-quick' "$work/report.txt" &&
  pass "the report shows the job's facts" || fail "the terminal report has no scheduler line"
grep -q '^Scheduler: kind slurm' "$work/summary.md" && pass "the Markdown shows them too" ||
  fail "the Markdown has no scheduler line"
# Every sbatch template parses, and the config it runs by default is there.
for t in "$src"/scripts/slurm/*.sbatch; do
  config=$(sed -n 's/.*PREFLIGHT_CONFIG:-\([^}]*\)}.*/\1/p' "$t")
  bash -n "$t" && [[ -n $config && -f $src/$config ]] && grep -q 'run-campaign.sh' "$t" &&
    pass "$(basename "$t"): parses, runs $config through run-campaign.sh" ||
    fail "$(basename "$t"): does not parse, or its config '$config' is missing"
done
finish
