#!/usr/bin/python3
"""Checks a preflight results file against results-schema/SPEC.md, reading it with h5py
(not with preflight's own reader), and recomputes its figures from the raw samples: every
per-iteration and back-to-back time statistic from points/<P>/samples and points/<P>/batched,
and each family's own figures from its samples, counters and starts: comm's count, algbw,
busbw and their batched_ twins; storage's and a restore's agg_bw, iops, release_spread,
latencies and rank rates; a save's figures; the dataloader's rates, stages and AU; the step's
step_s, samples_per_s, compute_s, comm_exposed_s and data columns; matmul's flop, tflops,
peak_fraction, rank and span rates; memory's bytes_moved, bw, node_bw, peak_fraction and rank
rates; fabric's round_trip, pair_latency and pair_bandwidth. A recomputed figure must equal the
stored one as a finite number; NaN equals nothing, not even NaN, except where SPEC.md says the
figure is NaN and the reason holds (recomputed()). Relations the writer makes true by
construction (a sum of parts, bytes = ops x block, sorted percentiles, interval sums, a span's
minimum of 0, hand-off before durable, images + errors = batches x size) are still checked, but
reported as "consistency (holds by construction)": they catch a damaged file, never a wrong
figure, and are no evidence that a figure is right.
Every attribute with a unit in SPEC.md must carry it in X.units, and stop_reason must be one
of the values SPEC.md lists. The file's integrity protection too (SPEC.md, "Integrity"):
superblock version 2, fixed-length strings only, every dataset that holds values chunked with
a Fletcher-32 checksum.
Every case's v2 declaration is checked too: each attribute of "Case meaning" and "Column
meaning" present with an allowed value, exactly one headline column, per-iteration sources
that name existing counters, an x_axis that names an existing column, and for the comm and
storage families the very values SPEC.md's tables give.

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
SHARED_CLOCK = False  # --shared-clock: every rank on one host, so clock_error_s must be 0
STOP_REASONS = None  # from SPEC.md's stats table (stop_reasons)
STATS_HEADING = "Stats columns (`/cases/<NNNNNN>/stats/<column>`)"
ALL_COLLECTIVES = ["allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall", "sendrecv"]
problems = []
SPEC = None  # SPEC.md's tables (parse_spec), for checks that read a table of their own



def check_row_counts(case, stats, row, members, pg, here):
    """What a stats row says of its group that both a full and a summary point record: its ranks,
    its wrong elements, and comm's sizes and bandwidths."""
    if int(stats["group_ranks"][row]) != len(members):
        problem(f"{here}: group_ranks {stats['group_ranks'][row]}, group_of_rank says {len(members)}")
    if int(stats["wrong"][row]) != int(pg["wrong_per_rank"][:][members].sum()):
        problem(f"{here}: wrong does not match wrong_per_rank")
    if text(case.attrs.get("family", "")) == "comm":
        check_bandwidth(case, stats, row, here)
        check_size(case, stats, row, here, REQUESTED_SIZES)

def problem(message):
    problems.append(message)


def consistency(message):
    """A relation the writer's own code makes true by construction (a sum of parts, bytes = ops x
    block, sorted percentiles, a span's minimum of 0, ...). It can catch a damaged or hand-made
    file, never a wrong figure, so it is reported as such and is no evidence that a figure is
    right: the figures are checked by recomputing them (recomputed())."""
    problems.append(f"consistency (holds by construction): {message}")


def recomputed(here, column, got, value, nan_because=None):
    """A stored figure against the one recomputed from the samples and counters. NaN equals
    nothing, not even NaN: where SPEC.md says a figure is NaN the caller names the condition
    (nan_because, given only where it holds) and then both must be NaN; elsewhere both must be
    the same finite number."""
    got, value = float(got), float(value)
    if nan_because:
        if not (np.isnan(got) and np.isnan(value)):
            problem(f"{here}: {column} {got} but the samples and counters give {value} "
                    f"(SPEC.md: NaN {nan_because})")
    elif not close(got, value):
        why = ": NaN where SPEC.md allows none" if np.isnan(got) or np.isnan(value) else ""
        problem(f"{here}: {column} {got} but the samples and counters give {value}{why}")


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
        if not unit:
            continue
        unit_name = name + ".units"  # SPEC: an attribute X with a unit has a companion X.units
        if unit_name not in obj.attrs:
            problem(f"{where}: missing attribute '{unit_name}' (SPEC.md gives {name} the unit {unit})")
        elif text(obj.attrs[unit_name]) != unit:
            problem(f"{where}@{unit_name}: '{text(obj.attrs[unit_name])}', SPEC.md says '{unit}'")


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
    """Equal but for rounding. NaN is close to nothing: where SPEC.md allows NaN the caller says so."""
    return bool(np.isfinite(a) and np.isfinite(b) and abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300))


def slowest_per_row(matrix, members):
    """Each row's largest value over the members' columns (the group's time of one iteration or
    block), NaN where none of them has a value: np.nanmax without its warning."""
    values = matrix[:, members]
    slowest = np.where(np.isnan(values), -np.inf, values).max(axis=1, initial=-np.inf)
    slowest[slowest == -np.inf] = np.nan
    return slowest


def stop_reasons(spec):
    """The values SPEC.md's stats table lists for stop_reason: "why timing stopped: a, b or c"."""
    row = next(r for r in spec[STATS_HEADING][0]["rows"] if r["name"] == "stop_reason")
    return {word for word in re.findall(r"[a-z_]+", row["meaning"].split(":", 1)[1]) if word != "or"}


def check_time_stats(stats, row, slowest, here):
    """The per-iteration time statistics of a stats row follow from its iterations' times."""
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


def stats_rows(case, where):
    """Each stats row of a case with its point group, its group's members and where it is, its
    stop_reason checked: what the checks of full and of summary points walk alike."""
    # Each column read once (a row read from h5py costs a file access; 150 cases of 36 rows took
    # most of the checker's time).
    stats = {name: column[:] for name, column in case["stats"].items()}
    groups = case["group_of_rank"][:]
    for row in range(stats["point"].shape[0]):
        point, group = int(stats["point"][row]), int(stats["group"][row])
        pg = case["points"][f"{point:04d}"]
        members = np.flatnonzero(groups >= 0) if group < 0 else np.flatnonzero(groups == group)
        here = f"{where} point {point} group {group}"
        reason = text(stats["stop_reason"][row])
        if reason not in STOP_REASONS:
            problem(f"{here}: stop_reason '{reason}' is not one of {sorted(STOP_REASONS)}")
        yield stats, row, group, pg, members, here


def check_recomputed_stats(case, where, world):
    """The stored statistics must follow from the stored samples."""
    for stats, row, _, pg, members, here in stats_rows(case, where):
        slowest = slowest_per_row(pg["samples"][:], members)
        check_time_stats(stats, row, slowest, here)
        batched_columns = ("batched_time_median", "batched_time_min", "batched_time_max")
        if pg["batched"].shape[0] == 0:  # no back-to-back phase: SPEC says NaN
            for column in batched_columns:
                if not np.isnan(float(stats[column][row])):
                    problem(f"{here}: {column} {stats[column][row]} without back-to-back samples (SPEC: NaN)")
        else:
            batched = slowest_per_row(pg["batched"][:], members)
            for column, value in zip(batched_columns, (np.median(batched), batched.min(), batched.max())):
                if not close(float(stats[column][row]), float(value)):
                    problem(f"{here}: {column} {stats[column][row]} but the batched samples give {value}")
        check_row_counts(case, stats, row, members, pg, here)
        if text(case.attrs.get("family", "")) == "storage" or is_restore(case):
            check_storage_row(case, stats, row, members, here)
        elif text(case.attrs.get("family", "")) == "checkpoint":
            check_save_row(case, stats, row, members, here)
        elif text(case.attrs.get("family", "")) == "dataloader":
            check_dataloader_row(case, stats, row, members, here)
        elif text(case.attrs.get("family", "")) in RATE_ROWS:
            RATE_ROWS[text(case.attrs["family"])](case, stats, row, members, here)


