#!/usr/bin/python3
"""Checks a preflight results file against results-schema/SPEC.md, reading it with h5py
(not with preflight's own reader), and recomputes its statistics from the raw samples.

  check_results.py --spec SPEC.md [expectations] results.h5

Exit 0 when everything holds; otherwise every problem is printed and the exit code is 1.
"""
import argparse
import json
import re
import sys

import h5py
import numpy as np

TYPES = {"int64": np.integer, "uint64": np.unsignedinteger, "float64": np.floating, "string": str}
REQUESTED_SIZES = None
ALL_COLLECTIVES = ["allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall", "sendrecv"]
problems = []


def problem(message):
    problems.append(message)


def parse_spec(path):
    """Markdown tables of SPEC.md, by section heading: a list of row dicts per table."""
    sections, heading, table = {}, None, None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("## "):
            heading, table = line[3:].strip(), None
            sections[heading] = []
        elif line.startswith("|") and heading:
            cells = [c.strip() for c in line.strip("|").split("|")]
            if table is None:
                table = {"header": cells, "rows": []}
                sections[heading].append(table)
            elif not set("".join(cells)) <= set("-: "):
                table["rows"].append(dict(zip(table["header"], cells)))
        else:
            table = None
    return sections


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def check_value_type(where, value, spec_type):
    wanted = TYPES[spec_type]
    if wanted is str:
        ok = isinstance(value, (str, bytes))
    else:
        ok = np.issubdtype(np.asarray(value).dtype, wanted)
        if spec_type == "int64" and np.issubdtype(np.asarray(value).dtype, np.unsignedinteger):
            ok = False
    if not ok:
        problem(f"{where}: expected {spec_type}, found {np.asarray(value).dtype}")


def check_attributes(obj, rows, where):
    for row in rows:
        name = row["name"]
        if name not in obj.attrs:
            problem(f"{where}: missing attribute '{name}'")
            continue
        check_value_type(f"{where}@{name}", obj.attrs[name], row["type"])
        unit = row.get("units", "")
        if unit and text(obj.attrs.get(name + ".units", unit)) != unit:
            problem(f"{where}@{name}.units: expected {unit}")


def check_columns(group, rows, where, length=None):
    for row in rows:
        name = row["name"]
        if name not in group:
            problem(f"{where}: missing dataset '{name}'")
            continue
        ds = group[name]
        if ds.ndim != 1:
            problem(f"{where}/{name}: expected one dimension, found shape {ds.shape}")
        if length is not None and ds.shape[0] != length:
            problem(f"{where}/{name}: expected {length} rows, found {ds.shape[0]}")
        if "units" not in ds.attrs:
            problem(f"{where}/{name}: missing 'units' attribute")
        elif text(ds.attrs["units"]) != row.get("units", ""):
            problem(f"{where}/{name}: units '{text(ds.attrs['units'])}', spec says '{row.get('units', '')}'")
        if ds.shape[0] > 0:
            check_value_type(f"{where}/{name}", ds[0], row["type"])


def bus_factor(collective, n):
    if collective == "allreduce":
        return 2 * (n - 1) / n
    if collective in ("allgather", "reducescatter", "alltoall"):
        return (n - 1) / n
    return 1.0


def close(a, b):
    return (np.isnan(a) and np.isnan(b)) or abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300)


