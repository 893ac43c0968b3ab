#!/usr/bin/env bash
# A soak repeats the campaign in rounds until its duration is spent (docs/guide-burn-in.md):
#  - a clean soak: several rounds, each round's cases in campaign order with repetition = round
#    and index = round x cases-per-round + place, start_time and duration_s on every case, the
#    last round begun within the duration, soak_s on the file, the schema check passes;
#  - kill -9 of mpirun mid-soak, then --resume: every case finished before the kill is still
#    in the file with its figures unchanged, the soak continues (the time the file's cases ran
#    counts), the file ends complete with more rounds than at the kill.
# soak_rounds_resume_test.sh PREFLIGHT WORKDIR CHECKER...
set -uo pipefail
bin=$1 work=$2; shift 2
check=("$@")
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
config=$work/soak.yaml
# Two cases a round (two matmul benchmarks), each some tens of milliseconds (rounds of a few tenths
# of a second, dozens in the soak), so that a kill falls between rounds and within one. Precision
# 0: each case ends at its budget; with the adaptive default, a loaded CI host once stretched
# round 0 over the whole 6 s (its first case alone ran 3 s), so no round 1 began to be killed in.
cat >"$config" <<'YAML'
campaign:
  name: soak-test
  ranks_per_node: 1
soak:
  duration: 6s
benchmarks:
  - name: gemm64
    family: matmul
    backend: openblas
    sizes: 64
    timing: {warmup: 1, min_iters: 5, max_iters: 4000, budget: 30ms, batch_blocks: 1, precision: 0}
  - name: gemm96
    family: matmul
    backend: openblas
    sizes: 96
    timing: {warmup: 1, min_iters: 5, max_iters: 4000, budget: 30ms, batch_blocks: 1, precision: 0}
YAML
per_round=2

# rounds_ok FILE SOAK_S: every case's repetition and index agree with its place, and each has
# its time; prints "R rounds, C cases, soaked S s".
rounds_ok() {
  /usr/bin/python3 - "$1" "$per_round" "$2" <<'PY'
import h5py, sys
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
f = h5py.File(sys.argv[1], "r")
per_round, soak_s = int(sys.argv[2]), float(sys.argv[3])
problems = []
if abs(float(f.attrs.get("soak_s", 0)) - soak_s) > 1e-9:
    problems.append(f"soak_s {f.attrs.get('soak_s')} != {soak_s}")
names, soaked = {}, 0.0
cases = sorted(f["cases"])
for k in cases:
    c = f["cases"][k]
    index, rep = int(c.attrs["index"]), int(c.attrs["repetition"])
    if rep != index // per_round:
        problems.append(f"case {index}: repetition {rep}, expected {index // per_round}")
    name = text(c.attrs["name"])
    if names.setdefault(index % per_round, name) != name:
        problems.append(f"case {index}: {name}, round place {index % per_round} is {names[index % per_round]}")
    if not text(c.attrs["start_time"]).endswith("Z") or not float(c.attrs["duration_s"]) > 0:
        problems.append(f"case {index}: no start_time/duration_s")
    soaked += float(c.attrs["duration_s"])
if [int(f["cases"][k].attrs["index"]) for k in cases] != list(range(len(cases))):
    problems.append("case indices are not 0..n-1")
rounds = len({int(f["cases"][k].attrs["repetition"]) for k in cases})
print(f"{rounds} rounds, {len(cases)} cases, soaked {soaked:.1f} s" + ("; " + "; ".join(problems[:3]) if problems else ""))
sys.exit(1 if problems else 0)
PY
}

# figures FILE: index, start time and the sum of each finished case's per-rank times, one case a line.
figures() {
  /usr/bin/python3 - "$1" <<'PY'
import h5py, sys, numpy
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
f = h5py.File(sys.argv[1], "r")
for k in sorted(f["cases"]):
    c = f["cases"][k]
    if text(c.attrs.get("status", b"")) not in ("ok", "failed"):
        continue
    # A summary point's (the default) figures, or a full one's samples.
    s = sum(float(numpy.nansum(c["points"][p]["rank_time_median" if "rank_time_median" in c["points"][p]
                                               else "samples"][:])) for p in c["points"])
    print(int(c.attrs["index"]), text(c.attrs["start_time"]), repr(s))
PY
}