SUMMARY_HEADING = "Soak (on `/`)"
SAMPLES_FORMS = ("full", "summary")


def is_summary(case):
    """Whether the case's points are summaries (SPEC.md "Summary points"; no attribute: full)."""
    form = text(case.attrs.get("samples", "full"))
    if form not in SAMPLES_FORMS:
        problem(f"{case.name}: samples '{form}' is not one of {SAMPLES_FORMS}")
    return form == "summary"


def check_per_rank_row(pg, name, world, idle, here, unit):
    """A summary's 1 x world_size row: NaN exactly where a rank idled, a positive time elsewhere."""
    ds = pg[name]
    if ds.shape != (1, world):
        problem(f"{here}/{name}: shape {ds.shape}, expected {(1, world)}")
        return
    if text(ds.attrs.get("units", "?")) != unit:
        problem(f"{here}/{name}: units '{text(ds.attrs.get('units', ''))}', SPEC.md says '{unit}'")
    values = ds[0]
    if not np.all(np.isnan(values[idle])):
        problem(f"{here}/{name}: idle ranks have values")
    active = values[~idle]
    if not (np.all(np.isfinite(active)) and np.all(active > 0)):
        problem(f"{here}/{name}: active ranks have missing or non-positive values")


def check_summary_point(pg, here, world, idle, iterations, blocks, units):
    for name in ("samples", "batched", "starts", "counters"):
        if name in pg:
            problem(f"{here}: a summary point holds {name} (SPEC.md, Summary points)")
    if "rank_time_median" not in pg:
        problem(f"{here}: missing rank_time_median")
    else:
        check_per_rank_row(pg, "rank_time_median", world, idle, here, units["rank_time_median"])
    if ("rank_batched_median" in pg) != (blocks > 0):
        problem(f"{here}: rank_batched_median {'present' if blocks == 0 else 'missing'} with {blocks} back-to-back blocks")
    elif blocks > 0:
        check_per_rank_row(pg, "rank_batched_median", world, idle, here, units["rank_batched_median"])
    slowest = pg["iteration_slowest"][:] if "iteration_slowest" in pg else None
    if slowest is None or slowest.shape != (iterations,):
        problem(f"{here}: iteration_slowest missing or of shape {None if slowest is None else slowest.shape}, "
                f"expected ({iterations},)")
    counters = pg.get("counter_summaries", {})
    for name in counters:
        if counters[name].shape != (2, iterations):
            problem(f"{here}/counter_summaries/{name}: shape {counters[name].shape}, expected {(2, iterations)}")
    for name in pg.get("fault_cells", {}):
        cells = pg["fault_cells"][name][:]
        if name not in counters or cells.ndim != 2 or cells.shape[1] != 3 or cells.shape[0] == 0:
            problem(f"{here}/fault_cells/{name}: shape {cells.shape} or no counter summary of it")
            continue
        if not (np.all((cells[:, 0] >= 0) & (cells[:, 0] < iterations)) and
                np.all((cells[:, 1] >= 0) & (cells[:, 1] < world)) and np.all(cells[:, 2] != 0)):
            problem(f"{here}/fault_cells/{name}: a cell outside the point's iterations or ranks, or of value 0")
    for name in pg.get("series", {}):
        if float(pg["series"][name].attrs.get("interval_s", -1)) != 0:
            problem(f"{here}/series/{name}: a summary point keeps event series only (interval_s 0)")


def check_summary_points(case, where, world):
    """A case written as summaries (SPEC.md, "Soak", "Summary points"): each point's datasets in
    their declared shapes, NaN exactly where a rank idled, no per-iteration x per-rank matrix; the
    watched series' summaries on the case."""
    groups = case["group_of_rank"][:]
    stats = case["stats"]
    units = {r["name"]: r["units"] for r in SPEC[SUMMARY_HEADING][2]["rows"]}
    for point in sorted(set(int(p) for p in stats["point"][:])):
        rows = np.flatnonzero(stats["point"][:] == point)
        here = f"{where} point {point}"
        check_summary_point(case["points"][f"{point:04d}"], here, world, groups < 0,
                            int(stats["iterations"][rows[0]]), int(stats["batch_blocks"][rows[0]]), units)
    for name in case.get("watched", {}):
        ds = case["watched"][name]
        if ds.shape != (4, world) or "watch" not in ds.attrs:
            problem(f"{where}/watched/{name}: shape {ds.shape} (expected {(4, world)}) or no watch attribute")


def check_summary_stats(case, where):
    """What a summary still recomputes: the all-groups time statistics from iteration_slowest,
    every row's group_ranks and wrong, and comm's sizes and bandwidths (from its stats)."""
    for stats, row, group, pg, members, here in stats_rows(case, where):
        if group < 0 and "iteration_slowest" in pg and len(pg["iteration_slowest"]):
            check_time_stats(stats, row, pg["iteration_slowest"][:], here)
        check_row_counts(case, stats, row, members, pg, here)


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
    if "starts" not in pg:
        problem(f"{here}: no points/{int(stats['point'][row]):04d}/starts: a span cannot be recomputed")
        return
    # SPEC, "Spans across ranks": last finish - first start, on rank 0's clock.
    starts = pg["starts"][:][:, members]
    span = (starts + times).max(axis=1) - starts.min(axis=1)
    expected = {
        "agg_bw": median(counters["bytes"].sum(axis=1) / span / 1e9),
        "iops": median(counters["ops"].sum(axis=1) / span),
        "release_spread": median(starts.max(axis=1) - starts.min(axis=1)),
        "lat_p50": median(counters["lat_p50"].ravel()),
        "lat_p99": median(counters["lat_p99"].ravel()),
        "lat_p999": median(counters["lat_p999"].ravel()),
        "resident_before_max": nanmax_or_nan(counters["resident_before"]),
        "bytes_total": float(counters["bytes"].sum()),
    }
    per_rank = [median(counters["bytes"][:, k] / times[:, k] / 1e9) for k in range(len(members))]
    expected["rank_bw_min"] = min(per_rank)
    expected["rank_bw_median"] = median(per_rank)
    # SPEC.md's NaNs: a latency where no rank read anything; resident_before_max where no
    # resident_before was measured.
    nan_because = {"resident_before_max": "no resident_before was measured"
                   if np.all(np.isnan(counters["resident_before"])) else None}
    for column in ("lat_p50", "lat_p99", "lat_p999"):
        nan_because[column] = "no rank read anything" if not np.any(counters["ops"] > 0) else None
    for column, value in expected.items():
        recomputed(here, column, stats[column][row], value, nan_because.get(column))
    block = int(stats["block_bytes"][row])
    if not np.allclose(counters["bytes"], counters["ops"] * block):
        consistency(f"{here}: bytes is not ops x block_bytes")
    if float(case.attrs["stonewall_s"]) == 0 and not np.all(counters["bytes"] == int(case.attrs["bytes_per_rank"])):
        problem(f"{here}: a size-bounded read did not read bytes_per_rank on every rank")
    read = counters["ops"] > 0  # a time-bounded read may end before a rank's first read
    if (not np.all(counters["lat_p50"][read] <= counters["lat_p99"][read])
            or not np.all(counters["lat_p99"][read] <= counters["lat_p999"][read])):
        consistency(f"{here}: latency percentiles out of order")
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


def is_restore(case):
    return text(case.attrs.get("family", "")) == "checkpoint" and text(case.attrs.get("phase", "")) == "restore"


