#!/usr/bin/env bash
# Runs preflight under mpirun, checks its exit code, then runs a checker on the results file.
# run_and_check.sh --np N --rc CODE --bin PREFLIGHT [--out FILE] [--check "CMD ARGS"]
#                  [--expect-output REGEX] [--mkdir DIR] -- PREFLIGHT-ARGS...
set -euo pipefail
np=2 rc=0 bin= out= check= expect=
while [[ $# -gt 0 ]]; do
  case $1 in
    --np) np=$2; shift 2 ;;
    --rc) rc=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --check) check=$2; shift 2 ;;
    --expect-output) expect=$2; shift 2 ;;
    --mkdir) rm -rf "$2" && mkdir -p "$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "run_and_check.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
# Root on a 2-core machine: allow root, oversubscribe, and yield when idle (else busy polling
# with more ranks than cores makes collectives crawl).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
args=("$@")
if [[ -n $out ]]; then
  mkdir -p "$(dirname "$out")"
  rm -f "$out"
  args+=(-o "$out")
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
mpirun -np "$np" "$bin" "${args[@]}" >"$log" 2>&1
got=$?
set -e
tail -n 40 "$log"
if [[ $got -ne $rc ]]; then
  echo "FAIL: expected exit code $rc, got $got" >&2
  exit 1
fi
if [[ -n $expect ]] && ! grep -Eq "$expect" "$log"; then
  echo "FAIL: output does not match /$expect/" >&2
  exit 1
fi
if [[ -n $check ]]; then
  # shellcheck disable=SC2086
  $check "$out"
fi
echo "PASS: exit code $got"
