#!/usr/bin/env python3
"""Rewrite a copy of a version-1 results file into schema version 2 form (CONTRACT.md): the
declarations the v2 writer puts on every case and stats column, `better` removed, version 2.
Tests the report's primary (v2) reading path before the writer emits v2.

make_v2_fixture.py IN.h5 OUT.h5 [--break KIND]
  --break unknown-stage  a case's stage is a name meaning.hpp does not know
  --break no-direction   a stats column lacks its direction attribute
  --break no-span        a case lacks span_nodes"""
import shutil
import sys

import h5py
import numpy as np

src, dst = sys.argv[1], sys.argv[2]
broken = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--break" else ""
shutil.copyfile(src, dst)

CORE = ["point", "group", "group_ranks", "iterations", "stop_reason", "time_min", "time_p5",
        "time_median", "time_p95", "time_max", "time_mean", "time_cv", "median_ci_low",
        "median_ci_high", "batch_blocks", "batch_ops", "batched_time_median",
        "batched_time_min", "batched_time_max", "wrong"]
RATE = ("data_rate", "higher", "inverse_time", "")
FAMILIES = {
    "comm": dict(stage="communication", x_axis="size_bytes", bands="size_bands",
                 scaling="per_rank", peer_slow=1, peer_late=1, work_counter="", quality="",
                 min_samples=10,
                 columns={"size_bytes": ("count", "none", "none", ""),
                          "count": ("count", "none", "none", ""),
                          "algbw": RATE, "busbw": RATE, "batched_algbw": RATE,
                          "batched_busbw": RATE},
                 headline="busbw"),
    "storage": dict(stage="data_in", x_axis="block_bytes", bands="each_point",
                    scaling="aggregate", peer_slow=1, peer_late=0, work_counter="bytes",
                    quality="served_from_memory", min_samples=3,
                    columns={"block_bytes": ("count", "none", "none", ""),
                             "agg_bw": ("data_rate", "higher", "counter_rate", "bytes"),
                             "iops": ("work_rate", "higher", "counter_rate", "ops"),
                             "rank_bw_min": ("data_rate", "higher", "none", ""),
                             "rank_bw_median": ("data_rate", "higher", "none", ""),
                             "lat_p50": ("time", "lower", "counter_median", "lat_p50"),
                             "lat_p99": ("time", "lower", "counter_median", "lat_p99"),
                             "lat_p999": ("time", "lower", "counter_median", "lat_p999"),
                             "resident_before_max": ("fraction", "lower", "none", ""),
                             "bytes_total": ("count", "none", "none", "")},
                    headline="agg_bw"),
}


def core(name, unit):
    if name == "time_cv":
        return ("fraction", "lower", "none", "")
    if unit == "s":
        return ("time", "lower", "time" if name == "time_median" else "none", "")
    if name in ("point", "group", "group_ranks", "stop_reason"):
        return ("label", "none", "none", "")
    return ("count", "none", "none", "")


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


with h5py.File(dst, "r+") as f:
    f.attrs["schema_version"] = np.int64(2)
    node_count = int(f.attrs["node_count"])
    first = True
    for cid, g in f["cases"].items():
        family = text(g.attrs["family"])
        d = FAMILIES[family]
        a = {k: text(v) for k, v in g.attrs.items()}
        name, layout = a["name"], a.get("layout", "")
        subject = name[: -len(layout) - 1] if layout and name.endswith(" " + layout) else name
        stats = g["stats"]
        ranks0 = int(stats["group_ranks"][0])
        if float(a.get("ladder_nodes", 0)) > 0:
            span = int(float(a["ladder_nodes"]))
        elif float(a.get("nodes", 0)) > 0:
            span = int(float(a["nodes"]))
        elif a.get("topology") == "intra":
            span = 1
        elif a.get("topology") in ("inter", "rail"):
            span = ranks0
        else:
            span = node_count
        series = "ranks" if family == "storage" else a.get("topology", "")
        g.attrs["stage"] = "warp_drive" if broken == "unknown-stage" and first else d["stage"]
        for k in ("x_axis", "bands", "scaling", "work_counter", "quality"):
            g.attrs[k] = d[k]
        g.attrs["subject"] = subject
        g.attrs["series"] = series
        if not (broken == "no-span" and first):
            g.attrs["span_nodes"] = np.int64(span)
        for k in ("peer_slow", "peer_late", "min_samples"):
            g.attrs[k] = np.int64(d[k])
        for col, ds in stats.items():
            if "better" in ds.attrs:
                del ds.attrs["better"]
            unit = text(ds.attrs.get("units", ""))
            kind, direction, per_iteration, source = (
                core(col, unit) if col in CORE else d["columns"].get(col, ("count", "none", "none", "")))
            if not (broken == "no-direction" and first and col == d["headline"]):
                ds.attrs["direction"] = direction
            ds.attrs["kind"] = kind
            ds.attrs["headline"] = np.int64(1 if col == d["headline"] else 0)
            ds.attrs["per_iteration"] = per_iteration
            ds.attrs["per_iteration_source"] = source
        for point in g["points"].values():
            for group in ("counters", "series"):
                if group in point:
                    for ds in point[group].values():
                        ds.attrs["direction"] = "none"
                        ds.attrs["kind"] = "count"
        first = False