def check_recomputed_stats(case, where, world):
    """The stored statistics must follow from the stored samples."""
    stats, groups = case["stats"], case["group_of_rank"][:]
    for row in range(stats["point"].shape[0]):
        point, group = int(stats["point"][row]), int(stats["group"][row])
        pg = case["points"][f"{point:04d}"]
        members = np.flatnonzero(groups >= 0) if group < 0 else np.flatnonzero(groups == group)
        slowest = np.nanmax(pg["samples"][:][:, members], axis=1)
        here = f"{where} point {point} group {group}"
        for column, value in [("time_median", np.median(slowest)), ("time_min", slowest.min()),
                              ("time_max", slowest.max()), ("time_p95", np.percentile(slowest, 95)),
                              ("time_p5", np.percentile(slowest, 5)), ("time_mean", slowest.mean())]:
            if not close(float(stats[column][row]), float(value)):
                problem(f"{here}: {column} {stats[column][row]} but the samples give {value}")
        if len(slowest) > 1:
            cv = np.std(slowest, ddof=1) / np.mean(slowest)
            if not close(float(stats["time_cv"][row]), float(cv)):
                problem(f"{here}: time_cv {stats['time_cv'][row]} but the samples give {cv}")
        ordered, n = np.sort(slowest), len(slowest)
        width = 1.96 * np.sqrt(n) / 2
        low = ordered[int(np.clip(np.floor(n / 2 - width) - 1, 0, n - 1))]
        high = ordered[int(np.clip(np.ceil(1 + n / 2 + width) - 1, 0, n - 1))]
        if not (close(float(stats["median_ci_low"][row]), float(low)) and
                close(float(stats["median_ci_high"][row]), float(high))):
            problem(f"{here}: median CI [{stats['median_ci_low'][row]}, {stats['median_ci_high'][row]}], "
                    f"order statistics give [{low}, {high}]")
        if pg["batched"].shape[0] == 0:  # no back-to-back phase
            if not np.isnan(float(stats["batched_time_median"][row])):
                problem(f"{here}: batched_time_median without back-to-back samples")
        else:
            batched = np.nanmax(pg["batched"][:][:, members], axis=1)
            if not close(float(stats["batched_time_median"][row]), float(np.median(batched))):
                problem(f"{here}: batched_time_median does not follow from the batched samples")
        if int(stats["group_ranks"][row]) != len(members) and group >= 0:
            problem(f"{here}: group_ranks {stats['group_ranks'][row]}, group_of_rank says {len(members)}")
        if int(stats["wrong"][row]) != int(pg["wrong_per_rank"][:][members].sum()):
            problem(f"{here}: wrong does not match wrong_per_rank")
        if text(case.attrs.get("family", "")) == "comm":
            check_bandwidth(case, stats, row, here)
            check_size(case, stats, row, here, REQUESTED_SIZES)
        if text(case.attrs.get("family", "")) == "storage":
            check_storage_row(case, stats, row, members, here)


def median(values):
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    return float(np.median(values)) if len(values) else float("nan")


