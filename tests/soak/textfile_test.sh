#!/usr/bin/env bash
# A soak's Prometheus textfile (bench/harness/sinks/textfile_sink.hpp): a 4 s soak of a tiny
# OpenBLAS matmul on 2 ranks as 2 virtual nodes, soak.textfile set. While it runs the file is
# already there, saying the soak is running; at the end it is well formed (exposition_check.py
# always, promtool check metrics where promtool is installed), names only the metrics
# textfile_metrics.hpp declares, carries the campaign label on every sample, agrees with the
# results file (round = its last repetition, cases = its cases), gives each node one time ratio
# per case and a worst node, a headline per case and point, and leaves no PATH.tmp behind. A
# textfile in a missing directory under mpirun: exit 2 on every rank, one message naming
# soak.textfile, nothing run, no results file.
# textfile_test.sh PREFLIGHT WORKDIR
set -uo pipefail
bin=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../faults/common.sh"
names=$here/../../bench/harness/sinks/textfile_metrics.hpp
rm -rf "$work" && mkdir -p "$work/textfile"
prom=$work/textfile/preflight.prom
results=$work/soak.h5

mpirun -np 2 "$bin" run "$here/tiny_matmul.yaml" --soak 4s --set campaign.ranks_per_node=1 \
  --set "soak.textfile=$prom" -o "$results" >"$work/soak.log" 2>&1 &
job=$!
# A copy of the file while the soak still runs: rewritten as cases finish, not only at the end.
while kill -0 $job 2>/dev/null; do
  if [[ -s $prom && ! -s $work/midway.prom ]] && cp "$prom" "$work/copy.prom" 2>/dev/null &&
    grep -q 'status="running"' "$work/copy.prom"; then
    mv "$work/copy.prom" "$work/midway.prom"
  fi
  sleep 0.05
done
wait $job
rc=$?
[[ $rc -eq 0 ]] && pass "the soak exits 0" || { fail "the soak: exit $rc"; tail -20 "$work/soak.log"; }
[[ -s $prom ]] && pass "the textfile is written" || { fail "no textfile at $prom"; finish; exit; }
expect "the file was there while the soak ran, saying so" \
  grep -qE '^preflight_soak_finished\{campaign="soak-textfile-test",status="running"\} 0$' "$work/midway.prom"
round_in() { sed -n 's/^preflight_soak_round{[^}]*} //p' "$1"; }
first=$(round_in "$work/midway.prom") last=$(round_in "$prom")
is_number "$first" && is_number "$last" && ((first < last)) &&
  pass "rewritten round by round (round $first while running, $last at the end)" ||
  fail "round while running '$first', at the end '$last'"
leftover=$(find "$work/textfile" -name '*.tmp')
[[ -z $leftover ]] && pass "no .tmp left behind" || fail "left behind: $leftover"

if /usr/bin/python3 "$here/exposition_check.py" "$prom" --names "$names" >"$work/check.log" 2>&1; then
  pass "well formed, every metric declared in textfile_metrics.hpp ($(cat "$work/check.log"))"
else
  fail "exposition_check.py: $(cat "$work/check.log")"
fi
# The parser is no rubber stamp: damaged copies (a raw quote in a label value, a second TYPE, a
# value that is no number, a sample twice) are refused.
damaged=0
for edit in 's/case="\([^"]*\)"/case="a"b"/' '0,/^# TYPE/{s/^\(# TYPE .*\)$/\1\n\1/}' \
  's/^\(preflight_soak_duration_seconds{[^}]*}\) .*/\1 four/' '$p'; do
  sed "$edit" "$prom" >"$work/damaged.prom"
  /usr/bin/python3 "$here/exposition_check.py" "$work/damaged.prom" >/dev/null 2>&1 || damaged=$((damaged + 1))
done
[[ $damaged -eq 4 ]] && pass "exposition_check.py refuses 4 damaged copies" ||
  fail "exposition_check.py refused $damaged of 4 damaged copies"
if command -v promtool >/dev/null; then
  if promtool check metrics <"$prom" >"$work/promtool.log" 2>&1; then
    pass "promtool check metrics accepts it"
  else
    fail "promtool check metrics: $(head -5 "$work/promtool.log")"
  fi
else
  echo "note: promtool not found (Debian package prometheus); the format was checked by exposition_check.py above"
fi

