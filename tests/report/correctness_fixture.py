#!/usr/bin/python3
"""A results file with correctness cases (results-schema/SPEC.md, "The correctness family"), made
from the schema-v2 fixture (tests/fixtures/v2/run.h5) until the bench side writes real ones: its
first comm case, 4 ranks, 3 points of 10 iterations, becomes

  000000  collective sweep, algorithm ring: rank 2 received 5 wrong elements in iteration 3 of
          point 2 (the element came from rank 1);
  000001  collective sweep, algorithm recursive_doubling: clean;
  000002  GEMM determinism 64x64x64 float32: rank 3 unlike the majority (rank 0) in iteration 7 of
          point 0, C[5,1] (element 69);

every other case is removed, each rank gets a GPU UUID (GPU-r0 ... GPU-r3) and the run's status is
failed. Names come from the schema's declarations (correctness.hpp) as SPEC.md writes them.

correctness_fixture.py SOURCE.h5 OUT.h5"""
import shutil
import sys

import h5py
import numpy as np

src, out = sys.argv[1], sys.argv[2]
shutil.copyfile(src, out)
f = h5py.File(out, "r+")
cases = f["cases"]
first = sorted(cases)[0]
for name in sorted(cases)[1:]:
    del cases[name]
f.attrs["status"] = np.bytes_("failed")
f.attrs["exit_code"] = np.int64(1)  # as preflight ends a run with wrong results
ranks = f["environment"]["rank"].shape[0]
assert ranks == 4, ranks
env = f["environment"]
attrs = dict(env["gpu_uuid"].attrs)
del env["gpu_uuid"]
env.create_dataset("gpu_uuid", data=np.array([f"GPU-r{r}".encode() for r in range(ranks)]))
for k, v in attrs.items():
    env["gpu_uuid"].attrs[k] = v

S = np.bytes_


def column_attrs(d, units, description, direction, kind):
    d.attrs["units"] = S(units)
    d.attrs["description"] = S(description)
    d.attrs["direction"] = S(direction)
    d.attrs["kind"] = S(kind)


def stats_column(stats, name, values, units, direction, kind):
    if name in stats:
        del stats[name]
    d = stats.create_dataset(name, data=np.array(values, dtype=np.int64), fletcher32=True,
                             chunks=True)
    column_attrs(d, units, name, direction, kind)
    d.attrs["headline"] = np.int64(0)
    d.attrs["per_iteration"] = S("none")
    d.attrs["per_iteration_source"] = S("")


def make_case(index, check, plants, extra):
    """plants: (point, iteration, rank, elements, element, expected, found, source)"""
    name = f"{index:06d}"
    if name != first:
        f.copy(cases[first], cases, name=name)
    g = cases[name]
    a = g.attrs
    a["index"] = np.int64(index)
    a["family"] = S("correctness")
    a["benchmark"] = S("correctness")
    a["stage"] = S("correctness")
    a["scaling"] = S("none")
    a["peer_slow"] = np.int64(0)
    a["peer_late"] = np.int64(0)
    a["correctness_check"] = S(check)
    a["events_kept"] = np.int64(8)
    for k, v in extra.items():
        a[k] = S(v)
    wrong = sum(p[3] for p in plants)
    a["wrong_elements"] = np.uint64(wrong)
    a["status"] = S("failed" if plants else "ok")
    stats = g["stats"]
    rows = stats["point"].shape[0]
    iterations = stats["iterations"][()]
    stats_column(stats, "checked_results", [int(i) * ranks for i in iterations], "results", "none",
                 "count")
    points = [int(p) for p in stats["point"][()]]
    stats_column(stats, "wrong_results",
                 [sum(1 for p in plants if p[0] == points[r]) for r in range(rows)], "results",
                 "lower", "count")
    if check == "gemm":
        for dim in ("gemm_m", "gemm_n", "gemm_k"):
            stats_column(stats, dim, [64] * rows, "", "none", "label")
    for pname in sorted(g["points"]):
        p = g["points"][pname]
        point = int(pname)
        n = p["samples"].shape[0]
        counter = np.zeros((n, ranks))
        series = {s: np.full((8, ranks), np.nan) for s in (
            "wrong_iteration", "wrong_element", "wrong_expected", "wrong_found", "wrong_count",
            "wrong_source")}
        per_rank = np.zeros(ranks, dtype=np.uint64)
        row = [0] * ranks
        for (pp, it, rank, elements, element, expected, found, source) in plants:
            if pp != point:
                continue
            counter[it, rank] = elements
            per_rank[rank] += elements
            for s, v in zip(("wrong_iteration", "wrong_element", "wrong_expected", "wrong_found",
                             "wrong_count", "wrong_source"),
                            (it, element, expected, found, elements, source)):
                series[s][row[rank], rank] = v
            row[rank] += 1
        for group in ("counters", "series"):
            if group in p:
                del p[group]
        c = p.create_group("counters").create_dataset("wrong_elements", data=counter)
        column_attrs(c, "elements", "wrong elements", "lower", "count")
        sg = p.create_group("series")
        for s, values in series.items():
            d = sg.create_dataset(s, data=values)
            column_attrs(d, "", s, "none", "count" if s == "wrong_count" else "label")
            d.attrs["interval_s"] = np.float64(0)
        del p["wrong_per_rank"]
        p.create_dataset("wrong_per_rank", data=per_rank)


ring = {"forced_algorithm": "ring", "forced_protocol": "",
        "forced_by": "coll_tuned_allreduce_algorithm=4", "comm_library": "Open MPI 4.1.4"}
make_case(1, "collective", [], dict(ring, forced_algorithm="recursive_doubling",
                                    forced_by="coll_tuned_allreduce_algorithm=3"))
make_case(2, "gemm", [(0, 7, 3, 4096, 69, 0.25, 0.2500001, 0)],
          {"dtype": "float32", "library": "OpenBLAS 0.3.21", "compare_classes": "cpu | OpenBLAS: 0-3"})
make_case(0, "collective", [(2, 3, 2, 5, 1000, 1.0, 9.0, 1)], ring)
for i, name in enumerate(sorted(cases)):
    cases[name].attrs["name"] = S(["allreduce float32 ring", "allreduce float32 recursive_doubling",
                                   "gemm determinism 64x64x64 float32"][i])
f.close()