def check_save_row(case, stats, row, members, here):
    """Every save figure must follow from the samples, counters and starts (SPEC: The
    checkpoint family)."""
    pg = case["points"][f"{int(stats['point'][row]):04d}"]
    times = pg["samples"][:][:, members]
    c = {name: pg["counters"][name][:][:, members] for name in ("bytes", "handoff_s", "durable_s")}
    starts = pg["starts"][:][:, members]
    span = (starts + times).max(axis=1) - starts.min(axis=1)
    handed = (starts + c["handoff_s"]).max(axis=1) - starts.min(axis=1)
    total = c["bytes"].sum(axis=1)
    per_rank = [median(c["bytes"][:, k] / times[:, k] / 1e9) for k in range(len(members))]
    expected = {
        "save_bw": median(total / span / 1e9),
        "handoff_bw": median(total / handed / 1e9),
        "blocking_s": median(span),
        "handoff_s": median(handed),
        "rank_bw_min": min(per_rank),
        "rank_bw_median": median(per_rank),
        "bytes_total": float(c["bytes"].sum()),
        "release_spread": median(starts.max(axis=1) - starts.min(axis=1)),
    }
    for column, value in expected.items():
        recomputed(here, column, stats[column][row], value)
    if not np.all(c["bytes"] == int(case.attrs["bytes_per_rank"])):
        problem(f"{here}: a save did not write bytes_per_rank on every rank")
    durable = int(case.attrs["durable"]) == 1
    if durable != bool(np.all(np.isfinite(c["durable_s"]))) or (not durable and not np.all(np.isnan(c["durable_s"]))):
        problem(f"{here}: durable {int(durable)} but counters/durable_s is {c['durable_s'].tolist()}")
    finish = c["durable_s"] if durable else c["handoff_s"]
    if not np.all(c["handoff_s"] <= finish) or not np.all(finish <= times * (1 + 1e-9)):
        consistency(f"{here}: handoff_s <= durable_s <= the rank's own time does not hold")
    if handed.max() > span.max() * (1 + 1e-9):
        consistency(f"{here}: a hand-off after the save's finish")


def own_medians(pg, members):
    """Each member's median time over the iterations (the rank's own rate's denominator)."""
    return [float(np.median(pg["samples"][:][:, k])) for k in members]


def check_timed_rate(here, stats, row, column, work, scale):
    """column = work / time_median / scale and, with a back-to-back phase, its batched_ twin from
    batched_time_median (NaN without one)."""
    recomputed(here, column, stats[column][row], work / float(stats["time_median"][row]) / scale)
    twin = "batched_" + column
    if twin not in stats:
        return
    if int(stats["batch_blocks"][row]) > 0:
        recomputed(here, twin, stats[twin][row], work / float(stats["batched_time_median"][row]) / scale)
    else:
        recomputed(here, twin, stats[twin][row], float("nan"), "without a back-to-back phase")


def check_matmul_row(case, stats, row, members, here):
    """SPEC: The matmul family. flop = 2 m n k; tflops (and its twin) from the group's time,
    peak_fraction against peak_tflops, each rank's own rate, span_tflops from the starts."""
    pg = case["points"][f"{int(stats['point'][row]):04d}"]
    m, n, k = (int(stats[c][row]) for c in ("gemm_m", "gemm_n", "gemm_k"))
    flop = 2 * m * n * k
    if int(stats["flop"][row]) != flop:
        problem(f"{here}: flop {int(stats['flop'][row])}, 2 m n k is {flop}")
    check_timed_rate(here, stats, row, "tflops", flop, 1e12)
    peak = float(case.attrs["peak_tflops"])
    unknown = "peak_tflops unknown" if np.isnan(peak) else None
    recomputed(here, "peak_fraction", stats["peak_fraction"][row], float(stats["tflops"][row]) / peak, unknown)
    if int(stats["batch_blocks"][row]) > 0:
        recomputed(here, "batched_peak_fraction", stats["batched_peak_fraction"][row],
                   float(stats["batched_tflops"][row]) / peak, unknown)
    rates = [flop / t / 1e12 for t in own_medians(pg, members)]
    recomputed(here, "rank_tflops_min", stats["rank_tflops_min"][row], min(rates))
    recomputed(here, "rank_tflops_median", stats["rank_tflops_median"][row], median(rates))
    if "starts" in pg:
        starts, times = pg["starts"][:][:, members], pg["samples"][:][:, members]
        span = (starts + times).max(axis=1) - starts.min(axis=1)
        recomputed(here, "span_tflops", stats["span_tflops"][row], flop / median(span) / 1e12)
    else:
        recomputed(here, "span_tflops", stats["span_tflops"][row], float("nan"), "without starts (GPU)")


MEMORY_ARRAYS = {"copy": 2, "scale": 2, "add": 3, "triad": 3, "hbm_triad": 3, "d2d": 2, "h2d": 1,
                 "d2h": 1, "p2p": 1}  # SPEC: The memory family, arrays each kernel moves


def check_memory_row(case, stats, row, members, here):
    """SPEC: The memory family. bytes_moved from the array size and the kernel; bw (and twin) from
    the group's time, node_bw = bw x ranks_per_node, peak_fraction against memory_peak, each
    rank's own rate."""
    pg = case["points"][f"{int(stats['point'][row]):04d}"]
    op = text(case.attrs["memory_op"])
    moved = int(stats["array_bytes"][row]) // 8 * 8 * MEMORY_ARRAYS.get(op, 0)
    if int(stats["bytes_moved"][row]) != moved:
        problem(f"{here}: bytes_moved {int(stats['bytes_moved'][row])}, {op} over arrays of "
                f"{int(stats['array_bytes'][row])} B moves {moved}")
    check_timed_rate(here, stats, row, "bw", moved, 1e9)
    per_node = int(case.attrs["ranks_per_node"])
    peak = float(case.attrs["memory_peak"])
    unknown = "memory_peak unknown" if np.isnan(peak) else None
    for prefix in ("", "batched_") if int(stats["batch_blocks"][row]) > 0 else ("",):
        node = float(stats[prefix + "bw"][row]) * per_node
        recomputed(here, prefix + "node_bw", stats[prefix + "node_bw"][row], node)
        recomputed(here, prefix + "peak_fraction", stats[prefix + "peak_fraction"][row], node / peak, unknown)
    rates = [moved / t / 1e9 for t in own_medians(pg, members)]
    recomputed(here, "rank_bw_min", stats["rank_bw_min"][row], min(rates))
    recomputed(here, "rank_bw_median", stats["rank_bw_median"][row], median(rates))


def check_fabric_row(case, stats, row, members, here):
    """SPEC: The fabric family. Latency: round_trip is the time, pair_latency half of it;
    bandwidth: bytes the pair sent (window messages, both ways when bidirectional) / the time."""
    test = text(case.attrs["pair_test"])
    if test == "latency":
        back_to_back = int(stats["batch_blocks"][row]) > 0
        for prefix in ("", "batched_"):
            time = float(stats[prefix + "time_median"][row])
            without = None if prefix == "" or back_to_back else "without a back-to-back phase"
            for column, value in ((prefix + "round_trip", time), (prefix + "pair_latency", time / 2)):
                if column in stats or not without:  # a case without that phase may have no twin
                    recomputed(here, column, stats[column][row], value, without)
        return
    ways = 2 if test == "bidirectional" else 1
    sent = ways * int(case.attrs["window"]) * int(stats["size_bytes"][row])
    check_timed_rate(here, stats, row, "pair_bandwidth", sent, 1e9)


RATE_ROWS = {"matmul": check_matmul_row, "memory": check_memory_row, "fabric": check_fabric_row}


DATALOADER_SECTION = "The dataloader family"
DATALOADER_STAGES = ("read_s", "decode_s", "augment_s", "batch_s")


