#!/usr/bin/env bash
# The report's telemetry findings, both ways, on synthetic GPU telemetry planted into a real
# 4-rank CPU run (tests/report/plant_telemetry.py): a device that throttled in one case, one
# whose SM clock is 15% below its peers', one whose link trained at x8, one whose uncorrected
# ECC count rose during one case and one that came within 5 C of its slowdown temperature in one
# case are each named, with its case, in every output (terminal,
# Markdown, HTML, JSON) and no other device is (rank 0's ECC errors from before the run stand
# still: history, not named; rank 3 at 84 C, 6 C short of its limit, is not named); the same
# file with nothing planted names none (its links start each point at gen 1, as idle GPUs do,
# and are not named for it). With readings on 2 ranks, clocks are "not judged", never called
# alike. An unknown rule in a file is refused.
# telemetry_findings_test.sh PREFLIGHT PREFLIGHT_REPORT WORKDIR
set -uo pipefail
bin=$1 report=$2 work=$3
source "$(dirname "$0")/../faults/common.sh"
plant=$(dirname "$0")/plant_telemetry.py
rm -rf "$work" && mkdir -p "$work"
mpirun -np 4 "$bin" matmul --ranks-per-node 1 --dtype float32,float64 --sizes 32,48 --warmup 1 \
  --min-iters 3 --iters 5 --budget 5ms --batch-blocks 1 -o "$work/run.h5" >"$work/run.log" 2>&1 ||
  { fail "preflight matmul failed"; tail -20 "$work/run.log"; finish; exit 1; }
/usr/bin/python3 "$plant" "$work/run.h5" "$work/clean.h5" || fail "planting (clean) failed"
/usr/bin/python3 "$plant" "$work/run.h5" "$work/planted.h5" --throttle 2:1 --clock 1:0.85 \
  --link 3:8 --ecc 2:0 --hot 1:1 || fail "planting failed"

# The device warnings of each output, one per line, markup removed. The report must exit RC and
# write every output, its JSON parsing: a report that crashed or wrote nothing must not read as
# "no device named" (each output file starts empty, so a missing one is not a list of none).
outputs() {  # NAME RC
  local name=$1 rc
  rm -f "$work/$name".{md,html,json,txt}
  "$report" "$work/$name.h5" --no-color --slow-nodes warn --md "$work/$name.md" --html "$work/$name.html" \
    --json "$work/$name.json" >"$work/$name.txt" 2>&1
  rc=$?
  [[ $rc -eq $2 ]] && pass "$name: the report exits $rc" || { fail "$name: the report exits $rc, expected $2"; tail -5 "$work/$name.txt"; }
  [[ -s $work/$name.md && -s $work/$name.html ]] && /usr/bin/python3 -c "import json, sys
d = json.load(open(sys.argv[1])); assert d['runs'] and 'reasons' in d" "$work/$name.json" &&
    pass "$name: Markdown, HTML and a JSON verdict that parses, with its runs" ||
    fail "$name: an output is missing, or the JSON does not parse"
  grep -E '^  warn +[^ ]+: device watch: ' "$work/$name.txt" | sed -E 's/^  warn +//' >"$work/$name.terminal"
  grep -E '^- \*\*warn\*\*: [^ ]+: device watch: ' "$work/$name.md" |
    sed -E 's/^- \*\*warn\*\*: //; s/\\(.)/\1/g; s/&#39;/'"'"'/g' >"$work/$name.markdown"
  grep -oE '<li><span[^>]*>warn</span>[^<]*: device watch: [^<]*' "$work/$name.html" |
    sed -E 's/^<li><span[^>]*>warn<\/span>//; s/&#39;/'"'"'/g; s/&quot;/"/g; s/&amp;/\&/g' >"$work/$name.htmltext"
  /usr/bin/python3 -c "import json, sys
for r in json.load(open(sys.argv[1]))['reasons']:
    if r['kind'] == 'warn' and ': device watch: ' in r['text']: print(r['text'])" "$work/$name.json" >"$work/$name.jsontext"
}
# Device warnings are warn reasons: neither file fails a check. (--slow-nodes warn: the matmul
# run's own timing, which a busy machine skews, lists a slow node instead of failing the verdict;
# this test is about the planted telemetry.)
outputs planted 0
outputs clean 0
for out in terminal markdown htmltext jsontext; do
  f=$work/planted.$out
  n=$(wc -l <"$f")
  [[ $n -eq 5 ]] && pass "$out: 5 device warnings" || { fail "$out: $n device warnings"; cat "$f"; }
  grep -qE "rank 2 on [^ ]+ \(device 0000:38:00\.0\): throttled \(gpu_throttle: 0x8 hardware slowdown, 0x40 hardware thermal slowdown in 6 of 12 readings\) in case 000001 [^,]*$" "$f" &&
    pass "$out: rank 2 throttled in case 000001 alone" || { fail "$out: rank 2's throttling"; cat "$f"; }
  grep -qE "rank 1 on [^ ]+ \(device 0000:28:00\.0\): SM clock unlike its peers' \(gpu_sm_mhz: median 1[67][0-9]{2}(\.[0-9]+)? MHz, 1[4-6]% below its peers' median 19[0-9]{2}(\.[0-9]+)? MHz \(tolerance 10%\)\) in case 000000 .* and 1 more case$" "$f" &&
    pass "$out: rank 1's SM clock, below its peers' in both cases" || { fail "$out: rank 1's clock"; cat "$f"; }
  grep -qE "rank 3 on [^ ]+ \(device 0000:48:00\.0\): PCIe link narrower than its maximum \(gpu_pcie_width: highest reading 8 lanes, its maximum 16 lanes, over 2 cases\) in case 000000 .* and 1 more case$" "$f" &&
    pass "$out: rank 3's x8 link" || { fail "$out: rank 3's link"; cat "$f"; }
  grep -qE "rank 2 on [^ ]+ \(device 0000:38:00\.0\): uncorrected ECC errors grew \(gpu_ecc_errors: rose by 2 during the case \(2 of 12 readings above the one before\)\) in case 000000 [^,]*$" "$f" &&
    pass "$out: rank 2's ECC errors grew in case 000000 alone" || { fail "$out: rank 2's ECC errors"; cat "$f"; }
  grep -qE "rank 1 on [^ ]+ \(device 0000:28:00\.0\): close to its slowdown temperature \(gpu_temp_c: highest reading 87 C, 3 C short of gpu_slowdown_temp_c 90 C \(margin 5 C\)\) in case 000001 [^,]*$" "$f" &&
    pass "$out: rank 1 within 5 C of its slowdown temperature in case 000001 alone" ||
    { fail "$out: rank 1's temperature"; cat "$f"; }
  ! grep -qE "rank 0 |generation below|rank 3 [^:]*: close to" "$f" &&
    pass "$out: rank 0, every link generation and rank 3's warm GPU unnamed" ||
    { fail "$out: names a healthy device"; cat "$f"; }
  [[ ! -s $work/clean.$out ]] && pass "$out: clean file: no device warning" ||
    { fail "$out: clean file names a device"; cat "$work/clean.$out"; }
