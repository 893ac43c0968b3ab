#!/usr/bin/env bash
# --set changes what runs and what the results record as the effective config.
# set_override_test.sh PREFLIGHT WORKDIR CONFIG
set -uo pipefail
bin=$1 work=$2 config=$3
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
mpirun -np 2 "$bin" run "$config" --set comm.sizes=8,16,32 --set collectives.ops=[allreduce,alltoall] \
  --set timing.max_iters=4 -o "$work/r.h5" >"$work/log" 2>&1
rc=$?
[[ $rc -eq 0 ]] && pass "run with --set exits 0" || fail "run with --set exits $rc"
got=$(h5 "$work/r.h5" '
import json
c = json.loads(f.attrs["config"])
cases = [f["cases"][k] for k in sorted(f["cases"])]
print(c["benchmarks"][0]["sizes"], c["resolved"][0]["config"]["sizes"], c["timing"]["max_iters"],
      [text(x.attrs["collective"]) for x in cases], len(cases[0]["stats"]["point"]), int(cases[0]["stats"]["iterations"][0]) <= 4)')
want="8,16,32 [8, 16, 32] 4 ['allreduce', 'alltoall'] 3 True"
[[ $got == "$want" ]] && pass "file records the overrides and ran them: $got" || fail "file says: $got (wanted $want)"
finish
