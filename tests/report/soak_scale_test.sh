#!/usr/bin/env bash
# The synthetic soak generator (scripts/bench/make_soak_results.py, used by soak-scale.sh) writes
# a file SPEC.md allows (check_results.py recomputes its figures) with a soak's shape: soak_s,
# rounds as repetitions, case index = round x 3 + position, start times in order; the report
# reads it whole and names the planted slow node; with two rounds out of order it reads the file
# again and finds the same device telemetry. A tiny size: 4 nodes x 2 ranks, 3 rounds.
# soak_scale_test.sh PREFLIGHT_REPORT WORKDIR
set -uo pipefail
report=$1 work=$2
here=$(dirname "$0")
source "$here/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
f=$work/soak.h5
/usr/bin/python3 "$here/../../scripts/bench/make_soak_results.py" "$f" --nodes 4 --ranks-per-node 2 --hours 0.75 \
  --round-minutes 15 >"$work/gen.out" 2>&1 || { fail "generator failed: $(tail -3 "$work/gen.out")"; finish; exit; }
/usr/bin/python3 "$here/../schema/check_results.py" --spec "$here/../../results-schema/SPEC.md" --min-cases 9 \
  --max-cases 9 "$f" >"$work/check.out" 2>&1
expect "the file holds to SPEC.md (check_results.py)" grep -q "^check_results: OK" "$work/check.out" ||
  head -5 "$work/check.out"
shape=$(h5 "$f" '
cases = [f["cases"][k] for k in sorted(f["cases"])]
ok = [int(c.attrs["index"]) == i and int(c.attrs["repetition"]) == i // 3 for i, c in enumerate(cases)]
starts = [text(c.attrs["start_time"]) for c in cases]
print(float(f.attrs["soak_s"]), len(cases), all(ok), starts == sorted(starts), len(set(starts)))')
expect "soak_s 2700, 9 cases in 3 rounds, indexes and start times in order ($shape)" \
  test "$shape" = "2700.0 9 True True 9"
"$report" "$f" --no-color --json "$work/r.json" >"$work/out" 2>&1
rc=$?
cases=$(/usr/bin/python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['runs'][0]['cases'])" "$work/r.json" 2>&1)
expect "the report reads the 9 cases (json: $cases)" test "$cases" = 9
# The slow node (node 4/3 = 1) is planted in 2 of the 3 rounds: named, its check fails (exit 1).
expect "the report names the planted slow node and exits 1 (exit $rc)" \
  bash -c "[[ $rc -eq 1 ]] && grep -qE '^# slow node: node0001 \(ranks 2,3\)' '$work/out'"
# Rounds out of order (case 000004 of round 1 marked round 2, 000007 of round 2 marked round 1):
# cases gave their telemetry to rounds the report cannot judge as it reads, so it reads the file
# again; the run's device-watch findings are the in-order file's, case 000004's among them.
cp "$f" "$work/disordered.h5"
/usr/bin/python3 - "$work/disordered.h5" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    a, b = f["cases"]["000004"], f["cases"]["000007"]
    ra, rb = a.attrs["repetition"], b.attrs["repetition"]
    a.attrs["repetition"], b.attrs["repetition"] = rb, ra
PY
"$report" "$work/disordered.h5" --no-color --json "$work/d.json" >"$work/d.out" 2>&1
same=$(/usr/bin/python3 - "$work/r.json" "$work/d.json" <<'PY' 2>&1
import json, sys
w = [json.load(open(p))["runs"][0]["device_watch"] for p in sys.argv[1:]]
cases = [c for x in w[1] for c in x["cases"]]
print(len(w[0]), w[0] == w[1], any(c.startswith("000004") for c in cases))
PY
)
expect "rounds out of order: the same device-watch findings, 000004 among them ($same)" \
  bash -c "[[ '$same' =~ ^[1-9][0-9]*' True True'$ ]]"
finish