def check_dataloader_row(case, stats, row, members, here):
    """Every pipeline figure must follow from the samples and counters (SPEC: The dataloader
    family): rates over the slowest rank's time, AU from the lowest rank, stages from the
    median rank."""
    pg = case["points"][f"{int(stats['point'][row]):04d}"]
    times = pg["samples"][:][:, members]
    c = {name: pg["counters"][name][:][:, members] for name in pg["counters"]}
    slowest = times.max(axis=1)
    a = case.attrs
    compute, target, batch = float(a["compute_per_batch_s"]), float(a["au_target"]), int(a["batch_size"])
    au = median((c["compute_s"] / times).min(axis=1)) if compute > 0 else float("nan")
    met = au >= target
    rate = median(c["images"].sum(axis=1) / slowest)
    worker_s = sum(c[n].sum(axis=1) for n in DATALOADER_STAGES) / c["images"].sum(axis=1)
    expected = {
        "images_per_s": rate,
        "mb_per_s": median(c["bytes"].sum(axis=1) / slowest / 1e6),
        "au": au,
        "au_met": 1.0 if met else 0.0,
        "valid_images_per_s": rate if met else float("nan"),
        "workers_needed": float(np.ceil(target * batch / compute * median(worker_s))) if compute > 0 else -1.0,
        "batch_p50_s": median(np.median(c["batch_p50_s"], axis=1)),
        "batch_p95_s": median(c["batch_p95_s"].max(axis=1)),
        "decode_errors": float(c["decode_errors"].sum()),
        "resident_before_max": nanmax_or_nan(c["resident_before"]),
    }
    for name in DATALOADER_STAGES:
        expected[name] = median(np.median(c[name], axis=1))
    # SPEC.md's NaNs: au without compute, valid_images_per_s where AU was not met,
    # resident_before_max where no resident_before was measured.
    nan_because = {"au": "without compute" if compute <= 0 else None,
                   "valid_images_per_s": "where AU was not met" if not met else None,
                   "resident_before_max": "no resident_before was measured"
                   if np.all(np.isnan(c["resident_before"])) else None}
    for column, value in expected.items():
        recomputed(here, column, stats[column][row], value, nan_because.get(column))
    wanted = int(a["batches_per_iteration"]) * batch
    if not np.all(c["images"] + c["decode_errors"] == wanted):
        consistency(f"{here}: images + decode_errors is not batches_per_iteration x batch_size ({wanted}) on every rank")
    if compute > 0 and not np.all(c["compute_s"] >= compute * int(a["batches_per_iteration"]) * (1 - 1e-9)):
        problem(f"{here}: compute_s below batches x compute_per_batch_s: the emulated accelerator slept less")
    if not np.all(c["compute_s"] + c["stall_s"] <= times * (1 + 1e-9)):
        consistency(f"{here}: compute_s + stall_s exceeds the rank's own time")


def check_dataloader_case(case, where, spec, bad_images, bad_names):
    """A dataloader case has the family's attributes, stats columns and counters; the bad
    images planted are counted and named."""
    tables = spec[DATALOADER_SECTION]
    check_attributes(case, tables[0]["rows"], where)
    check_columns(case["stats"], tables[1]["rows"], where + "/stats", len(case["stats"]["point"]))
    check_spec_meaning(case["stats"], tables[1]["rows"], where + "/stats", True)
    world = case["group_of_rank"].shape[0]
    for p in case["points"]:
        check_counters(case, p, tables[2]["rows"], where, world)
        check_spec_meaning(case["points"][p]["counters"], tables[2]["rows"], f"{where} point {p}/counters", False)
    if bad_images is not None and int(case.attrs["bad_images"]) != bad_images:
        problem(f"{where}: bad_images {case.attrs['bad_images']}, {bad_images} were planted")
    names = text(case.attrs.get("bad_image_names", ""))
    for name in filter(None, (bad_names or "").split(",")):
        if name not in names:
            problem(f"{where}: bad_image_names does not name {name}: '{names}'")


STEP_SECTION = "The step family"


def check_step_case(case, where, spec):
    """A step case has the family's tables; its figures follow from the samples and counters,
    and its layout from the workload (SPEC: The step family)."""
    tables = spec[STEP_SECTION]
    check_attributes(case, tables[0]["rows"], where)
    stats = case["stats"]
    check_columns(stats, tables[1]["rows"], where + "/stats", len(stats["point"]))
    check_spec_meaning(stats, tables[1]["rows"], where + "/stats", True)
    world = case["group_of_rank"].shape[0]
    a = case.attrs
    for p in case["points"]:
        check_counters(case, p, tables[2]["rows"], where, world)
    groups = case["group_of_rank"][:]
    single_group = len(set(groups[groups >= 0].tolist())) == 1
    for row in range(len(stats["point"])):
        group = int(stats["group"][row])
        if group < 0 and not single_group:
            continue  # all groups together: the generic checks' row
        # A case of one group writes only the all-groups row: that group's figures.
        members = [r for r in range(world) if (groups[r] >= 0 if group < 0 else groups[r] == group)]
        p = f"{int(stats['point'][row]):04d}"
        pg = case["points"][p]
        times = pg["samples"][:][:, members]
        c = {name: pg["counters"][name][:][:, members] for name in pg["counters"]}
        here = f"{where} point {p} group {group}"
        step = median(times.max(axis=1))
        expected = {"step_s": step, "samples_per_s": int(a["global_batch"]) / step,
                    "compute_s": median(c["compute_s"].mean(axis=1)),
                    "comm_exposed_s": median(c["comm_exposed_s"].mean(axis=1))}
        fed = text(a["data_dir"]) != ""
        data = c["data_exposed_s"] if fed else np.zeros_like(times)
        if fed:
            expected["data_exposed_s"] = median(data.mean(axis=1))
            expected["data_busy_s"] = median(c["data_busy_s"].mean(axis=1))
            expected["data_cpu_share"] = median(c["data_cpu_share"].mean(axis=1))
            share = c["data_cpu_share"]
            if not np.all((share >= 0) & (share <= 1)):
                problem(f"{here}: a data_cpu_share outside 0 to 1")
            resident = c["data_resident_before"]
            if np.all(np.isnan(resident)):
                problem(f"{here}: a feed but no data_resident_before")
            elif text(a["data_cache"]) == "evicted" and np.nanmax(resident) > 0.05:
                problem(f"{here}: data_cache evicted but {np.nanmax(resident)} of a step's images were cached")
            if int(a["data_workers"]) < 1 or text(a["data_engine"]) == "":
                problem(f"{here}: a feed without its workers or engine")
        elif not all(np.isnan(float(stats[n][row])) and np.all(np.isnan(c[n]))
                     for n in ("data_exposed_s", "data_busy_s", "data_cpu_share")):
            problem(f"{here}: a data column is not NaN without a data feed")
        for column, value in expected.items():
            recomputed(here, column, stats[column][row], value)
        if not np.all(c["compute_s"] + c["comm_exposed_s"] + data <= times * (1 + 1e-6)):
            consistency(f"{here}: compute_s + comm_exposed_s + data_exposed_s exceeds the rank's own time")
        if not np.all(c["compute_s"] >= 0):
            problem(f"{here}: a negative compute_s")
        dp, acc = int(stats["data_parallel"][row]), int(stats["accumulation"][row])
        if dp * acc * int(a["micro_batch"]) != int(a["global_batch"]):
            consistency(f"{here}: data_parallel x accumulation x micro_batch is not global_batch")
        if dp * int(a["tensor_parallel"]) * int(a["pipeline_parallel"]) != len(members):
            consistency(f"{here}: data_parallel x tensor x pipeline is not the group's {len(members)} ranks")


CHECKPOINT_SECTION = "The checkpoint family"


