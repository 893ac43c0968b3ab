#!/usr/bin/env bash
# Each documented exit code, produced by the situation it stands for.
# exit_codes_test.sh PREFLIGHT WORKDIR GOOD_CONFIG
set -uo pipefail
bin=$1 work=$2 config=$3
source "$(dirname "$0")/common.sh"
rm -rf "$work" && mkdir -p "$work"
run() {  # run EXPECTED DESCRIPTION ARGS...
  local expected=$1 what=$2; shift 2
  mpirun -np 2 "$bin" "$@" >"$work/log" 2>&1
  local rc=$?
  [[ $rc -eq $expected ]] && pass "exit $expected: $what" || { fail "exit $rc, expected $expected: $what"; tail -3 "$work/log"; }
}
run 0 "every case ran, every result right" run "$config" -o "$work/ok.h5"
run 1 "a wrong result" run "$config" --test-corrupt-rank 1 -o "$work/wrong.h5"
run 2 "bad input" run "$config" --set comm.sizes=nonsense -o "$work/bad.h5"
run 3 "a hang" run "$config" --set timing.timeout=2s --test-hang-rank 1 -o "$work/hang.h5"
# Each case takes far more than 1 ms (2000 iterations), so the budget runs out after the first.
run 3 "the run's time budget ran out" run "$config" --set campaign.time_budget=1ms --set comm.ops=all \
  --set timing.min_iters=2000 --set timing.max_iters=2000 --set timing.budget=1h -o "$work/budget.h5"
run 4 "an internal error" run "$config" --test-internal-error-rank 1 -o "$work/internal.h5"
run 5 "an environment check failed" run "$config" --test-node-kernel "1=Linux 0.0-planted" --set campaign.ranks_per_node=1 -o "$work/env.h5"
[[ $(h5 "$work/budget.h5" 'print(text(f.attrs["status"]))') == incomplete ]] && pass "time budget: status incomplete" ||
  fail "time budget: status is not incomplete"
finish
