#!/usr/bin/env bash
# A soak's diagnosis both ways on 4 emulated hosts (pf1..pf4, one rank each;
# scripts/emulated-cluster.sh), the node-pair sweep in rounds (scripts/bench/soak-trials.yaml):
#   slowed: TRIALS soaks of DURATION with pf3's link slowed (tc tbf RATE, both directions) for
#           SLOW_FOR in the middle; a trial is right when the report's soak section names pf3
#           alone, as intermittent, in rounds that overlap the slow window only (every round
#           wholly inside it among them), with a remediation, and names no other node or link.
#   clean:  TRIALS soaks of DURATION with nothing slowed; right when the report names nothing at
#           all: no soak suspect, no suspect, no slow node.
# A run that fails, or a report that crashes or writes no verdict, is a wrong trial.
# Needs root. Always removes the emulated hosts, also on failure or Ctrl-C.
#   scripts/bench/soak-trials.sh [-n TRIALS] [-d DURATION] [-s SLOW_FOR] [-r RATE]
#                                [-p slowed|clean|all] [-j] PREFLIGHT REPORT WORKDIR
# DURATION and SLOW_FOR in seconds (defaults 600 and 60), RATE as tc takes it (100mbit).
# -j: run no soak; judge the soaks an earlier run left in WORKDIR again, with REPORT (the soaks
# are the hours; a changed report is judged on the same files). Each soak's slow window is in
# its .window file.
# Prints each trial and, per kind, "K of TRIALS right"; exit 0 when every trial was right.
set -uo pipefail
trials=5 duration=600 slow_for=60 rate=100mbit part=all rejudge=0
while getopts n:d:s:r:p:j o; do
  case $o in
    n) trials=$OPTARG ;;
    d) duration=$OPTARG ;;
    s) slow_for=$OPTARG ;;
    r) rate=$OPTARG ;;
    p) part=$OPTARG ;;
    j) rejudge=1 ;;
    *) sed -n '2,20p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[[ $# -eq 3 ]] || { sed -n '2,20p' "$0"; exit 2; }
[[ $part == slowed || $part == clean || $part == all ]] || { sed -n '2,20p' "$0"; exit 2; }
[[ $duration =~ ^[0-9]+$ && $slow_for =~ ^[0-9]+$ && $slow_for -lt $duration ]] ||
  { echo "soak-trials: -d and -s are whole seconds, -s below -d" >&2; exit 2; }
bin=$(realpath "$1") report=$(realpath "$2") work=$3
here=$(cd "$(dirname "$0")" && pwd)
cluster=$here/../emulated-cluster.sh
py=/usr/bin/python3
mkdir -p "$work"
work=$(realpath "$work")
if [[ $rejudge -eq 0 ]]; then
  # shellcheck source=emulated-hosts.sh
  source "$here/emulated-hosts.sh"
  hold_emulated_hosts soak-trials 5
fi
hosts=pf1:1,pf2:1,pf3:1,pf4:1

