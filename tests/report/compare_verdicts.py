#!/usr/bin/env python3
"""Compare two preflight-report JSON verdicts: same checks (verdicts and values), regressions,
scaling series and fits, same findings by stage and figures. Wording may differ where the report
made it generic: findings are compared by stage and the numbers in their title and evidence,
the not-measured list is not compared (its entries are now the schema's stage labels).

compare_verdicts.py EXPECTED.json ACTUAL.json"""
import json
import math
import re
import sys

REL = 1e-9
problems = []


def close(a, b):
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or math.isclose(a, b, rel_tol=REL, abs_tol=1e-300)
    return a == b


def same(path, a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                problems.append(f"{path}.{k}: only in {'expected' if k in a else 'actual'}")
            else:
                same(f"{path}.{k}", a[k], b[k])
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            problems.append(f"{path}: {len(a)} entries expected, {len(b)} found")
        for i, (x, y) in enumerate(zip(a, b)):
            same(f"{path}[{i}]", x, y)
    elif not close(a, b):
        problems.append(f"{path}: expected {a!r}, found {b!r}")


NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def figures(finding):
    text = " ".join([finding["title"]] + finding["evidence"])
    return NUMBER.findall(text)


expected = json.load(open(sys.argv[1]))
actual = json.load(open(sys.argv[2]))
# Where the shipped reference envelopes lie is the checkout's place, not a verdict.
for verdict in (expected, actual):
    for run in verdict.get("runs", []):
        if isinstance(run.get("reference"), dict):
            run["reference"].pop("path", None)
for key in ("verdict", "exit_code", "counts", "checks", "regressions", "scaling", "fits", "runs"):
    same(key, expected.get(key), actual.get(key))
ef, af = expected["findings"], actual["findings"]
if len(ef) != len(af):
    problems.append(f"findings: {len(ef)} expected, {len(af)} found")
for i, (e, a) in enumerate(zip(ef, af)):
    for k in ("stage", "run", "rank", "trustworthy"):
        if e.get(k) != a.get(k):
            problems.append(f"findings[{i}].{k}: expected {e.get(k)!r}, found {a.get(k)!r}")
    if e["title"] != a["title"] or e["evidence"] != a["evidence"]:
        if figures(e) != figures(a):
            problems.append(
                f"findings[{i}] figures: expected {figures(e)}, found {figures(a)}\n"
                f"  expected: {e['title']}\n  found:    {a['title']}")
for p in problems:
    print("DIFF", p)
sys.exit(1 if problems else 0)