done
watch=$(/usr/bin/python3 -c "import json, sys
for w in json.load(open(sys.argv[1]))['runs'][0]['device_watch']:
    print(w['rank'], w['series'], len(w['cases']))" "$work/planted.json")
[[ $(tr '\n' ' ' <<<"$watch") == "2 gpu_ecc_errors 1 1 gpu_sm_mhz 2 1 gpu_temp_c 1 2 gpu_throttle 1 3 gpu_pcie_width 2 " ]] &&
  pass "JSON device_watch: ranks 1, 2 and 3 with their series and cases" || fail "JSON device_watch: $watch"
grep -q "device warnings" "$work/planted.txt" && ! grep -q "device warning" "$work/clean.txt" &&
  pass "the headline counts device warnings, the clean one none" || fail "headline counts"
! grep -q "device watch gpu_" "$work/clean.txt" && pass "4 ranks with readings: every clock compared" ||
  fail "clock comparison not judged: $(grep 'device watch gpu_' "$work/clean.txt")"
# With readings on 2 ranks only, clocks cannot be compared: said (not judged), and nothing named
# for them; rank 1's planted clock is not named either (no majority to hold it against).
/usr/bin/python3 "$plant" "$work/run.h5" "$work/two.h5" --clock 1:0.85 --no-readings 2,3 ||
  fail "planting (two ranks) failed"
"$report" "$work/two.h5" --no-color >"$work/two.txt" 2>&1
grep -qE "^  not judged +two: device watch gpu_sm_mhz \(SM clock unlike its peers'\): not compared in 2 cases: fewer than 3 ranks had readings" "$work/two.txt" &&
  ! grep -q ": device watch: " "$work/two.txt" &&
  pass "2 ranks with readings: clocks not compared, said so, nothing named" ||
  { fail "two ranks"; grep "device watch" "$work/two.txt"; }

# changed NAME PYTHON [REPORT FLAGS...]: planted.h5 copied to NAME.h5, PYTHON run on it (h5py file
# `f`, open for writing), and the report's output in NAME.txt; sets rc to the report's exit code.
changed() {
  local name=$1 edit=$2
  shift 2
  cp "$work/planted.h5" "$work/$name.h5"
  /usr/bin/python3 -c "import h5py, sys
with h5py.File(sys.argv[1], 'r+') as f:
$edit" "$work/$name.h5"
  "$report" "$work/$name.h5" "$@" >"$work/$name.txt" 2>&1
  rc=$?
}

# An unknown rule is refused, naming the attribute and the rules it knows (exit 2), not guessed.
changed unknown-rule "    f['cases/000000/points/0000/series/gpu_throttle'].attrs['watch'] = 'sometimes'"
[[ $rc -eq 2 ]] && grep -q "series 'gpu_throttle': attribute 'watch' is 'sometimes', not one of none, zero, peers, reference" "$work/unknown-rule.txt" &&
  pass "an unknown watch rule is refused (exit 2), with the rules known" ||
  { fail "unknown rule: exit $rc"; cat "$work/unknown-rule.txt"; }

# A GPU whose driver gave no slowdown temperature: its temperature is not judged (no finding),
# the other findings stand, and the report reads the file (exit 0).
changed no-threshold "    for case in f['cases'].values():
        for point in case['points'].values():
            del point['series/gpu_slowdown_temp_c']" --no-color --slow-nodes warn
[[ $rc -eq 0 ]] && ! grep -q "slowdown temperature" "$work/no-threshold.txt" &&
  [[ $(grep -c ': device watch: ' "$work/no-threshold.txt") -eq 4 ]] &&
  pass "no slowdown temperature from the driver: the temperature unjudged, the 4 other findings kept" ||
  { fail "no slowdown temperature: exit $rc"; grep "device watch" "$work/no-threshold.txt"; }

# A margin that names no series for its limit is refused: nothing to hold it against.
changed no-limit "    f['cases/000000/points/0000/series/gpu_temp_c'].attrs['watch_reference'] = ''"
[[ $rc -eq 2 ]] && grep -q "series 'gpu_temp_c': rule margin names no series in 'watch_reference'" "$work/no-limit.txt" &&
  pass "a margin without its limit's series is refused (exit 2)" ||
  { fail "margin without a limit: exit $rc"; cat "$work/no-limit.txt"; }
finish
