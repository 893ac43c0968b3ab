#!/usr/bin/env python3
"""The soak's Grafana dashboard (scripts/grafana/preflight-soak.json) against the soak's textfile:
every query (panel targets and template variables) names only metrics that the textfile sink
declares (bench/harness/sinks/textfile_metrics.hpp, read here), and nothing else that PromQL
would take for a metric; the dashboard is importable (schemaVersion, a Prometheus datasource
variable every panel uses, a node variable from label_values); and it has the panels
docs/operations.md describes: soak progress, node time ratio per node over time with a threshold
line at 1.15, the worst node now, wrong elements red when non-zero, the headline figure per case,
the last update's age.

dashboard_test.py DASHBOARD.json TEXTFILE_METRICS.hpp"""
import json
import re
import sys

# PromQL words that are not metric names: functions are told apart by the "(" that follows them,
# aggregations may have a by/without clause between.
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or",
            "unless", "offset", "inf", "nan", "sum", "min", "max", "avg", "group", "stddev",
            "stdvar", "count", "count_values", "bottomk", "topk", "quantile"}


def declared(header):
    names = re.findall(r'"(preflight_[a-z0-9_]+)"', open(header).read())
    assert names, f"{header}: no metric names"
    assert len(names) == len(set(names)), f"{header}: a name declared twice"
    return set(names)


def metrics_in(expr):
    """The metric names a PromQL expression reads."""
    e = re.sub(r"^\s*label_values\((.*),\s*[A-Za-z_][A-Za-z0-9_]*\s*\)\s*$", r"\1", expr)
    e = re.sub(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?", "", e)       # template variables
    e = re.sub(r'"(\\.|[^"\\])*"', '""', e)                    # string literals
    e = re.sub(r"\{[^}]*\}", "", e)                            # label matchers
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", r"\1", e)
    e = re.sub(r"\[[^\]]*\]", "", e)                           # range selectors
    names = set()
    for m in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", e):
        word, rest = m.group(), e[m.end():].lstrip()
        if rest.startswith("(") or word.lower() in KEYWORDS:
            continue
        if m.start() > 0 and (e[m.start() - 1].isdigit() or e[m.start() - 1] == "."):
            continue  # a number's exponent or a duration's unit
        names.add(word)
    return names


def queries(dashboard):
    """(where, expr) for every panel target and every query variable."""
    for p in dashboard["panels"]:
        for t in p.get("targets", []):
            yield f"panel '{p['title']}'", t["expr"], p
    for v in dashboard["templating"]["list"]:
        if v["type"] == "query":
            q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
            yield f"variable {v['name']}", q, None


def main():
    dashboard = json.load(open(sys.argv[1]))
    names = declared(sys.argv[2])
    bad = []
    used = set()
    for where, expr, _ in queries(dashboard):
        found = metrics_in(expr)
        if not found:
            bad.append(f"{where}: '{expr}' reads no metric")
        for n in found - names:
            bad.append(f"{where}: '{n}' is not a metric the textfile sink writes")
        used |= found & names

    if not 36 <= dashboard.get("schemaVersion", 0) <= 41:
        bad.append(f"schemaVersion {dashboard.get('schemaVersion')}: expected about 39")
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    ds = variables.get("datasource", {})
    if ds.get("type") != "datasource" or ds.get("query") != "prometheus":
        bad.append("no Prometheus datasource variable named datasource")
    for p in dashboard["panels"]:
        sources = [p.get("datasource")] + [t.get("datasource") for t in p.get("targets", [])]
        if any(s != {"type": "prometheus", "uid": "${datasource}"} for s in sources):
            bad.append(f"panel '{p['title']}' does not use the datasource variable")
    node = variables.get("node", {})
    node_query = node.get("query", {})
    node_query = node_query.get("query", "") if isinstance(node_query, dict) else node_query
    if not node_query.startswith("label_values(") or not node_query.rstrip().endswith(", node)"):
        bad.append(f"node variable: '{node_query}' is not label_values(..., node)")

    def panel(word, kind):
        hits = [p for p in dashboard["panels"]
                if word in p["title"].lower() and p["type"] == kind]
        if not hits:
            bad.append(f"no {kind} panel titled with '{word}'")
        return hits

    def exprs(p):
        return " ".join(t["expr"] for t in p["targets"])

    def steps(p):
        th = p["fieldConfig"]["defaults"].get("thresholds", {}).get("steps", [])
        return [(s["color"], s["value"]) for s in th]

    for p in panel("round", "stat"):
        if "preflight_soak_round" not in exprs(p):
            bad.append("the round panel does not read preflight_soak_round")
    for p in panel("soaked", "stat"):
        if not {"preflight_soak_seconds", "preflight_soak_duration_seconds"} <= metrics_in(exprs(p)):
            bad.append("the soaked panel does not show soaked and duration")
    for p in panel("node time ratio", "timeseries"):
        custom = p["fieldConfig"]["defaults"]["custom"]
        if ("red", 1.15) not in steps(p) or custom.get("thresholdsStyle", {}).get("mode") != "line":
            bad.append("the node time ratio panel has no threshold line at 1.15")
        if "preflight_soak_node_time_ratio" not in exprs(p) or "$node" not in exprs(p):
            bad.append("the node time ratio panel does not read the ratio per selected node")
    for p in panel("worst node", "stat"):
        if "preflight_soak_worst_node_ratio" not in exprs(p):
            bad.append("the worst node panel does not read preflight_soak_worst_node_ratio")
    for p in panel("wrong elements", "stat"):
        if steps(p) != [("green", None), ("red", 1)]:
            bad.append(f"wrong elements: thresholds {steps(p)}, expected red from 1")
    for p in panel("headline", "timeseries"):
        if "preflight_soak_headline" not in exprs(p):
            bad.append("the headline panel does not read preflight_soak_headline")
    for p in panel("last update", "stat"):
        if "time() - preflight_soak_last_update_timestamp_seconds" not in exprs(p):
            bad.append("the last update panel does not show the age")
    ids = [p["id"] for p in dashboard["panels"]]
    if len(ids) != len(set(ids)):
        bad.append("panel ids repeat")

    for b in bad:
        print(f"FAIL: {b}")
    if not bad:
        print(f"PASS: {len(list(queries(dashboard)))} queries read only declared metrics "
              f"({len(used)} of {len(names)} used); panels and variables as documented")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
