#!/usr/bin/env bash
# The fabric family on one machine (loopback): libfabric's tcp provider bound to 127.0.0.1 and
# its shm provider, and the MPI transport, each over mpirun -np 4 as 4 virtual nodes (the full
# round-robin schedule of 3 rounds; the retest pass is the emulated-hosts test's); the pairs' messages are checked, the file records
# the provider; a bad provider name, an absent provider and a single node are refused or
# skipped with a message that says what to do.
# loopback_test.sh PREFLIGHT REPORT WORKDIR
set -uo pipefail
bin=$1 report=$2 work=$3
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
quick=(--tests latency,bandwidth --sizes 8,64K --window 4 --passes 1 --iters 5 --budget 1ms)

for transport in "ofi --provider tcp --address 127.0.0.1" "ofi --provider shm" "mpi"; do
  name=${transport// /_}
  out=$work/$name.h5
  # shellcheck disable=SC2086
  timeout 120 mpirun -np 4 "$bin" fabric --ranks-per-node 1 --transport $transport "${quick[@]}" \
    -o "$out" >"$work/$name.log" 2>&1
  rc=$?
  got=$(h5 "$out" 'cases = [f["cases"][k] for k in sorted(f["cases"])]
ok = sum(text(c.attrs["status"]) == "ok" for c in cases)
wrong = sum(int(c.attrs["wrong_elements"]) for c in cases)
provider = sorted({text(c.attrs["provider"]).replace(" ", "_") for c in cases})
pairs = sorted({text(c.attrs["pairs"]).replace(" ", "_") for c in cases})
import numpy as np
bw = [float(v) for c in cases if text(c.attrs["pair_test"]) == "bandwidth" for v, g in zip(c["stats/pair_bandwidth"][:], c["stats/group"][:]) if g >= 0]
print(text(f.attrs["status"]), len(cases), ok, wrong, "|".join(provider), "|".join(pairs), len(bw), all(v > 0 for v in bw))' 2>&1)
  read -r status cases ok wrong provider pairs nbw positive <<<"$got"
  [[ $rc -eq 0 && $status == complete && $cases -eq 6 && $ok -eq 6 && $wrong -eq 0 && $positive == True && $nbw -eq 12 ]] &&
    pass "$transport: 6 cases ok (3 rounds x 2 tests), 0 wrong, 12 pair bandwidths > 0, provider $provider" ||
    { fail "$transport: exit $rc, file: $got"; tail -5 "$work/$name.log"; }
  [[ $pairs == "0:1_2:3|0:2_1:3|0:3_1:2" ]] &&
    pass "$transport: every pair of the 4 nodes in disjoint rounds" || fail "$transport: pairs $pairs"
done
grep -q '"providers_found"' <(h5 "$work/ofi_--provider_tcp_--address_127.0.0.1.h5" 'print(text(f.attrs["config"]))') &&
  pass "the config records the libfabric providers found" || fail "no providers_found in the config"

# A report of the tcp run renders; its JSON verdict has a suspects list (a list, whatever it holds).
"$report" "$work/ofi_--provider_tcp_--address_127.0.0.1.h5" --json "$work/tcp.json" --slow-nodes warn >"$work/report.log" 2>&1
/usr/bin/python3 -c "import json, sys; v = json.load(open(sys.argv[1])); assert isinstance(v['suspects'], list)" "$work/tcp.json" &&
  pass "the JSON verdict has a suspects list" || fail "JSON verdict: no suspects list ($(tail -2 "$work/report.log"))"

for bad in "nosuch-provider" "verbs"; do
  timeout 60 mpirun -np 2 "$bin" fabric --ranks-per-node 1 --provider "$bad" -o "$work/bad.h5" >"$work/bad.log" 2>&1
  rc=$?
  [[ $rc -eq 2 ]] && grep -q "provider: provider '$bad' has no reliable-datagram endpoint here" "$work/bad.log" &&
    grep -q "RDM providers found: .*tcp" "$work/bad.log" && grep -q -- "--transport mpi" "$work/bad.log" &&
    pass "provider $bad: exit 2, names the field, the providers found and the MPI fallback" ||
    { fail "provider $bad: exit $rc"; cat "$work/bad.log" | head -5; }
  [[ ! -f $work/bad.h5 ]] || { fail "provider $bad: a results file was written"; rm -f "$work/bad.h5"; }
done

timeout 60 mpirun -np 2 "$bin" fabric --transport mpi "${quick[@]}" -o "$work/one.h5" >"$work/one.log" 2>&1
rc=$?
grep -q "the pair sweep needs 2 or more nodes" "$work/one.log" && grep -q -- "--ranks-per-node 1" "$work/one.log" &&
  pass "one node (exit $rc): skipped with the fix named" || { fail "one node: exit $rc"; tail -3 "$work/one.log"; }
finish