def check_checkpoint_case(case, where, spec, world):
    """Every checkpoint case has the family's attributes; a save its own tables, a restore the
    storage family's (SPEC: The checkpoint family)."""
    tables = spec[CHECKPOINT_SECTION]
    check_attributes(case, tables[0]["rows"], where)
    phase = text(case.attrs.get("phase", ""))
    if text(case.attrs.get("stage", "")) != "checkpoint":
        problem(f"{where}: stage '{text(case.attrs.get('stage', ''))}', a checkpoint case's is checkpoint")
    if phase == "restore":
        if not text(case.attrs["name"]).startswith("restore "):
            problem(f"{where}: a restore case's name does not start with 'restore'")
        check_storage_case(case, where, spec, world)
        return
    if phase != "save":
        problem(f"{where}: phase '{phase}' is not save or restore")
        return
    check_attributes(case, tables[1]["rows"], where)
    check_columns(case["stats"], tables[2]["rows"], where + "/stats", len(case["stats"]["point"]))
    check_spec_meaning(case["stats"], tables[2]["rows"], where + "/stats", True)
    meaning = {r["attribute"]: r["value"] for r in tables[4]["rows"]}
    for name in ("stage", "x_axis", "bands", "scaling", "series", "peer_slow", "peer_late", "work_counter", "quality", "min_samples"):
        if name in case.attrs and text(case.attrs[name]) != meaning[name]:
            problem(f"{where}: {name} '{text(case.attrs[name])}', SPEC.md says '{meaning[name]}' for a save")
    subject, layout = text(case.attrs.get("subject", "")), text(case.attrs.get("layout", ""))
    if text(case.attrs["name"]) != f"{subject} {layout}":
        problem(f"{where}: subject '{subject}' is not the name without its layout '{layout}'")
    for p in case["points"]:
        check_counters(case, p, tables[3]["rows"], where, world)
        check_spec_meaning(case["points"][p]["counters"], tables[3]["rows"], f"{where} point {p}/counters", False)
    check_span_case(case, where, spec, world)


def check_checkpoint_matrix(cases, wanted):
    """Every wanted save and restore combination ran: 'save:ENGINE:LAYOUT:DURABLE' and
    'restore:ENGINE:LAYOUT:CACHE' entries."""
    seen = set()
    for case in cases:
        a = case.attrs
        if text(a.get("family", "")) != "checkpoint":
            continue
        phase = text(a["phase"])
        last = text(a["durable"]) if phase == "save" else text(a["cache_state"])
        seen.add(f"{phase}:{text(a['engine'])}:{text(a['file_layout'])}:{last}")
    for w in wanted.split(","):
        if w not in seen:
            problem(f"no checkpoint case {w} (found {sorted(seen)})")


SCHEMA_VERSION = None  # from SPEC.md's title (spec_version); a unit test ties it to layout.hpp


def spec_version(path):
    """The version SPEC.md's first line states: "# preflight results file, schema version N"."""
    found = re.search(r"schema version (\d+)", open(path, encoding="utf-8").readline())
    return int(found.group(1))


STAGES = {"correctness", "data_in", "compute", "communication", "checkpoint", "step"}
BANDS = {"size_bands", "each_point"}
SCALINGS = {"aggregate", "per_rank", "none"}
DIRECTIONS = {"higher", "lower", "none"}
KINDS = {"label", "time", "data_rate", "work_rate", "count", "fraction"}
PER_ITERATION = {"none", "time", "inverse_time", "counter_rate", "counter_median"}
QUALITY_RULES = {"served_from_memory", "feeds_accelerator"}
FAMILY_SECTIONS = {"comm": "The comm family", "storage": "The storage family",
                   "dataloader": "The dataloader family", "step": STEP_SECTION}


def counter_names(case):
    """Counters every point of the case has."""
    names = None
    for p in case.get("points", {}):
        here = set(case["points"][p].get("counters", {}).keys()) | \
            set(case["points"][p].get("counter_summaries", {}).keys())
        names = here if names is None else names & here
    return names or set()


def check_declared_dataset(ds, where, stats_column):
    """The attributes of "Column meaning" on one stats column (all) or counter/series (four)."""
    names = ["units", "description", "direction", "kind"]
    if stats_column:
        names += ["headline", "per_iteration", "per_iteration_source"]
    for name in names:
        if name not in ds.attrs:
            problem(f"{where}: missing attribute '{name}'")
    if "better" in ds.attrs:
        problem(f"{where}: has v1's 'better' attribute (v2 writes 'direction')")
    if text(ds.attrs.get("direction", "none")) not in DIRECTIONS:
        problem(f"{where}: direction '{text(ds.attrs['direction'])}' is not one of {sorted(DIRECTIONS)}")
    if text(ds.attrs.get("kind", "label")) not in KINDS:
        problem(f"{where}: kind '{text(ds.attrs['kind'])}' is not one of {sorted(KINDS)}")
    if stats_column:
        if int(ds.attrs.get("headline", 0)) not in (0, 1):
            problem(f"{where}: headline {ds.attrs['headline']} is not 0 or 1")
        if text(ds.attrs.get("per_iteration", "none")) not in PER_ITERATION:
            problem(f"{where}: per_iteration '{text(ds.attrs['per_iteration'])}' is not one of {sorted(PER_ITERATION)}")


def check_declaration(case, where, spec, world_nodes):
    """The case's v2 declaration (SPEC: Case meaning, Column meaning)."""
    check_attributes(case, spec["Case meaning (on `/cases/<NNNNNN>`)"][0]["rows"], where)
    a = case.attrs
    for name, allowed in (("stage", STAGES), ("bands", BANDS), ("scaling", SCALINGS)):
        if name in a and text(a[name]) not in allowed:
            problem(f"{where}: {name} '{text(a[name])}' is not one of {sorted(allowed)}")
    for name in ("peer_slow", "peer_late"):
        if name in a and int(a[name]) not in (0, 1):
            problem(f"{where}: {name} {a[name]} is not 0 or 1")
    if "min_samples" in a and int(a["min_samples"]) < 1:
        problem(f"{where}: min_samples {a['min_samples']} is below 1")
    for rule in filter(None, text(a.get("quality", "")).split(",")):
        if rule not in QUALITY_RULES:
            problem(f"{where}: quality rule '{rule}' is not one of {sorted(QUALITY_RULES)}")
    if "span_nodes" in a and "group_of_rank" in case:
        groups = case["group_of_rank"][:]
        spanned = len({int(world_nodes[r]) for r in np.flatnonzero(groups == 0)})
        if int(a["span_nodes"]) != spanned:
            problem(f"{where}: span_nodes {a['span_nodes']}, group 0's ranks are on {spanned} node(s)")
    counters = counter_names(case)
    work = text(a.get("work_counter", ""))
    if work and "points" in case and len(case["points"]) and work not in counters:
        problem(f"{where}: work_counter '{work}' is not a counter of the case ({sorted(counters)})")
    if "stats" not in case:
        return
    stats = case["stats"]
    x_axis = text(a.get("x_axis", ""))
    if x_axis and x_axis not in stats:
        problem(f"{where}: x_axis '{x_axis}' is not a stats column")
    headlines = []
    for name in stats:
        ds = stats[name]
        check_declared_dataset(ds, f"{where}/stats/{name}", True)
        if int(ds.attrs.get("headline", 0)) == 1:
            headlines.append(name)
        mode = text(ds.attrs.get("per_iteration", "none"))
        source = text(ds.attrs.get("per_iteration_source", ""))
        if mode in ("counter_rate", "counter_median"):
            if source not in counters:
                problem(f"{where}/stats/{name}: per_iteration {mode} reads '{source}', not a counter of the case")
        elif source:
            problem(f"{where}/stats/{name}: per_iteration {mode} with a source '{source}'")
    if len(headlines) != 1:
        problem(f"{where}: {len(headlines)} headline columns {headlines}, expected exactly one")
    elif text(stats[headlines[0]].attrs.get("direction", "none")) == "none":
        problem(f"{where}: the headline {headlines[0]} has no direction")
    for p in case.get("points", {}):
        for group in ("counters", "counter_summaries", "series"):
            for name in case["points"][p].get(group, {}):
                check_declared_dataset(case["points"][p][group][name], f"{where} point {p}/{group}/{name}", False)
    for name in case.get("watched", {}):
        check_declared_dataset(case["watched"][name], f"{where}/watched/{name}", False)


