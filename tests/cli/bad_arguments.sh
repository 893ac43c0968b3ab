#!/usr/bin/env bash
# Feeds preflight every bad argument in a table; each must give its message on stderr, exit 2,
# run nothing and write nothing. An existing results file must come through untouched.
# bad_arguments.sh PREFLIGHT TABLE WORKDIR   (configs for the table are beside it, in configs/)
set -uo pipefail
bin=$1 table=$2 work=$3
configs=$(cd "$(dirname "$table")" && pwd)/configs
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
rm -rf "$work" && mkdir -p "$work"
existing=$work/existing.h5
echo "results that must survive" >"$existing"
before=$(sha256sum "$existing")
failures=0 cases=0
while IFS='|' read -r expect args; do
  [[ $expect =~ ^[[:space:]]*(#|$) ]] && continue
  expect=$(echo "$expect" | sed 's/[[:space:]]*$//')
  out=$work/case$cases.h5
  args=${args//\{OUT\}/$out}
  args=${args//\{MISSING_DIR\}/$work/no-such-dir}
  args=${args//\{EXISTING\}/$existing}
  args=${args//\{CONFIGS\}/$configs}
  cases=$((cases + 1))
  # shellcheck disable=SC2086
  "$bin" $args >"$work/stdout" 2>"$work/stderr" </dev/null
  rc=$?
  why=
  [[ $rc -eq 2 ]] || why="exit code $rc, expected 2"
  grep -qF -- "$expect" "$work/stderr" || why="$why; stderr lacks '$expect'"
  [[ -e $out ]] && why="$why; it wrote $out"
  grep -q '^\[case' "$work/stdout" && why="$why; it ran a case"
  if [[ -n $why ]]; then
    failures=$((failures + 1))
    echo "FAIL: preflight $args: ${why#; }"
    sed 's/^/    stderr: /' "$work/stderr" | head -5
  else
    echo "ok:   preflight $args -> $(head -1 "$work/stderr")"
  fi
done <"$table"
# Every row of the table ran: a loop cut short (a command reading the table from stdin, a bad
# line) would pass with the rows it never reached. Rows are counted here apart from the loop.
rows=$(grep -cvE '^[[:space:]]*(#|$)' "$table")
if [[ $cases -ne $rows ]]; then
  echo "FAIL: $cases cases run, the table has $rows rows"
  failures=$((failures + 1))
else
  echo "ok:   all $rows rows of the table ran"
fi
if [[ $(sha256sum "$existing") != "$before" ]]; then
  echo "FAIL: an existing results file was changed"
  failures=$((failures + 1))
fi
# Under mpirun every rank rejects the same input, rank 0 alone says so, and the job exits 2:
# for flags (checked before MPI starts) and for a config (read by rank 0, parsed by all).
for args in "comm --op nope" "run $configs/bad_op.yaml -o $work/mpi.h5"; do
  cases=$((cases + 1))
  # shellcheck disable=SC2086
  OMPI_MCA_mpi_yield_when_idle=1 mpirun -np 2 "$bin" $args >"$work/stdout" 2>"$work/stderr"
  rc=$?
  lines=$(grep -c -- "expected one of" "$work/stderr")
  if [[ $rc -ne 2 || $lines -ne 1 || -e $work/mpi.h5 ]]; then
    echo "FAIL: mpirun -np 2 preflight $args: exit code $rc (expected 2), message printed $lines times (expected 1)"
    failures=$((failures + 1))
  else
    echo "ok:   mpirun -np 2 preflight $args -> exit 2, one message"
  fi
done
echo "$((cases - failures)) passed, $failures failed"
[[ $failures -eq 0 ]]
