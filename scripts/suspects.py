#!/usr/bin/env python3
"""The hosts a preflight-report JSON verdict names as suspects, one "HOST<TAB>REASON<TAB>WHY" line
each (WHY: `slow` or `wrong-results`, the value of the taint scripts/k8s/taint-suspects.sh sets),
for scripts that act on them through the scheduler (scripts/slurm/drain-suspects.sh,
scripts/k8s/taint-suspects.sh). A host suspect is a node the report names slow against its peers
(runs[].outliers of kind node; a virtual node's name, host/vN, is its host) or a host the pair
sweep isolates (suspects[] of kind host: slow with every partner). A device suspect (suspects[]
of kind device: a rank's GPU, or its CPU when `device` is empty, computed or received wrong
results in the correctness checks) drains its host, the reason naming the rank and the GPU; it
takes precedence over a slow-node reason for the same host; a rank named more than once (it
computed and received wrong results) is named once. A link suspect (suspects[] of
kind link: one pair slow while both hosts are fine with others) is no reason to drain either
host: it is printed on stderr as the cable or port to check; nor is a fabric suspect (suspects[]
of kind fabric: every pair below the reference envelope's floor), which names what every node
shares: printed on stderr. A name that is not a plain host name is refused on stderr, never
passed on: it would reach a shell.

A soak's suspect (one with `remediation` and `pattern`, docs/report.md "Soaks") is acted on by its
remediation: isolate drains its host (the reason is its finding's title); monitor is printed on
stderr and not drained; reboot and reset are printed on stderr with their commands (the
suspect's action), for an operator to run: a reboot or a GPU reset is not a drain.

suspects.py REPORT.json"""
import json
import re
import sys

HOST = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$")


def soak_suspect(s, hosts, remediation, findings, seen):
    """A soak's suspect: isolate drains its host(s); the others are printed, not drained."""
    number = s.get("finding", 0)
    title = findings[number - 1].get("title", "") if 0 < number <= len(findings) else ""
    what = "{} {} ({})".format(s.get("kind", ""), " - ".join(hosts), s.get("pattern", ""))
    if remediation == "isolate" and s.get("kind") in ("host", "device") and len(hosts) == 1:
        seen.setdefault(hosts[0], ("preflight: {} ({})".format(title or what, s.get("run", "")),
                                   "slow"))
    elif remediation == "monitor":
        print("suspects: monitor {}: {} (not drained)".format(what, title), file=sys.stderr)
    else:
        print("suspects: {} {}: {} (not drained: run it yourself)".format(
            remediation, what, s.get("action", "")), file=sys.stderr)


def suspects(report):
    seen = {}
    devices, runs = {}, {}  # host -> its devices named, the run that named them first
    for run in report.get("runs", []):
        for o in run.get("outliers", []):
            if o.get("kind") != "node":
                continue
            host = str(o.get("name", "")).split("/")[0]
            why = "preflight: slow node, {:.2f}x its peers over {} sizes ({})".format(
                float(o.get("ratio", 0)), o.get("sizes", 0), run.get("label", ""))
            seen.setdefault(host, (why, "slow"))
    findings = report.get("findings", [])
    for s in report.get("suspects", []):
        hosts = [str(h) for h in s.get("hosts", [])]
        remediation = s.get("remediation")
        if remediation is not None:
            soak_suspect(s, hosts, remediation, findings, seen)
        elif s.get("kind") == "host" and len(hosts) == 1:
            seen.setdefault(hosts[0], ("preflight: {} ({})".format(s.get("action", "node fault"),
                                                                  s.get("run", "")), "slow"))
        elif s.get("kind") == "device" and len(hosts) == 1:
            device = str(s.get("device", "")) or "CPU"
            entry = "rank {} ({})".format(s.get("rank", "?"),
                                          device if device == "CPU" else "GPU " + device)
            if entry not in devices.setdefault(hosts[0], []):  # computed and received: once
                devices[hosts[0]].append(entry)
            runs.setdefault(hosts[0], str(s.get("run", "")))
        elif s.get("kind") == "link":
            print("suspects: link {}: {} (no host drained for it)".format(
                " - ".join(hosts), s.get("action", "")), file=sys.stderr)
        elif s.get("kind") == "fabric":
            print("suspects: the fabric of {} nodes: {} (no host drained for it)".format(
                len(hosts), s.get("action", "")), file=sys.stderr)
    for host, named in devices.items():
        seen[host] = ("preflight: wrong results from {}, check {} ECC and Xid errors ({})".format(
            ", ".join(named), "its" if len(named) == 1 else "their", runs[host]), "wrong-results")
    return seen


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        report = json.load(open(sys.argv[1]))
    except (OSError, ValueError) as e:
        print(f"suspects: {sys.argv[1]}: not a preflight-report JSON verdict ({e})", file=sys.stderr)
        return 2
    for host, (why, taint) in suspects(report).items():
        if not HOST.match(host):
            print(f"suspects: refused a name that is no host name: {host!r}", file=sys.stderr)
            continue
        print(f"{host}\t{re.sub(r'[^A-Za-z0-9 .,:()_/-]', '_', why)}\t{taint}")
    return 0


sys.exit(main())