def check_spec_meaning(group, rows, where, stats_column):
    """A dataset's declaration is the one SPEC.md's table gives its column."""
    for row in rows:
        name = row["name"]
        if name not in group:
            continue
        ds = group[name]
        wanted = {"kind": row.get("kind"), "direction": row.get("direction")}
        if stats_column and "per_iteration" in row:
            wanted.update(per_iteration=row["per_iteration"], per_iteration_source=row["source"],
                          headline=row["headline"])
        for attr, value in wanted.items():
            if value is None:
                continue
            got = ds.attrs.get(attr)
            got = str(int(got)) if attr == "headline" and got is not None else text(got)
            if got != value:
                problem(f"{where}/{name}: {attr} '{got}', SPEC.md says '{value}'")


def check_family_meaning(case, where, spec):
    """comm and storage declare what their Meaning table in SPEC.md says."""
    family = text(case.attrs.get("family", ""))
    if family not in FAMILY_SECTIONS:
        return
    tables = spec[FAMILY_SECTIONS[family]]
    meaning = next(t for t in tables if t["header"][0] == "attribute")
    for row in meaning["rows"]:
        name, value = row["attribute"], row["value"]
        if name not in case.attrs:
            continue  # reported by check_declaration
        got = text(case.attrs[name])
        if name == "subject":
            layout = text(case.attrs.get("layout", ""))
            if text(case.attrs["name"]) != f"{got} {layout}":
                problem(f"{where}: subject '{got}' is not the name '{text(case.attrs['name'])}' without its layout '{layout}'")
        elif name == "series" and family == "comm":
            if got != text(case.attrs.get("topology", "")):
                problem(f"{where}: series '{got}', its topology is '{text(case.attrs.get('topology', ''))}'")
        elif got != value:
            problem(f"{where}: {name} '{got}', SPEC.md says '{value}' for {family}")


STORAGE_COUNTERS = ["bytes", "ops", "resident_before", "lat_p50", "lat_p99", "lat_p999"]
STORAGE_CACHE_STATES = {"direct", "evicted", "other-node", "warm"}
COLD_LIMIT = None


def check_storage_case(case, where, spec, world):
    tables = spec["The storage family"]
    check_attributes(case, tables[0]["rows"], where)
    check_columns(case["stats"], tables[1]["rows"], where + "/stats", len(case["stats"]["point"]))
    check_spec_meaning(case["stats"], tables[1]["rows"], where + "/stats", True)
    for p in case["points"]:
        if "counters" in case["points"][p]:
            check_spec_meaning(case["points"][p]["counters"], tables[2]["rows"], f"{where} point {p}/counters", False)
        if "series" in case["points"][p]:
            check_spec_meaning(case["points"][p]["series"], tables[3]["rows"], f"{where} point {p}/series", False)
    check_span_case(case, where, spec, world)
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
        check_counters(case, p, tables[2]["rows"], where, world)
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
                    consistency(f"{where} point {p}: series/interval_bw of rank {r} does not add up to "
                            f"counters/bytes ({read[k]} B)")


def check_counters(case, p, rows, where, world):
    """Point p has every counter SPEC.md's rows list: iterations x world_size, its units, NaN
    for idle ranks."""
    pg = case["points"][p]
    groups = case["group_of_rank"][:]
    iterations = pg["samples"].shape[0]
    for row in rows:
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


SPANS_HEADING = "Spans across ranks"


def check_span_case(case, where, spec, world):
    """A case whose figure spans its ranks has clock_error_s and, per point, starts (SPEC: Spans
    across ranks): iteration x rank, seconds after the iteration's first start, NaN where idle."""
    check_attributes(case, spec[SPANS_HEADING][0]["rows"], where)
    error = float(case.attrs.get("clock_error_s", np.nan))
    if not error >= 0:
        problem(f"{where}: clock_error_s {error} is not a time of 0 or more")
    if SHARED_CLOCK and error != 0:
        problem(f"{where}: clock_error_s {error} on one host, where every rank shares rank 0's clock (expected 0)")
    groups = case["group_of_rank"][:]
    for p in case["points"]:
        pg = case["points"][p]
        if "starts" not in pg:
            problem(f"{where} point {p}: missing starts")
            continue
        ds, iterations = pg["starts"], pg["samples"].shape[0]
        if ds.shape != (iterations, world):
            problem(f"{where} point {p}: starts shape {ds.shape}, expected {(iterations, world)}")
            continue
        if text(ds.attrs.get("units", "")) != "s":
            problem(f"{where} point {p}: starts units '{text(ds.attrs.get('units', ''))}', SPEC says 's'")
        starts = ds[:]
        if not np.all(np.isnan(starts[:, groups < 0])):
            problem(f"{where} point {p}: starts has values for idle ranks")
        active = starts[:, groups >= 0]
        if active.size and (not np.all(np.isfinite(active)) or np.any(active < 0)):
            problem(f"{where} point {p}: the active ranks' starts are not finite seconds of 0 or more")
        elif active.size and not np.all(active.min(axis=1) == 0):
            consistency(f"{where} point {p}: the active ranks' starts are not seconds after each iteration's first (min 0)")


def check_late_rank(cases, rank, late_s):
    """A rank planted to leave every starting barrier late_s late (--test-late-rank): in every
    storage iteration it starts last, at least half late_s after the first; release_spread says so;
    and the span, so agg_bw, includes it (the slowest rank's own time would not)."""
    found = 0
    for case in cases:
        if text(case.attrs.get("family", "")) != "storage" or "stats" not in case:
            continue
        groups = case["group_of_rank"][:]
        if groups[rank] < 0:
            continue
        found += 1
        stats = case["stats"]
        for row in range(stats["point"].shape[0]):
            pg = case["points"][f"{int(stats['point'][row]):04d}"]
            here = f"{case.name} point {int(stats['point'][row])} group {int(stats['group'][row])}"
            if "starts" not in pg:
                continue  # reported by check_span_case
            starts, times = pg["starts"][:], pg["samples"][:]
            active = np.flatnonzero(groups >= 0)
            if not np.all(np.argmax(starts[:, active], axis=1) == list(active).index(rank)):
                problem(f"{here}: the late rank {rank} did not start last in every iteration")
            if not float(stats["release_spread"][row]) >= late_s / 2:
                problem(f"{here}: release_spread {float(stats['release_spread'][row])} s with rank {rank} "
                        f"planted {late_s} s late")
            span = (starts + times)[:, active].max(axis=1) - starts[:, active].min(axis=1)
            slowest = times[:, active].max(axis=1)
            if not np.all(span >= slowest + late_s / 2):
                problem(f"{here}: spans {span} do not include the late start (slowest own times {slowest})")
    if found == 0:
        problem(f"no storage case with rank {rank} active")


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


DTYPE_BYTES = {"float32": 4, "float64": 8, "int32": 4, "int64": 8, "uint32": 4, "uint64": 8,
               "int8": 1, "uint8": 1, "float16": 2, "bfloat16": 2}


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
    """count, algbw, busbw and their batched_ twins follow from size_bytes and the stored times
    (themselves recomputed from the samples). SPEC has them NaN in two places only: the
    all-groups row of a case whose groups differ in size, and the rows of a group of one rank
    (nothing crosses between ranks: the case measures launch and correctness); a case without a
    back-to-back phase has no batched_ twins at all."""
    size, t = int(stats["size_bytes"][row]), DTYPE_BYTES[text(case.attrs["dtype"])]
    if int(stats["count"][row]) * t != size:
        problem(f"{here}: count {stats['count'][row]} is not size_bytes {size} / {t} B per element")
    groups, group = case["group_of_rank"][:], int(stats["group"][row])
    sizes = sorted({int(np.count_nonzero(groups == g)) for g in set(groups[groups >= 0].tolist())})
    mixed = group < 0 and len(sizes) > 1
    # The all-groups row of equal groups uses one group's size, like each group's own row.
    n = int(np.count_nonzero(groups == max(group, 0)))
    factor = bus_factor(text(case.attrs["collective"]), n)
    rates = [("algbw", "busbw", "time_median")]
    if int(stats["batch_blocks"][row]) > 0:
        rates.append(("batched_algbw", "batched_busbw", "batched_time_median"))
    else:
        for name in ("batched_algbw", "batched_busbw"):
            if name in stats:
                problem(f"{here}: {name} in a case without a back-to-back phase (SPEC: no batched_ twin)")
    for alg, bus, time_column in rates:
        algbw, busbw = float(stats[alg][row]), float(stats[bus][row])
        if mixed or n == 1:
            if not (np.isnan(algbw) and np.isnan(busbw)):
                problem(f"{here}: {alg} {algbw} and {bus} {busbw} in the "
                        f"{'all-groups row of groups of ' + str(sizes) if mixed else 'row of a group of 1'} "
                        f"ranks: SPEC says NaN")
            continue
        numbers = True
        for name, value in ((alg, algbw), (bus, busbw)):
            if not np.isfinite(value):
                numbers = False
                problem(f"{here}: {name} is {value} where a value must exist (groups of {n} ranks; SPEC "
                        f"allows NaN only in the all-groups row of groups of different sizes and in "
                        f"groups of one rank)")
        time = float(stats[time_column][row])
        if not numbers or not time > 0:  # a bad time is reported where it is recomputed
            continue
        expected = size / time / 1e9
        if not close(algbw, expected):
            problem(f"{here}: {alg} {algbw} but size_bytes / {time_column} gives {expected}")
        if not close(busbw, algbw * factor):
            problem(f"{here}: {bus} {busbw} is not {alg} x {factor}")


