#!/usr/bin/env bash
# scripts/slurm/drain-suspects.sh and scripts/k8s/taint-suspects.sh: the nodes a report JSON
# names slow, or whose device computed wrong results (a device named twice: once), become scontrol / kubectl commands, printed
# and not run; a slow rank is no node suspect; a name that is no host name is refused; a report naming nothing gives no command.
# drain_suspects_test.sh SOURCE_DIR PREFLIGHT_REPORT CLEAN_RESULTS.h5 WORKDIR
set -uo pipefail
src=$1 report=$2 clean=$3 work=$4
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
cat >"$work/named.json" <<'JSON'
{"runs": [{"label": "r1", "outliers": [
  {"kind": "node", "name": "gpu07/v1", "ranks": [2, 3], "ratio": 1.52, "robust_z": 9, "sizes": 6},
  {"kind": "rank", "name": "rank 5", "ranks": [5], "ratio": 1.4, "robust_z": 5, "sizes": 3},
  {"kind": "node", "name": "x;reboot", "ranks": [6], "ratio": 2.0, "robust_z": 9, "sizes": 1}]}],
 "suspects": [{"kind": "host", "hosts": ["pf2"], "action": "drain pf2: slow with every partner", "run": "r1", "finding": 1},
              {"kind": "link", "hosts": ["pf0", "pf3"], "action": "check the cable between pf0 and pf3", "run": "r1", "finding": 2},
              {"kind": "device", "hosts": ["pf5"], "action": "Drain pf5 and check GPU GPU-5f2a", "run": "r1", "finding": 3, "rank": 5, "device": "GPU-5f2a"},
              {"kind": "device", "hosts": ["pf5"], "action": "Drain pf5 and check GPU GPU-5f2a", "run": "r1", "finding": 4, "rank": 5, "device": "GPU-5f2a"}]}
JSON
"$src/scripts/slurm/drain-suspects.sh" "$work/named.json" >"$work/drain.out" 2>"$work/drain.err"
expect "drain: the slow node's host, with why" grep -qx 'scontrol update NodeName=gpu07 State=DRAIN Reason="preflight: slow node, 1.52x its peers over 6 sizes (r1)"' "$work/drain.out"
expect "drain: the host the pair sweep isolates" grep -q '^scontrol update NodeName=pf2 State=DRAIN Reason="preflight: drain pf2: slow with every partner (r1)"' "$work/drain.out"
expect "drain: a link suspect drains no host, it is named to check" grep -q 'link pf0 - pf3: check the cable between pf0 and pf3' "$work/drain.err"
# rank 5 is named twice (it computed and received wrong results): its host's reason names it once
expect "drain: the host of a device with wrong results, with its rank and GPU, once" grep -qx 'scontrol update NodeName=pf5 State=DRAIN Reason="preflight: wrong results from rank 5 (GPU GPU-5f2a), check its ECC and Xid errors (r1)"' "$work/drain.out"
[[ $(grep -c '^scontrol' "$work/drain.out") -eq 3 ]] && pass "drain: three commands (no rank, no link, no refused name)" ||
  fail "drain: $(grep -c '^scontrol' "$work/drain.out") commands"
expect "drain: a name that is no host name is refused" grep -q "refused a name that is no host name: 'x;reboot'" "$work/drain.err"
expect "drain: printed only" grep -q 'printed only: run again with --execute' "$work/drain.out"
"$src/scripts/k8s/taint-suspects.sh" "$work/named.json" >"$work/taint.out" 2>/dev/null
expect "taint: cordon" grep -q '^kubectl cordon gpu07 ' "$work/taint.out"
expect "taint: NoSchedule taint" grep -q '^kubectl taint nodes gpu07 preflight.io/suspect=slow:NoSchedule' "$work/taint.out"
expect "taint: a device with wrong results is tainted for that" grep -q '^kubectl taint nodes pf5 preflight.io/suspect=wrong-results:NoSchedule' "$work/taint.out"
expect "taint: cordon the device's host" grep -q '^kubectl cordon pf5 ' "$work/taint.out"
# A soak's suspects act by their remediation: isolate drains (its finding's title the reason),
# monitor and reboot are printed on stderr, never drained.
cat >"$work/soak.json" <<'JSON'
{"runs": [{"label": "s1", "outliers": []}],
 "findings": [{"title": "soak: node sk2: slow node, intermittent in rounds 2, 5, 9: isolate"},
              {"title": "soak: node sk3: slow node, intermittent in rounds 4, 8: monitor"},
              {"title": "soak: device of rank 1 on sk1: SM clock, step from round 3: reboot"}],
 "suspects": [{"kind": "host", "hosts": ["sk2"], "action": "scontrol update NodeName=sk2 State=DRAIN", "run": "s1", "finding": 1, "remediation": "isolate", "pattern": "intermittent"},
              {"kind": "host", "hosts": ["sk3"], "action": "Monitor it", "run": "s1", "finding": 2, "remediation": "monitor", "pattern": "intermittent"},
              {"kind": "device", "hosts": ["sk1"], "action": "scontrol reboot ASAP nextstate=RESUME sk1", "run": "s1", "finding": 3, "rank": 1, "device": "GPU-1", "remediation": "reboot", "pattern": "step"}]}
JSON
"$src/scripts/slurm/drain-suspects.sh" "$work/soak.json" >"$work/soak.out" 2>"$work/soak.err"
expect "soak: isolate drains its host with its finding's title" grep -qx 'scontrol update NodeName=sk2 State=DRAIN Reason="preflight: soak: node sk2: slow node, intermittent in rounds 2, 5, 9: isolate (s1)"' "$work/soak.out"
[[ $(grep -c '^scontrol' "$work/soak.out") -eq 1 ]] && pass "soak: monitor and reboot drain nothing" ||
  fail "soak: $(grep -c '^scontrol' "$work/soak.out") commands: $(cat "$work/soak.out")"
expect "soak: monitor printed on stderr" grep -q 'monitor host sk3 (intermittent).*not drained' "$work/soak.err"
expect "soak: reboot printed with its command" grep -q 'reboot device sk1 (step): scontrol reboot ASAP nextstate=RESUME sk1' "$work/soak.err"
"$report" "$clean" --json "$work/clean.json" >/dev/null 2>&1
"$src/scripts/slurm/drain-suspects.sh" "$work/clean.json" >"$work/clean.out" 2>&1
rc=$?
[[ $rc -eq 0 ]] && grep -q 'no suspects' "$work/clean.out" && ! grep -q '^scontrol' "$work/clean.out" &&
  pass "a real report naming nothing: no command" || fail "clean report: exit $rc: $(cat "$work/clean.out")"
"$src/scripts/slurm/drain-suspects.sh" "$work/clean.json" --now >/dev/null 2>&1
[[ $? -eq 2 ]] && pass "an unknown option: exit 2" || fail "an unknown option was accepted"
finish
