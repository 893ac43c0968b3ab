#!/usr/bin/env bash
# Inside a Slurm allocation (the sbatch templates here call it): one rank per GPU through
# `srun --mpi=pmix`, the results and the report next to the job's output.
#   run-campaign.sh CONFIG [preflight-report options...]
# Environment: PREFLIGHT, PREFLIGHT_REPORT (the binaries; default: on PATH), PREFLIGHT_OUT (the
# directory; default: $SLURM_SUBMIT_DIR/preflight-$SLURM_JOB_ID), PREFLIGHT_ARGS (more
# `preflight run` arguments, e.g. --set overrides), PREFLIGHT_BASELINE (a results file to compare
# against: the regression template sets it).
set -euo pipefail
config=${1:?usage: run-campaign.sh CONFIG [preflight-report options...]}
shift
: "${SLURM_JOB_ID:?run-campaign.sh runs inside a Slurm job (sbatch)}"
preflight=${PREFLIGHT:-preflight}
report=${PREFLIGHT_REPORT:-preflight-report}
out=${PREFLIGHT_OUT:-${SLURM_SUBMIT_DIR:-.}/preflight-$SLURM_JOB_ID}
mkdir -p "$out"
# NCCL and RDMA register buffers: the limit must be unlimited where the ranks start (the
# environment checks fail the run otherwise and say so).
ulimit -l unlimited 2>/dev/null || echo "run-campaign: could not raise memlock here; the environment checks will say whether the ranks have it" >&2
echo "run-campaign: job $SLURM_JOB_ID on $SLURM_JOB_NUM_NODES node(s): $SLURM_JOB_NODELIST -> $out"
rc=0
# A requeued job (same job id: same directory) completes its file, keeping what finished.
output=(-o "$out/results.h5")
[[ -f $out/results.h5 ]] && output=(--resume "$out/results.h5")
# shellcheck disable=SC2086 # PREFLIGHT_ARGS is a list of words
srun --mpi=pmix --kill-on-bad-exit=1 "$preflight" run "$config" "${output[@]}" ${PREFLIGHT_ARGS:-} || rc=$?
[[ -f $out/results.h5 ]] || { echo "run-campaign: no results file (preflight exit $rc)" >&2; exit "$rc"; }
baseline=()
[[ -n ${PREFLIGHT_BASELINE:-} ]] && baseline=(--baseline "$PREFLIGHT_BASELINE")
report_rc=0
"$report" "$out/results.h5" "${baseline[@]}" --html "$out/report.html" --md "$out/summary.md" \
  --json "$out/verdict.json" --junit "$out/junit.xml" --prometheus "$out/preflight.prom" "$@" ||
  report_rc=$?
echo "run-campaign: preflight exit $rc, report exit $report_rc; drain suspects: scripts/slurm/drain-suspects.sh $out/verdict.json"
# The job fails when the run or the verdict did.
[[ $rc -ne 0 ]] && exit "$rc"
exit "$report_rc"