def check_points(case, where, world):
    groups = case["group_of_rank"][:]
    stats = case["stats"]
    for point in sorted(set(int(p) for p in stats["point"][:])):
        rows = np.flatnonzero(stats["point"][:] == point)
        pg = case["points"][f"{point:04d}"]
        samples, batched = pg["samples"][:], pg["batched"][:]
        iterations, blocks = int(stats["iterations"][rows[0]]), int(stats["batch_blocks"][rows[0]])
        for column in ("iterations", "stop_reason", "batch_blocks", "batch_ops"):  # per point
            values = {text(v) for v in stats[column][:][rows]}
            if len(values) != 1:
                problem(f"{where} point {point}: {column} differs between the point's rows: {sorted(values)}")
        if (blocks > 0) != (int(stats["batch_ops"][rows[0]]) > 0):
            problem(f"{where} point {point}: {blocks} back-to-back blocks of {stats['batch_ops'][rows[0]]} operations")
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
        if batched.shape[1:] == (world,):
            if not np.all(np.isnan(batched[:, idle])):
                problem(f"{where} point {point}: idle ranks have back-to-back samples")
            active = batched[:, ~idle]
            if not (np.all(np.isfinite(active)) and np.all(active > 0)):
                problem(f"{where} point {point}: active ranks have missing or non-positive back-to-back samples")
        for name, unit in (("samples", "s"), ("batched", "s"), ("wrong_per_rank", "elements")):
            if "units" not in pg[name].attrs:
                problem(f"{where} point {point}/{name}: missing 'units' attribute")
            elif text(pg[name].attrs["units"]) != unit:
                problem(f"{where} point {point}/{name}: units '{text(pg[name].attrs['units'])}', should be {unit}")


def superblock_version(path):
    """The version byte of the superblock, after the 8-byte signature at the file's start."""
    with open(path, "rb") as f:
        head = f.read(9)
    return head[8] if len(head) == 9 and head[:8] == b"\x89HDF\r\n\x1a\n" else None


