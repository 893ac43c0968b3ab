#!/usr/bin/env bash
# kill -9 of a rank, of rank 0, or of mpirun in the middle of a campaign: the file must open,
# hold the cases finished before the kill, and say the run is incomplete. --resume then
# completes the campaign into the same file, which passes the schema check.
# The campaign is the quickstart's, its 41 cases made small with --set on every run (sizes to
# 2 KiB, 10 iterations, 1 MiB per rank): what is tested is where the kill falls between cases,
# not how long they take. It runs from a private copy of the config in WORKDIR, so the pids it
# looks for and kills are this test's, whatever else runs beside it.
# kill_resume_test.sh PREFLIGHT WORKDIR CONFIG CHECKER...
set -uo pipefail
bin=$1 work=$2 quickstart=$3; shift 3
check=("$@")
source "$(dirname "$0")/common.sh"
rm -rf "$work" && mkdir -p "$work/data"
config=$work/quick.yaml
cp "$quickstart" "$config" || { fail "cannot copy $quickstart"; finish; exit 1; }
total=41  # configs/quick.yaml: 7 collectives x (world, intra, inter, ladder 1 node, ladder 2 nodes), 6 storage
small=(--set collectives.sizes=8:2K:x16 --set timing.budget=2ms --set timing.max_iters=10
       --set storage.size=1M --set "storage.dir=$work/data")

rank_pid() {  # the pid of world rank $1 of preflight
  local pid
  for pid in $(pgrep -f "preflight run $config"); do
    [[ $(tr '\0' '\n' </proc/$pid/environ 2>/dev/null | grep '^OMPI_COMM_WORLD_RANK=') == "OMPI_COMM_WORLD_RANK=$1" ]] && { echo "$pid"; return; }
  done
}

cases_in() { h5 "$1" 'print(len(f["cases"]))' 2>/dev/null || echo unreadable; }

# The cases a log shows finished: a case's heading ("[case K/N ...] NAME · ...") is printed
# after every sink, the file's included, has written and flushed case K-1, so every case before
# the last heading is finished. Prints one name a line, in campaign order.
finished_cases() {
  sed -n 's/^\[case \([0-9]*\)\/[0-9]* · [^]]*\] \(.*\) · [0-9]* groups\{0,1\} · .*/\1 \2/p' "$1" |
    sort -n | sed '$d' | cut -d' ' -f2-
}

# holds_finished FILE NAMES: the file's first cases are the named ones, in order, none lost.
# Prints what it found.
holds_finished() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import h5py, sys
names = [line.rstrip("\n") for line in open(sys.argv[2]) if line.strip()]
try:
    f = h5py.File(sys.argv[1], "r")
    held = [f["cases"][k].attrs["name"] for k in sorted(f["cases"])]
except Exception as e:
    print(f"unreadable ({e})"); sys.exit(1)
held = [h.decode() if isinstance(h, bytes) else str(h) for h in held]
lost = [n for k, n in enumerate(names) if k >= len(held) or held[k] != n]
print(f"{len(held)} cases, the {len(names)} finished before the kill" + (f"; lost or out of place: {lost}" if lost else ""))
sys.exit(1 if lost or not names else 0)
PY
}

for victim in rank1 rank0 mpirun; do
  out=$work/$victim.h5
  mpirun -np 4 "$bin" run "$config" "${small[@]}" -o "$out" >"$work/$victim.log" 2>&1 &
  launcher=$!
  # Kill once a few cases are done, well before the end. (The file cannot be read meanwhile:
  # HDF5 locks a file open for writing.)
  for _ in $(seq 1 3000); do  # up to 60 s on a slow machine
    grep -q '^\[case 6/' "$work/$victim.log" 2>/dev/null && break
    sleep 0.02
  done
  # What had finished when the kill came (the log can only have grown since this copy).
  cp "$work/$victim.log" "$work/$victim.at-kill.log"
  case $victim in
    rank1) kill -9 "$(rank_pid 1)" ;;
    rank0) kill -9 "$(rank_pid 0)" ;;
    mpirun) kill -9 "$launcher" ;;
  esac
  wait "$launcher" 2>/dev/null
  # Ranks orphaned by a killed mpirun end on their own; give them a moment, then make sure.
  for _ in $(seq 1 100); do pgrep -f "preflight run $config" >/dev/null || break; sleep 0.1; done
  pkill -9 -f "preflight run $config" 2>/dev/null
  n=$(cases_in "$out")
  status=$(h5 "$out" 'print(text(f.attrs["status"]))' 2>/dev/null)
  if [[ $n =~ ^[0-9]+$ && $n -lt $total && $status == incomplete ]]; then
    pass "kill -9 $victim: file opens, $n of $total cases, status incomplete"
  else
    fail "kill -9 $victim: file has '$n' cases of $total, status '$status'"
    tail -5 "$work/$victim.log"
  fi
  finished_cases "$work/$victim.at-kill.log" >"$work/$victim.finished"
  found=$(holds_finished "$out" "$work/$victim.finished") &&
    pass "kill -9 $victim: every case finished before the kill is in the file: $found" ||
    fail "kill -9 $victim: finished cases lost: $found"
  "${check[@]}" --status incomplete "$out" >/dev/null && pass "kill -9 $victim: finished cases pass the schema check" ||
    fail "kill -9 $victim: schema check"