# judge KIND OUT.h5 OUT.json [SLOW_START SLOW_END]: "right: ..." or "wrong: ..." for one trial.
judge() {
  "$py" - "$@" <<'PY'
import datetime, json, sys
import h5py

kind, h5_path, json_path = sys.argv[1:4]
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
def stamp(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()

# Each round's span: its first case's start to its last case's end.
f = h5py.File(h5_path, "r")
spans = {}
for c in f["cases"].values():
    r, start = int(c.attrs["repetition"]), stamp(text(c.attrs["start_time"]))
    end = start + float(c.attrs["duration_s"])
    lo, hi = spans.get(r, (start, end))
    spans[r] = (min(lo, start), max(hi, end))
v = json.load(open(json_path))
names = []  # everything the verdict names: soak nodes not ok, suspects, slow nodes
soak_named = {}
for run in v.get("runs", []):
    soak = run.get("soak") or {}
    for n in soak.get("nodes", []):
        if n.get("verdict", "ok") != "ok":
            soak_named[n["host"]] = n
    for o in run.get("outliers", []):
        if o.get("kind") == "node":
            names.append("slow node " + o["name"])
for s in v.get("suspects", []):
    names.append("{} {}".format(s.get("kind"), "-".join(s.get("hosts", []))))
names += ["soak " + h for h in soak_named]
rounds = len(spans)
if kind == "clean":
    print(("wrong: named " + ", ".join(sorted(set(names)))) if names else
          f"right: nothing named over {rounds} rounds")
    sys.exit(0)
slow_start, slow_end = float(sys.argv[4]), float(sys.argv[5])
inside = sorted(r for r, (lo, hi) in spans.items() if lo >= slow_start and hi <= slow_end)
overlap = sorted(r for r, (lo, hi) in spans.items() if lo < slow_end and hi > slow_start)
others = sorted({n for n in names if not n.endswith("pf3") and "pf3-" not in n and "-pf3" not in n})
node = soak_named.get("pf3")
if node is None:
    print(f"wrong: pf3 not named in the soak section (rounds {overlap} overlapped the slow window); named: {sorted(set(names))}")
    sys.exit(0)
pattern = next((p for p in node.get("patterns", []) if p.get("kind") == "intermittent"), None)
if pattern is None:
    print(f"wrong: pf3 named, not as intermittent: {[p.get('kind') for p in node.get('patterns', [])]}")
    sys.exit(0)
named_rounds = sorted(int(r) for r in pattern.get("rounds", []))
problems = []
if others:
    problems.append(f"also named {others}")
if not set(named_rounds) <= set(overlap):
    problems.append(f"rounds {sorted(set(named_rounds) - set(overlap))} are outside the slow window")
if not set(inside) <= set(named_rounds):
    problems.append(f"rounds {sorted(set(inside) - set(named_rounds))} wholly inside the slow window not named")
if node.get("verdict") not in ("monitor", "isolate"):
    problems.append(f"remediation {node.get('verdict')}")
summary = (f"pf3 intermittent in rounds {named_rounds} of {rounds} (slow window overlapped "
           f"{overlap}, wholly held {inside}), remediation {node.get('verdict')}")
print(("wrong: " + summary + "; " + "; ".join(problems)) if problems else "right: " + summary)
PY
}

# trial KIND N: one soak (none with -j) and its report; prints the judgement.
trial() {
  local kind=$1 n=$2 out=$work/$1-$2 slow_start=0 slow_end=0
  if [[ $rejudge -eq 0 ]]; then
    rm -f "$out.h5" "$out.json" "$out.window"
    timeout $((duration + 600)) "$cluster" mpirun "$hosts" "$bin" run "$here/soak-trials.yaml" \
      --set "soak.duration=${duration}s" -o "$out.h5" >"$out.log" 2>&1 9>&- &
    local run=$!
    if [[ $kind == slowed ]]; then
      sleep $(((duration - slow_for) / 2))
      slow_start=$(date +%s.%N)
      "$cluster" slow pf3 "$rate"
      sleep "$slow_for"
      "$cluster" unslow pf3
      slow_end=$(date +%s.%N)
    fi
    echo "$slow_start $slow_end" >"$out.window"
    wait "$run"
    local rc=$?
    if [[ $rc -ne 0 ]]; then echo "wrong: run failed (exit $rc, $out.log)"; return; fi
  else
    [[ -f $out.h5 && -f $out.window ]] || { echo "wrong: no soak $out.h5 (or its .window) to judge"; return; }
    read -r slow_start slow_end <"$out.window"
    rm -f "$out.json"
  fi
  # The verdict is what is judged; a soak's HTML page (a chart per node, every case) takes
  # minutes to write, so a judgement again (-j) writes none.
  local html=(--html "$out.html")
  [[ $rejudge -eq 1 ]] && html=()
  "$report" "$out.h5" --json "$out.json" "${html[@]}" >"$out.report" 2>&1
  [[ -s $out.json ]] || { echo "wrong: report wrote no verdict ($out.report)"; return; }
  judge "$kind" "$out.h5" "$out.json" "$slow_start" "$slow_end"
}

failures=0
count() {
  local kind=$1 right=0 got
  for ((i = 1; i <= trials; i++)); do
    got=$(trial "$kind" "$i")
    echo "  $kind trial $i: $got"
    [[ $got == right:* ]] && right=$((right + 1))
  done
  echo "$kind: $right of $trials right"
  [[ $right -eq $trials ]] || failures=$((failures + 1))
}
if [[ $rejudge -eq 1 ]]; then
  echo "# soak-trials -j: the soaks in $work judged again by $report; $(date -u +%FT%TZ)"
else
  echo "# soak-trials: $trials soaks of ${duration} s each way, pf3 slowed to $rate for ${slow_for} s mid-soak; $(date -u +%FT%TZ)"
fi
[[ $part == slowed || $part == all ]] && count slowed
[[ $part == clean || $part == all ]] && count clean
[[ $failures -eq 0 ]]