def check_integrity(f, path):
    """SPEC.md "Integrity": superblock version 2 (checksummed, no open-for-writing mark),
    fixed-length strings only, and every dataset that holds values chunked with Fletcher-32."""
    version = superblock_version(path)
    if version != 2:
        problem(f"superblock version {version}, SPEC.md says 2 (Integrity)")

    def fixed_length(where, dtype):
        info = h5py.check_string_dtype(dtype)
        if info is not None and info.length is None:
            problem(f"{where}: a variable-length string (SPEC.md, Integrity: fixed-length only)")

    def visit(name, obj):
        where = "/" + name
        for attribute in obj.attrs:
            fixed_length(f"{where}@{attribute}", obj.attrs.get_id(attribute).dtype)
        if isinstance(obj, h5py.Dataset):
            fixed_length(where, obj.dtype)
            if obj.size and not (obj.chunks and obj.fletcher32):
                problem(f"{where}: stored without a checksum (SPEC.md, Integrity: chunked with Fletcher-32)")

    for attribute in f.attrs:
        fixed_length(f"/@{attribute}", f.attrs.get_id(attribute).dtype)
    f.visititems(visit)


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
    parser.add_argument("--max-cases", type=int, help="at most this many cases (0: all left out)")
    parser.add_argument("--timeout-case", type=int, help="this case timed out; the others ran")
    parser.add_argument("--not-arrived", help="comma list of ranks the timed-out case names")
    parser.add_argument("--stop-reason", help="at least one point stopped for this reason")
    parser.add_argument("--timeout-points", type=int, help="sizes the timed-out case finished")
    parser.add_argument("--sizes", help="comma list of the requested sizes in bytes, to check size_bytes")
    parser.add_argument("--late-rank", type=int,
                        help="this rank was planted late at every starting barrier (--test-late-rank)")
    parser.add_argument("--late-seconds", type=float, default=0.2, help="by this much")
    parser.add_argument("--shared-clock", action="store_true",
                        help="every rank ran on one host: clock_error_s must be 0")
    parser.add_argument("--storage-matrix", action="store_true",
                        help="every storage engine x direct/buffered x access x file layout must appear")
    parser.add_argument("--timeout-reason", choices=("no_progress", "case_budget"),
                        help="the timed-out case's timeout_reason")
    parser.add_argument("--cache-states", help="comma list of storage cache states that must appear")
    parser.add_argument("--slowest-rank", type=int,
                        help="this rank was planted slow: its median time is the largest at each case's last point")
    parser.add_argument("--slowest-by", type=float, default=1.0,
                        help="with --slowest-rank: its median at least this many times the next slowest's")
    parser.add_argument("--checkpoint-matrix",
                        help="comma list of save:ENGINE:LAYOUT:DURABLE and restore:ENGINE:LAYOUT:CACHE that must appear")
    parser.add_argument("--bad-images", type=int, help="every dataloader case counts this many bad images")
    parser.add_argument("--bad-names", help="comma list of text every dataloader case's bad_image_names holds")
    parser.add_argument("--dataloader", action="store_true", help="at least one dataloader case with AU measured")
    parser.add_argument("--cold-limit", type=float,
                        help="largest resident_before allowed in a storage case that is not warm")
    args = parser.parse_args()
    global COLD_LIMIT
    COLD_LIMIT = args.cold_limit
    global REQUESTED_SIZES, SHARED_CLOCK
    SHARED_CLOCK = args.shared_clock
    REQUESTED_SIZES = [int(x) for x in args.sizes.split(",")] if args.sizes else None

    spec = parse_spec(args.spec)
    global STOP_REASONS, SCHEMA_VERSION, SPEC
    SPEC = spec
    STOP_REASONS = stop_reasons(spec)
    SCHEMA_VERSION = spec_version(args.spec)
    comm_tables = spec["The comm family"]
    with h5py.File(args.file, "r") as f:
        check_attributes(f, spec["Run attributes (on `/`)"][0]["rows"], "/")
        if problems:
            return report()
        if int(f.attrs["schema_version"]) != SCHEMA_VERSION:
            problem(f"schema_version {f.attrs['schema_version']}, expected {SCHEMA_VERSION}")
        check_integrity(f, args.file)
        json.loads(text(f.attrs["config"]))
        world = int(f.attrs["world_size"])
        check_columns(f["environment"], spec["Environment columns (`/environment/<column>`, one row per world rank)"][0]["rows"],
                      "/environment", world)
        if "env_checks" in f:
            checks = f["env_checks"]
            n = checks["check"].shape[0] if "check" in checks else None
            check_columns(checks, spec["Environment checks (`/env_checks/<column>`, one row per check)"][0]["rows"],
                          "/env_checks", n)
            statuses = {text(s) for s in checks["status"][()]} if "status" in checks else set()
            if not statuses <= {"pass", "warn", "fail", "skipped"}:
                problem(f"/env_checks/status: {sorted(statuses)}, expected pass, warn, fail or skipped")
            # A run that measured stopped on no failed check unless told to measure anyway.
            if "fail" in statuses and len(f["cases"]) > 0 and "--env-check" not in text(f.attrs["command_line"]):
                problem("/env_checks has a failed check, yet the run measured without --env-check warn")
        if "scheduler" in f.attrs and not isinstance(json.loads(text(f.attrs["scheduler"])), dict):
            problem("attribute scheduler is not a JSON object")
        # The GPU columns came later: a file has all of them or (written before them) none.
        gpu_rows = spec["GPU environment columns (`/environment/<column>`, one row per world rank)"][0]["rows"]
        if any(r["name"] in f["environment"] for r in gpu_rows):
            check_columns(f["environment"], gpu_rows, "/environment", world)
        if args.status and text(f.attrs["status"]) != args.status:
            problem(f"run status '{text(f.attrs['status'])}', expected '{args.status}'")
        if args.nodes is not None and int(f.attrs["node_count"]) != args.nodes:
            problem(f"node_count {f.attrs['node_count']}, expected {args.nodes}")
        world_nodes = f["environment"]["node"][:]
        cases = [f["cases"][name] for name in sorted(f["cases"])]
        if len(cases) < args.min_cases:
            problem(f"{len(cases)} cases, expected at least {args.min_cases}")
        if args.max_cases is not None and len(cases) > args.max_cases:
            problem(f"{len(cases)} cases, expected at most {args.max_cases}")
        seen = {"collective": set(), "topology": set(), "placement": set(), "dtype": set()}
        reasons = set()
        for case in cases:
            where = case.name
            check_declaration(case, where, spec, world_nodes)
            check_family_meaning(case, where, spec)
            check_host_load(case, where, spec)
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
            check_columns(case["stats"], spec[STATS_HEADING][0]["rows"],
                          where + "/stats", rows)
            check_spec_meaning(case["stats"], spec[STATS_HEADING][0]["rows"],
                               where + "/stats", True)
            if text(case.attrs.get("family", "")) == "comm":
                check_columns(case["stats"], comm_tables[1]["rows"], where + "/stats", rows)
                if REQUESTED_SIZES is not None and len(case["points"]) != len(REQUESTED_SIZES):
                    problem(f"{where}: {len(case['points'])} points, {len(REQUESTED_SIZES)} sizes were asked for")
                check_spec_meaning(case["stats"], comm_tables[1]["rows"], where + "/stats", True)
            summary = is_summary(case)
            if summary:  # the family's figures need the matrices a summary leaves out
                if case["group_of_rank"].shape != (world,):
                    problem(f"{where}/group_of_rank: shape {case['group_of_rank'].shape}, expected ({world},)")
                    continue
                check_summary_points(case, where, world)
                check_summary_stats(case, where)
                check_correctness(case, where, args.failed_rank)
                continue
            if text(case.attrs.get("family", "")) == "storage":
                check_storage_case(case, where, spec, world)
            elif text(case.attrs.get("family", "")) == "checkpoint":
                check_checkpoint_case(case, where, spec, world)
            elif text(case.attrs.get("family", "")) == "dataloader":
                check_dataloader_case(case, where, spec, args.bad_images, args.bad_names)
            elif text(case.attrs.get("family", "")) == "step":
                check_step_case(case, where, spec)
            elif "clock_error_s" in case.attrs:  # another family whose figure spans its ranks
                check_span_case(case, where, spec, world)
            if case["group_of_rank"].shape != (world,):
                problem(f"{where}/group_of_rank: shape {case['group_of_rank'].shape}, expected ({world},)")
                continue
            check_points(case, where, world)
            check_recomputed_stats(case, where, world)
            check_correctness(case, where, args.failed_rank)
        check_coverage(seen, args)
        if args.slowest_rank is not None:
            check_slowest_rank(cases, args.slowest_rank, args.slowest_by)
        if args.storage_matrix:
            check_storage_matrix(cases)
        if args.checkpoint_matrix:
            check_checkpoint_matrix(cases, args.checkpoint_matrix)
        if args.late_rank is not None:
            check_late_rank(cases, args.late_rank, args.late_seconds)
        if args.cache_states:
            states = {text(c.attrs.get("cache_state", "")) for c in cases}
            for state in args.cache_states.split(","):
                if state not in states:
                    problem(f"no storage case with cache_state {state} (found {sorted(states)})")
        if args.dataloader and not any(
                text(c.attrs.get("family", "")) == "dataloader" and np.any(np.isfinite(c["stats"]["au"][:]))
                for c in cases):
            problem("no dataloader case with its AU measured")
        if args.stop_reason and args.stop_reason not in reasons:
            problem(f"no point stopped for '{args.stop_reason}' (found {sorted(reasons)})")
        if args.timeout_case is not None and f"{args.timeout_case:06d}" not in f["cases"]:
            problem(f"case {args.timeout_case} is not in the file")
    return report()


def check_host_load(case, where, spec):
    rows = spec["Host load (on `/cases/<NNNNNN>`)"][0]["rows"]
    check_attributes(case, rows, where)
    for row in rows:
        value = float(case.attrs.get(row["name"], float("nan")))
        if row["units"] == "s":
            if not (value >= 0) and not np.isnan(value):
                problem(f"{where}@{row['name']}: {value}, expected seconds >= 0")
        elif not np.isnan(value):
            # Foreign user time is /proc/stat ticks less getrusage microseconds: a short case's
            # share can be a little below zero (SPEC.md).
            low = -1 if row["name"] == "host_cpu_foreign" else 0
            if not low <= value <= 1:
                problem(f"{where}@{row['name']}: {value}, expected a share in [{low}, 1] or NaN")


def check_timeout_case(case, where, args):
    if args.timeout_case is None or int(case.attrs["index"]) != args.timeout_case:
        problem(f"{where}: status timeout, but no timeout was expected here")
        return
    for name in ("timeout_message", "timeout_s", "timeout_reason"):
        if name not in case.attrs:
            problem(f"{where}: timeout case without '{name}'")
    reason = text(case.attrs.get("timeout_reason", ""))
    if reason not in ("no_progress", "case_budget"):
        problem(f"{where}: timeout_reason '{reason}', expected no_progress or case_budget")
    if reason == "case_budget" and "case_budget_s" not in case.attrs:
        problem(f"{where}: timeout_reason case_budget without case_budget_s")
    if args.timeout_reason and reason != args.timeout_reason:
        problem(f"{where}: timeout_reason '{reason}', expected {args.timeout_reason}")
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


def check_slowest_rank(cases, rank, by):
    """At the last (largest) point of every case where it ran with peers, the planted rank's
    median time is the largest, at least `by` times the next largest."""
    judged = 0
    for case in cases:
        groups = case["group_of_rank"][:]
        if groups[rank] < 0 or np.count_nonzero(groups >= 0) < 2 or "points" not in case:
            continue
        last = sorted(case["points"])[-1]
        pg = case["points"][last]
        medians = (pg["rank_time_median"][0][groups >= 0] if "rank_time_median" in pg
                   else np.nanmedian(pg["samples"][:][:, groups >= 0], axis=0))
        active = np.flatnonzero(groups >= 0)
        judged += 1
        if active[int(np.argmax(medians))] != rank:
            problem(f"{case.name} point {last}: the slowest rank is {active[int(np.argmax(medians))]}, "
                    f"not the planted rank {rank} (medians {medians.tolist()})")
            continue
        others = np.delete(medians, list(active).index(rank))
        if medians.max() < by * others.max():
            problem(f"{case.name} point {last}: the planted rank {rank} is {medians.max() / others.max():.3f}x "
                    f"the next slowest, expected at least {by}x (medians {medians.tolist()})")
    if judged == 0:
        problem(f"no case ran rank {rank} with peers")


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