done

# The check above can fail: the same file less the last two cases it finished (deleted with
# h5py, as a writer that lost them would leave it) is caught.
cp "$work/mpirun.h5" "$work/lost-two.h5"
/usr/bin/python3 - "$work/lost-two.h5" "$(wc -l <"$work/mpirun.finished")" <<'PY'
import h5py, sys
f = h5py.File(sys.argv[1], "r+")
for name in sorted(f["cases"])[: int(sys.argv[2])][-2:]:
    del f["cases"][name]
PY
found=$(holds_finished "$work/lost-two.h5" "$work/mpirun.finished") &&
  fail "two lost cases not caught: $found" || pass "two lost cases are caught: $found"

# Resume the file left by the killed rank: the same campaign completes into the same file.
out=$work/rank1.h5
before=$(cases_in "$out")
mpirun -np 4 "$bin" run "$config" "${small[@]}" --resume "$out" >"$work/resume.log" 2>&1
rc=$?
[[ $rc -eq 0 ]] && pass "--resume exit code 0" || { fail "--resume exit code $rc"; tail -5 "$work/resume.log"; }
grep -q "$before already done" "$work/resume.log" && pass "--resume skipped the $before finished cases" ||
  fail "--resume did not report skipping $before cases"
got=$(h5 "$out" 'import json; print(len(f["cases"]), text(f.attrs["status"]), len(json.loads(f.attrs["resumes"])))')
[[ $got == "$total complete 1" ]] && pass "resumed file: $total cases, complete, one resume recorded" || fail "resumed file: $got"
"${check[@]}" --status complete --min-cases "$total" "$out" && pass "resumed file passes the schema check" ||
  fail "resumed file fails the schema check"
# A different campaign, or another job layout, must not be resumed into a file, and trying
# must leave the file exactly as it was.
before=$(sha256sum <"$work/rank0.h5")
mpirun -np 4 "$bin" run "$config" "${small[@]}" --set comm.sizes=8 --resume "$work/rank0.h5" >"$work/wrong.log" 2>&1
rc=$?
[[ $rc -eq 2 ]] && grep -q "different campaign (.*sizes.*-> .*8" "$work/wrong.log" &&
  pass "--resume with another config: exit 2, naming what differs: $(grep -o 'different campaign ([^;)]*' "$work/wrong.log" | head -1)" ||
  { fail "--resume with another config: exit $rc"; tail -3 "$work/wrong.log"; }
mpirun -np 2 "$bin" run "$config" "${small[@]}" --resume "$work/rank0.h5" >"$work/layout.log" 2>&1
rc=$?
[[ $rc -eq 2 ]] && grep -q "written by 4 ranks on 2 nodes, this job has 2" "$work/layout.log" &&
  pass "--resume with 2 ranks instead of 4: exit 2" || { fail "--resume with another layout: exit $rc"; tail -3 "$work/layout.log"; }
[[ $(sha256sum <"$work/rank0.h5") == "$before" ]] && pass "refused resumes left the file unchanged" ||
  fail "a refused resume changed the file"
# The time budget bounds one job, not what the file holds: a larger one resumes the campaign.
mpirun -np 4 "$bin" run "$config" "${small[@]}" --set campaign.time_budget=2h --resume "$work/rank0.h5" \
  >"$work/budget.log" 2>&1
rc=$?
got=$(h5 "$work/rank0.h5" 'print(len(f["cases"]), text(f.attrs["status"]))')
[[ $rc -eq 0 && $got == "$total complete" ]] && pass "--resume with another time_budget: completed ($got)" ||
  { fail "--resume with another time_budget: exit $rc, $got"; tail -3 "$work/budget.log"; }
finish