def nanmax_or_nan(values):
    """The largest value that is not NaN; NaN when there is none (nothing was measured)."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    return float(values.max()) if values.size else float("nan")


def check_storage_row(case, stats, row, members, here):
    """Every storage figure must follow from the samples and counters (SPEC: The storage family)."""
    pg = case["points"][f"{int(stats['point'][row]):04d}"]
    times = pg["samples"][:][:, members]
    counters = {name: pg["counters"][name][:][:, members] for name in STORAGE_COUNTERS}
    slowest = times.max(axis=1)
    expected = {
        "agg_bw": median(counters["bytes"].sum(axis=1) / slowest / 1e9),
        "iops": median(counters["ops"].sum(axis=1) / slowest),
        "lat_p50": median(counters["lat_p50"].ravel()),
        "lat_p99": median(counters["lat_p99"].ravel()),
        "lat_p999": median(counters["lat_p999"].ravel()),
        "resident_before_max": nanmax_or_nan(counters["resident_before"]),
        "bytes_total": float(counters["bytes"].sum()),
    }
    per_rank = [median(counters["bytes"][:, k] / times[:, k] / 1e9) for k in range(len(members))]
    expected["rank_bw_min"] = min(per_rank)
    expected["rank_bw_median"] = median(per_rank)
    for column, value in expected.items():
        got = float(stats[column][row])
        if not (abs(got - value) <= 1e-9 * max(abs(got), abs(value), 1e-300) or (np.isnan(got) and np.isnan(value))):
            problem(f"{here}: {column} {got} but the samples and counters give {value}")
    block = int(stats["block_bytes"][row])
    if not np.allclose(counters["bytes"], counters["ops"] * block):
        problem(f"{here}: bytes is not ops x block_bytes")
    if float(case.attrs["stonewall_s"]) == 0 and not np.all(counters["bytes"] == int(case.attrs["bytes_per_rank"])):
        problem(f"{here}: a size-bounded read did not read bytes_per_rank on every rank")
    read = counters["ops"] > 0  # a time-bounded read may end before a rank's first read
    if (not np.all(counters["lat_p50"][read] <= counters["lat_p99"][read])
            or not np.all(counters["lat_p99"][read] <= counters["lat_p999"][read])):
        problem(f"{here}: latency percentiles out of order")
    if not np.all(np.isnan(counters["lat_p50"][~read])):
        problem(f"{here}: a latency percentile where the rank read nothing")
    resident = counters["resident_before"]
    measured = resident[~np.isnan(resident)]  # NaN: not measured (SPEC)
    if np.any(measured < 0) or np.any(measured > 1):
        problem(f"{here}: resident_before outside 0..1")
    if COLD_LIMIT is not None and text(case.attrs["cache_state"]) != "warm":
        if np.any(np.isnan(resident)):
            problem(f"{here}: cache_state {text(case.attrs['cache_state'])} but resident_before was "
                    f"not measured (NaN) for {int(np.isnan(resident).sum())} rank iterations: not proven cold")
        if measured.size and measured.max() > COLD_LIMIT:
            problem(f"{here}: cache_state {text(case.attrs['cache_state'])} but up to {measured.max():.3f} "
                    f"of a rank's bytes were cached before a read (limit {COLD_LIMIT})")


STORAGE_COUNTERS = ["bytes", "ops", "resident_before", "lat_p50", "lat_p99", "lat_p999"]
STORAGE_CACHE_STATES = {"direct", "evicted", "other-node", "warm"}
COLD_LIMIT = None


def check_storage_case(case, where, spec, world):
    tables = spec["The storage family"]
    check_attributes(case, tables[0]["rows"], where)
    check_columns(case["stats"], tables[1]["rows"], where + "/stats", len(case["stats"]["point"]))
    state = text(case.attrs.get("cache_state", ""))
    if state not in STORAGE_CACHE_STATES:
        problem(f"{where}: cache_state '{state}' is not one of {sorted(STORAGE_CACHE_STATES)}")
    if int(case.attrs.get("direct", -1)) != int(state == "direct"):
        problem(f"{where}: direct {case.attrs.get('direct')} with cache_state {state}")
    if text(case.attrs.get("engine", "")) == "mmap" and state == "direct":
        problem(f"{where}: mmap cannot read with O_DIRECT")
    groups = case["group_of_rank"][:]
    if int(case.attrs["ranks"]) != int(np.count_nonzero(groups >= 0)):
        problem(f"{where}: ranks {case.attrs['ranks']}, group_of_rank has {np.count_nonzero(groups >= 0)} active")
    for p in case["points"]:
        pg = case["points"][p]
        iterations = pg["samples"].shape[0]
        for row in tables[2]["rows"]:
            name = row["name"]
            if name not in pg.get("counters", {}):
                problem(f"{where} point {p}: missing counters/{name}")
                continue
            ds = pg["counters"][name]
            if ds.shape != (iterations, world):
                problem(f"{where} point {p}: counters/{name} shape {ds.shape}, expected {(iterations, world)}")
            if text(ds.attrs.get("units", "?")) != row["units"]:
                problem(f"{where} point {p}: counters/{name} units '{text(ds.attrs.get('units', ''))}', spec says '{row['units']}'")
            if not np.all(np.isnan(ds[:][:, groups < 0])):
                problem(f"{where} point {p}: counters/{name} has values for idle ranks")
        if "series" not in pg or "interval_bw" not in pg["series"]:
            problem(f"{where} point {p}: missing series/interval_bw")
            continue
        series = pg["series"]["interval_bw"]
        if series.shape[1] != world or text(series.attrs.get("units", "")) != "GB/s" or "interval_s" not in series.attrs:
            problem(f"{where} point {p}: series/interval_bw shape {series.shape} or attributes wrong")
        elif series.shape[0] == 0 or not np.all(np.isnan(series[:][:, groups < 0])):
            problem(f"{where} point {p}: series/interval_bw empty, or has values for idle ranks")
        else:
            # The series holds every timed byte: full intervals add up to no more than the bytes
            # read, and with the last (partial) interval counted whole, to no less.
            interval = float(series.attrs["interval_s"])
            active = np.flatnonzero(groups >= 0)
            read = pg["counters"]["bytes"][:][:, active].sum(axis=0)
            for k, r in enumerate(active):
                col = series[:, r]
                col = col[~np.isnan(col)] * 1e9 * interval
                if len(col) == 0 or col[:-1].sum() > read[k] * (1 + 1e-9) or col.sum() < read[k] * (1 - 1e-9):
                    problem(f"{where} point {p}: series/interval_bw of rank {r} does not add up to "
                            f"counters/bytes ({read[k]} B)")


def check_storage_matrix(cases):
    """Every engine x direct/buffered x sequential/random x file-per-rank/shared ran (mmap: buffered only)."""
    seen = set()
    for case in cases:
        if text(case.attrs.get("family", "")) == "storage":
            seen.add((text(case.attrs["engine"]), int(case.attrs["direct"]), text(case.attrs["access"]),
                      text(case.attrs["file_layout"])))
    for engine in ("psync", "io_uring", "mmap"):
        for direct in ((0, 1) if engine != "mmap" else (0,)):
            for access in ("sequential", "random"):
                for layout in ("file-per-rank", "shared"):
                    if (engine, direct, access, layout) not in seen:
                        problem(f"no storage case {engine} direct={direct} {access} {layout}")


DTYPE_BYTES = {"float32": 4, "float64": 8, "int32": 4, "int64": 8, "uint32": 4, "uint64": 8}


def check_size(case, stats, row, here, requested):
    """size_bytes must follow from the requested size by nccl-tests' rule."""
    if requested is None:
        return
    groups, group = case["group_of_rank"][:], int(stats["group"][row])
    n = int(np.count_nonzero(groups == group)) if group >= 0 else max(
        int(np.count_nonzero(groups == g)) for g in set(groups[groups >= 0].tolist()))
    t = DTYPE_BYTES[text(case.attrs["dtype"])]
    split = n if text(case.attrs["collective"]) in ("allgather", "reducescatter", "alltoall") else 1
    asked = requested[int(stats["point"][row])]
    chunk = 0 if asked == 0 else max(1, asked // (t * split))
    if int(stats["size_bytes"][row]) != chunk * t * split:
        problem(f"{here}: size_bytes {stats['size_bytes'][row]} for {asked} B asked, expected {chunk * t * split}")


def check_bandwidth(case, stats, row, here):
    algbw, busbw = float(stats["algbw"][row]), float(stats["busbw"][row])
    if np.isnan(algbw):
        if int(stats["group"][row]) >= 0:
            problem(f"{here}: algbw is NaN in a single group's row")
        return
    expected = float(stats["size_bytes"][row]) / float(stats["time_median"][row]) / 1e9
    if not close(algbw, expected):
        problem(f"{here}: algbw {algbw} but size/time gives {expected}")
    # The all-groups row of equal groups uses one group's size, like each group's own row.
    groups, group = case["group_of_rank"][:], int(stats["group"][row])
    n = int(np.count_nonzero(groups == max(group, 0)))
    factor = bus_factor(text(case.attrs["collective"]), n)
    if not close(busbw, algbw * factor):
        problem(f"{here}: busbw {busbw} is not algbw x {factor}")


def check_points(case, where, world):
    groups = case["group_of_rank"][:]
    stats = case["stats"]
    for point in sorted(set(int(p) for p in stats["point"][:])):
        rows = np.flatnonzero(stats["point"][:] == point)
        pg = case["points"][f"{point:04d}"]
        samples, batched = pg["samples"][:], pg["batched"][:]
        iterations, blocks = int(stats["iterations"][rows[0]]), int(stats["batch_blocks"][rows[0]])
        if samples.shape != (iterations, world):
            problem(f"{where} point {point}: samples shape {samples.shape}, expected {(iterations, world)}")
            continue
        if batched.shape != (blocks, world):
            problem(f"{where} point {point}: batched shape {batched.shape}, expected {(blocks, world)}")
        idle = groups < 0
        if not np.all(np.isnan(samples[:, idle])):
            problem(f"{where} point {point}: idle ranks have samples")
        active = samples[:, ~idle]
        if not (np.all(np.isfinite(active)) and np.all(active > 0)):
            problem(f"{where} point {point}: active ranks have missing or non-positive samples")
        for name in ("samples", "batched"):
            if text(pg[name].attrs.get("units", "")) != "s":
                problem(f"{where} point {point}/{name}: units should be s")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("file")
    parser.add_argument("--spec", required=True)
    parser.add_argument("--status", help="expected run status")
    parser.add_argument("--collectives", help="comma list (or all) that must appear")
    parser.add_argument("--topologies", help="comma list that must appear")
    parser.add_argument("--placements", help="in-place, out-of-place or both: must appear")
    parser.add_argument("--dtypes", help="comma list that must appear")
    parser.add_argument("--nodes", type=int, help="expected node_count")
    parser.add_argument("--failed-rank", type=int, help="every case failed, wrong elements on this rank alone")
    parser.add_argument("--min-cases", type=int, default=1)
    parser.add_argument("--timeout-case", type=int, help="this case timed out; the others ran")
    parser.add_argument("--not-arrived", help="comma list of ranks the timed-out case names")
    parser.add_argument("--stop-reason", help="at least one point stopped for this reason")
    parser.add_argument("--timeout-points", type=int, help="sizes the timed-out case finished")
    parser.add_argument("--sizes", help="comma list of the requested sizes in bytes, to check size_bytes")
    parser.add_argument("--storage-matrix", action="store_true",
                        help="every storage engine x direct/buffered x access x file layout must appear")
    parser.add_argument("--cache-states", help="comma list of storage cache states that must appear")
    parser.add_argument("--cold-limit", type=float,
                        help="largest resident_before allowed in a storage case that is not warm")
    args = parser.parse_args()
    global COLD_LIMIT
    COLD_LIMIT = args.cold_limit
    global REQUESTED_SIZES
    REQUESTED_SIZES = [int(x) for x in args.sizes.split(",")] if args.sizes else None

    spec = parse_spec(args.spec)
    comm_tables = spec["The comm family"]
    with h5py.File(args.file, "r") as f:
        check_attributes(f, spec["Run attributes (on `/`)"][0]["rows"], "/")
        if problems:
            return report()
        if int(f.attrs["schema_version"]) != 1:
            problem(f"schema_version {f.attrs['schema_version']}, expected 1")
        json.loads(text(f.attrs["config"]))
        world = int(f.attrs["world_size"])
        check_columns(f["environment"], spec["Environment columns (`/environment/<column>`, one row per world rank)"][0]["rows"],
                      "/environment", world)
        if args.status and text(f.attrs["status"]) != args.status:
            problem(f"run status '{text(f.attrs['status'])}', expected '{args.status}'")
        if args.nodes is not None and int(f.attrs["node_count"]) != args.nodes:
            problem(f"node_count {f.attrs['node_count']}, expected {args.nodes}")
        cases = [f["cases"][name] for name in sorted(f["cases"])]
        if len(cases) < args.min_cases:
            problem(f"{len(cases)} cases, expected at least {args.min_cases}")
        seen = {"collective": set(), "topology": set(), "placement": set(), "dtype": set()}
        reasons = set()
        for case in cases:
            where = case.name
            if text(case.attrs.get("status", "")) == "timeout":
                check_timeout_case(case, where, args)
                continue
            reasons.update(text(r) for r in case["stats"]["stop_reason"][:])
            check_attributes(case, spec["Case attributes (on `/cases/<NNNNNN>`)"][0]["rows"], where)
            if text(case.attrs.get("family", "")) == "comm":
                check_attributes(case, comm_tables[0]["rows"], where)
                for key in seen:
                    seen[key].add(text(case.attrs[key]))
            rows = len(case["stats"]["point"])
            check_columns(case["stats"], spec["Stats columns (`/cases/<NNNNNN>/stats/<column>`)"][0]["rows"],
                          where + "/stats", rows)
            if text(case.attrs.get("family", "")) == "comm":
                check_columns(case["stats"], comm_tables[1]["rows"], where + "/stats", rows)
            if text(case.attrs.get("family", "")) == "storage":
                check_storage_case(case, where, spec, world)
            if case["group_of_rank"].shape != (world,):
                problem(f"{where}/group_of_rank: shape {case['group_of_rank'].shape}, expected ({world},)")
                continue
            check_points(case, where, world)
            check_recomputed_stats(case, where, world)
            check_correctness(case, where, args.failed_rank)
        check_coverage(seen, args)
        if args.storage_matrix:
            check_storage_matrix(cases)
        if args.cache_states:
            states = {text(c.attrs.get("cache_state", "")) for c in cases}
            for state in args.cache_states.split(","):
                if state not in states:
                    problem(f"no storage case with cache_state {state} (found {sorted(states)})")
        if args.stop_reason and args.stop_reason not in reasons:
            problem(f"no point stopped for '{args.stop_reason}' (found {sorted(reasons)})")
        if args.timeout_case is not None and f"{args.timeout_case:06d}" not in f["cases"]:
            problem(f"case {args.timeout_case} is not in the file")
    return report()


def check_timeout_case(case, where, args):
    if args.timeout_case is None or int(case.attrs["index"]) != args.timeout_case:
        problem(f"{where}: status timeout, but no timeout was expected here")
        return
    for name in ("timeout_message", "timeout_s"):
        if name not in case.attrs:
            problem(f"{where}: timeout case without '{name}'")
    finished = len(case["points"]) if "points" in case else 0
    if args.timeout_points is not None and finished != args.timeout_points:
        problem(f"{where}: {finished} sizes kept from before the hang, expected {args.timeout_points}")
    if finished:  # the sizes that finished before the hang must be whole
        check_points(case, where, int(case["group_of_rank"].shape[0]))
        check_recomputed_stats(case, where, int(case["group_of_rank"].shape[0]))
    ranks = sorted(int(r) for r in case["not_arrived"][:]) if "not_arrived" in case else None
    wanted = sorted(int(r) for r in args.not_arrived.split(",")) if args.not_arrived else None
    if wanted is not None and ranks != wanted:
        problem(f"{where}: not_arrived {ranks}, expected {wanted}")


def check_correctness(case, where, failed_rank):
    wrong = sum(int(case["points"][p]["wrong_per_rank"][:].sum()) for p in case["points"])
    if int(case.attrs["wrong_elements"]) != wrong:
        problem(f"{where}: wrong_elements {case.attrs['wrong_elements']}, the points add up to {wrong}")
    status = text(case.attrs["status"])
    if failed_rank is None:
        if wrong or status != "ok":
            problem(f"{where}: status {status} with {wrong} wrong elements, expected ok and 0")
        return
    if status not in ("failed",):
        problem(f"{where}: status {status}, expected failed (rank {failed_rank} was corrupted)")
    for p in case["points"]:
        per_rank = case["points"][p]["wrong_per_rank"][:]
        others = np.delete(per_rank, failed_rank)
        if per_rank[failed_rank] == 0 or others.any():
            problem(f"{where} point {p}: wrong per rank {per_rank.tolist()}, expected only rank {failed_rank}")


def check_coverage(seen, args):
    wanted = {
        "collective": ALL_COLLECTIVES if args.collectives == "all" else (args.collectives or "").split(","),
        "topology": (args.topologies or "").split(","),
        "placement": ["in-place", "out-of-place"] if args.placements == "both" else (args.placements or "").split(","),
        "dtype": (args.dtypes or "").split(","),
    }
    for key, values in wanted.items():
        missing = [v for v in values if v and v not in seen[key]]
        if missing:
            problem(f"no case with {key} {', '.join(missing)} (found {sorted(seen[key])})")


def report():
    for p in problems[:50]:
        print("check_results:", p, file=sys.stderr)
    if len(problems) > 50:
        print(f"check_results: ... and {len(problems) - 50} more", file=sys.stderr)
    print(f"check_results: {'FAIL' if problems else 'OK'} ({len(problems)} problem(s))")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