# A clean soak.
out=$work/clean.h5
mpirun -np 2 "$bin" run "$config" -o "$out" >"$work/clean.log" 2>&1
rc=$?
[[ $rc -eq 0 ]] && pass "clean soak: exit 0" || { fail "clean soak: exit $rc"; tail -5 "$work/clean.log"; }
got=$(rounds_ok "$out" 6) && pass "clean soak: $got" || fail "clean soak: $got"
rounds=$(h5 "$out" 'print(len({int(c.attrs["repetition"]) for c in f["cases"].values()}))')
at_least "$rounds" 2 && pass "clean soak: $rounds rounds in 6 s" || fail "clean soak: '$rounds' rounds"
# A round starts only while the time soaked (the cases' duration_s, summed) is within the
# duration; the last may end past it, by as much as a round takes on a loaded machine.
before_last=$(h5 "$out" 'last = max(int(c.attrs["repetition"]) for c in f["cases"].values())
print(sum(float(c.attrs["duration_s"]) for c in f["cases"].values() if int(c.attrs["repetition"]) < last))')
at_most "$before_last" 6 && pass "clean soak: its last round began $before_last s into the 6 s" ||
  fail "clean soak: its last round began '$before_last' s into it, past the 6 s duration"
grep -q '^\[soak round [0-9]* · [0-9:]* of 0:06 soaked' "$work/clean.log" &&
  pass "progress shows the round and the time soaked" || fail "no soak progress line"
grep -q 'worst node so far: vm/v[01] ' "$work/clean.log" && pass "progress names the worst node so far" ||
  fail "no worst node in the progress lines"
"${check[@]}" --status complete "$out" >/dev/null && pass "clean soak passes the schema check" ||
  fail "clean soak fails the schema check"

# kill -9 of mpirun in the middle, then --resume.
out=$work/killed.h5
mpirun -np 2 "$bin" run "$config" -o "$out" >"$work/killed.log" 2>&1 &
launcher=$!
for _ in $(seq 1 3000); do  # up to 60 s on a slow machine
  grep -q '^\[soak round 1 ' "$work/killed.log" 2>/dev/null && break
  kill -0 "$launcher" 2>/dev/null || break
  sleep 0.02
done
grep -q '^\[soak round 1 ' "$work/killed.log" ||
  fail "round 1 never began before the kill: $(grep '^\[soak round' "$work/killed.log" | tail -1)"
sleep 0.05  # into round 1
kill -9 "$launcher"
wait "$launcher" 2>/dev/null
for _ in $(seq 1 100); do pgrep -f "preflight run $config" >/dev/null || break; sleep 0.1; done
pkill -9 -f "preflight run $config" 2>/dev/null
status=$(h5 "$out" 'print(text(f.attrs["status"]))' 2>/dev/null)
[[ $status == incomplete ]] && pass "killed soak: file opens, status incomplete" ||
  fail "killed soak: status '$status'"
figures "$out" >"$work/before.txt"
n_before=$(wc -l <"$work/before.txt")
at_least "$n_before" 2 && pass "killed soak: $n_before finished cases (a round or more)" ||
  fail "killed soak: $n_before finished cases"
mpirun -np 2 "$bin" run "$config" --resume "$out" >"$work/resume.log" 2>&1
rc=$?
[[ $rc -eq 0 ]] && pass "--resume of the soak: exit 0" || { fail "--resume of the soak: exit $rc"; tail -5 "$work/resume.log"; }
figures "$out" >"$work/after.txt"
if head -n "$n_before" "$work/after.txt" | cmp -s - "$work/before.txt"; then
  pass "every case finished before the kill is intact after the resume (index, start, samples)"
else
  fail "cases finished before the kill changed or were lost"
  diff <(head -n "$n_before" "$work/after.txt") "$work/before.txt" | head -5
fi
got=$(rounds_ok "$out" 6) && pass "resumed soak: $got" || fail "resumed soak: $got"
n_after=$(wc -l <"$work/after.txt")
[[ $n_after -gt $n_before ]] && pass "the soak went on after the resume ($n_before -> $n_after cases)" ||
  fail "no rounds after the resume ($n_before -> $n_after)"
status=$(h5 "$out" 'print(text(f.attrs["status"]))')
[[ $status == complete ]] && pass "resumed soak: complete" || fail "resumed soak: status $status"
"${check[@]}" --status complete "$out" >/dev/null && pass "resumed soak passes the schema check" ||
  fail "resumed soak fails the schema check"
finish