# The content, read by the same parser, against the results file.
/usr/bin/python3 - "$prom" "$results" "$here" >"$work/content.log" 2>&1 <<'EOF'
import sys
from collections import defaultdict
import h5py
sys.path.insert(0, sys.argv[3])
from exposition_check import parse
samples = parse(open(sys.argv[1]).read())
f = h5py.File(sys.argv[2], "r")
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
cases = list(f["cases"].values())
one = lambda name: [v for n, l, v in samples if n == name]
bad = []
if any(l.get("campaign") != "soak-textfile-test" for n, l, v in samples):
    bad.append("a sample without the campaign label")
last_round = max(int(c.attrs["repetition"]) for c in cases)
if one("preflight_soak_round") != [last_round]:
    bad.append(f"round {one('preflight_soak_round')}, the results' last repetition {last_round}")
if not last_round >= 1:
    bad.append(f"only round {last_round}: a 4 s soak of this case runs several")
if one("preflight_soak_cases_total") != [len(cases)]:
    bad.append(f"cases_total {one('preflight_soak_cases_total')}, the file holds {len(cases)}")
if one("preflight_soak_failed_cases_total") != [0]:
    bad.append("failed cases")
if one("preflight_soak_duration_seconds") != [4]:
    bad.append(f"duration {one('preflight_soak_duration_seconds')}")
soaked = one("preflight_soak_seconds")
if len(soaked) != 1 or not 1 <= soaked[0] <= 60:
    bad.append(f"soaked {soaked}")
finished = [(l["status"], v) for n, l, v in samples if n == "preflight_soak_finished"]
if finished != [("complete", 1)]:
    bad.append(f"finished {finished}")
names = {n for n, l, v in samples}
case_names = {text(c.attrs["name"]) for c in cases}
ratios = defaultdict(set)
for n, l, v in samples:
    if n == "preflight_soak_node_time_ratio":
        ratios[l["case"]].add(l["node"])
        if not (v > 0 and l["host"]):
            bad.append(f"ratio {l} {v}")
if set(ratios) != case_names or any(len(nodes) != 2 for nodes in ratios.values()):
    bad.append(f"node ratios {dict(ratios)}: expected 2 nodes for each of {case_names}")
worst = [(l, v) for n, l, v in samples if n == "preflight_soak_worst_node_ratio"]
top = max(v for n, l, v in samples if n == "preflight_soak_node_time_ratio")
if len(worst) != 1 or worst[0][1] != top:
    bad.append(f"worst node {worst}, highest ratio {top}")
heads = [(l["case"], l["point"], l["unit"], v) for n, l, v in samples if n == "preflight_soak_headline"]
if len({h[1] for h in heads}) != 2 or not all(h[3] > 0 and h[2] for h in heads):
    bad.append(f"headlines {heads}")
times = [v for n, l, v in samples if n == "preflight_soak_time_median_seconds"]
if len(times) != 2 or not all(t > 0 for t in times):
    bad.append(f"median times {times}")
if one("preflight_soak_wrong_elements") != [0]:
    bad.append(f"wrong {one('preflight_soak_wrong_elements')}")
print("\n".join(bad) if bad else f"PASS: round {last_round}, {len(cases)} cases, worst node {worst[0][0]['node']} {top:.3f}")
EOF
if grep -q '^PASS' "$work/content.log"; then
  pass "the content agrees with the results file: $(cat "$work/content.log")"
else
  fail "content: $(cat "$work/content.log")"
fi

# A textfile rank 0 cannot write: exit 2 before anything runs, one message naming the key.
mpirun -np 2 "$bin" run "$here/tiny_matmul.yaml" --soak 4s --set campaign.ranks_per_node=1 \
  --set soak.textfile=/nonexistent/dir/x.prom -o "$work/bad.h5" >"$work/bad.log" 2>&1
rc=$?
[[ $rc -eq 2 ]] && pass "a missing directory exits 2" || fail "a missing directory: exit $rc"
[[ $(grep -c "soak.textfile: directory '/nonexistent/dir' does not exist" "$work/bad.log") -eq 1 ]] &&
  pass "one message names soak.textfile and the directory" || fail "message: $(head -3 "$work/bad.log")"
[[ ! -e $work/bad.h5 ]] && ! grep -q '^\[case' "$work/bad.log" && pass "nothing run, nothing written" ||
  fail "it ran or wrote results"
finish
