#!/usr/bin/python3
"""The results checker's own test: a check that cannot fail proves nothing. Takes two good files
written by preflight (4 ranks of comm at small sizes; 2 ranks of storage, step, matmul, memory
and fabric, tests/schema/families.yaml), makes one broken copy per fault with h5py (a writer
that is not preflight's), and requires check_results.py to reject each, exit 1, with the
message that names the fault, and to accept the untouched files. Every family's re-derived
figures get a fault; so does a figure NaN where its recomputation is NaN too (NaN equals
nothing). The schema_version plant must fail h5dump_check.sh too.

  checker_selftest.py --preflight BIN --work DIR --checker check_results.py --spec SPEC.md
                      [--good FILE --good-families FILE]   (good files already written: no run)

Exit 0 when every plant is caught and the good file passes; 1 otherwise.
"""
import argparse
import contextlib
import io
import os
import re
import runpy
import shutil
import subprocess
import sys
import traceback

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = "8,65536"  # what the good run asks for, checked again by the checker's --sizes


def version_of_layout():
    """kVersion of results-schema/include/preflight/schema/layout.hpp: the one definition."""
    layout = os.path.join(HERE, "..", "..", "results-schema", "include", "preflight", "schema", "layout.hpp")
    return int(re.search(r"^inline constexpr int kVersion = (\d+);", open(layout).read(), re.M).group(1))


VERSION = version_of_layout()


def scaled(path, row, factor):
    def plant(f):
        values = f[path][:]
        values[row] *= factor
        f[path][...] = values
    return plant


def shifted(path, row, seconds):
    """A figure moved by an amount, where a factor would leave a 0 unchanged."""
    def plant(f):
        values = f[path][:]
        values[row] += seconds
        f[path][...] = values
    return plant


def not_measured(case, point, counters, columns):
    """Counters NaN on every rank at a point, and the stats figures from them NaN too: a figure
    whose recomputation is NaN as well, which the checker must not call equal."""
    def plant(f):
        for name in counters:
            f[f"{case}/points/{point}/counters/{name}"][...] = np.nan
        for column in columns:
            values = f[f"{case}/stats/{column}"][:]
            values[:] = np.nan
            f[f"{case}/stats/{column}"][...] = values
    return plant


def nan_in(case, columns, groups="all"):
    """NaN in the case's stats columns, in every row or (groups="per-group") the rows of single groups."""
    def plant(f):
        stats = f[case]["stats"]
        rows = np.flatnonzero(stats["group"][:] >= 0) if groups == "per-group" else slice(None)
        assert groups != "per-group" or len(rows), f"{case} has no per-group rows to plant in"
        for column in columns:
            values = stats[column][:]
            values[rows] = np.nan
            stats[column][...] = values
    return plant


def nan_batched_samples(f):
    """No back-to-back samples at a point of a case that had a back-to-back phase, and the
    stats that follow from them NaN too, so that nothing disagrees with the samples."""
    f["cases/000000/points/0000/batched"][...] = np.nan
    stats = f["cases/000000/stats"]
    rows = np.flatnonzero(stats["point"][:] == 0)
    for column in ("batched_time_median", "batched_time_min", "batched_time_max", "batched_algbw",
                   "batched_busbw"):
        values = stats[column][:]
        values[rows] = np.nan
        stats[column][...] = values


def stop_reason(value):
    def plant(f):
        f["cases/000000/stats/stop_reason"][0] = value
    return plant


def without(where, attribute):
    def plant(f):
        del f[where].attrs[attribute]
    return plant


def unchecked(path):
    """The dataset rewritten contiguous, without a checksum, its values and attributes kept."""
    def plant(f):
        values, attrs = f[path][:], dict(f[path].attrs)
        del f[path]
        f.create_dataset(path, data=values)
        f[path].attrs.update(attrs)
    return plant


def with_attribute(where, attribute, value):
    def plant(f):
        f[where].attrs[attribute] = value
    return plant


# Each plant: name, what it does to the file (an h5py File opened r+), a regular expression
# the checker's message must match. Case 000000 is allreduce on world (one group: all-groups
# rows only; row 0 is point 0, 8 B, row 1 point 1, 64 KiB), 000002 allreduce on intra (two
# groups of one rank: per-group rows too).
C0 = "cases/000000"
PLANTS = [
    ("nan_bandwidths", nan_in(C0, ["algbw", "busbw", "batched_algbw", "batched_busbw"]),
     r"point 0 group -1: algbw is nan where a value must exist"),
    ("nan_batched_bandwidths", nan_in(C0, ["batched_algbw", "batched_busbw"]),
     r"point 1 group -1: batched_busbw is nan where a value must exist"),
    ("nan_bandwidth_in_group_row", nan_in("cases/000002", ["algbw"], "per-group"),
     r"point 0 group 1: algbw is nan where a value must exist"),
    ("nan_batched_samples", nan_batched_samples,
     r"point 0: active ranks have missing or non-positive back-to-back samples"),
    ("wrong_batched_time_min", scaled(f"{C0}/stats/batched_time_min", 0, 0.5),
     r"point 0 group -1: batched_time_min \S+ but the batched samples give"),
    ("wrong_batched_time_max", scaled(f"{C0}/stats/batched_time_max", 0, 2.0),
     r"point 0 group -1: batched_time_max \S+ but the batched samples give"),
    ("wrong_batched_time_median", scaled(f"{C0}/stats/batched_time_median", 0, 1.5),
     r"point 0 group -1: batched_time_median \S+ but the batched samples give"),
    ("wrong_batched_algbw", scaled(f"{C0}/stats/batched_algbw", 0, 1.1),
     r"point 0 group -1: batched_algbw \S+ but size_bytes / batched_time_median gives"),
    ("wrong_batched_busbw", scaled(f"{C0}/stats/batched_busbw", 0, 1.1),
     r"point 0 group -1: batched_busbw \S+ is not batched_algbw x 1.5"),
    ("wrong_count", scaled(f"{C0}/stats/count", 1, 2),
     r"point 1 group -1: count 32768 is not size_bytes 65536 / 4 B per element"),
    ("bad_stop_reason", stop_reason("bored"),
     r"point 0 group -1: stop_reason 'bored' is not one of \['budget', 'max_iterations', 'precision'\]"),
    ("no_world_size_units", without("/", "world_size.units"), r"missing attribute 'world_size.units'"),
    ("no_node_count_units", without("/", "node_count.units"), r"missing attribute 'node_count.units'"),
    ("wrong_world_size_units", with_attribute("/", "world_size.units", "bytes"),
     r"world_size.units: 'bytes', SPEC.md says 'ranks'"),
    ("no_wrong_elements_units", without(C0, "wrong_elements.units"),
     r"/cases/000000: missing attribute 'wrong_elements.units'"),
    ("no_group_count_units", without(C0, "group_count.units"),
     r"/cases/000000: missing attribute 'group_count.units'"),
    ("no_timeout_s_units", without(C0, "timeout_s.units"), r"/cases/000000: missing attribute 'timeout_s.units'"),
    ("no_span_nodes_units", without(C0, "span_nodes.units"),
     r"/cases/000000: missing attribute 'span_nodes.units'"),
    ("no_ladder_nodes_units", without(C0, "ladder_nodes.units"),
     r"/cases/000000: missing attribute 'ladder_nodes.units'"),
    ("no_host_cpu_stolen", without(C0, "host_cpu_stolen"),
     r"/cases/000000: missing attribute 'host_cpu_stolen'"),
    ("host_cpu_foreign_above_one", with_attribute(C0, "host_cpu_foreign", np.float64(1.5)),
     r"host_cpu_foreign: 1.5, expected a share in \[-1, 1\] or NaN"),
    ("unchecked_dataset", unchecked(f"{C0}/stats/time_median"),
     r"/cases/000000/stats/time_median: stored without a checksum"),
    ("variable_length_string", with_attribute(C0, "backend", "mpi"),
     r"/cases/000000@backend: a variable-length string"),
    ("wrong_schema_version", with_attribute("/", "schema_version", np.int64(VERSION - 1)),
     rf"schema_version {VERSION - 1}, expected {VERSION}"),
]


# The second good file (tests/schema/families.yaml, 2 ranks as 2 nodes): 000000 storage (psync,
# warm), 000001 step on 1 node (groups 0 and 1: per-group rows 1 and 2), 000002 step on 2 nodes
# (one group: its all-groups row), 000003 matmul, 000004 memory (triad), 000005 fabric latency,
# 000006 fabric bandwidth; every case's row 0 is point 0.
S, STEP1, STEP2, MM, MEM, LAT, BW = (f"cases/{i:06d}" for i in range(7))
GIVE = r"but the samples and counters give"
FAMILY_PLANTS = [
    ("storage_agg_bw", scaled(f"{S}/stats/agg_bw", 0, 1.1), rf"{S} point 0 group -1: agg_bw \S+ {GIVE}"),
    ("storage_iops", scaled(f"{S}/stats/iops", 0, 1.1), rf"{S} point 0 group -1: iops \S+ {GIVE}"),
    ("storage_release_spread", shifted(f"{S}/stats/release_spread", 0, 1e-3),
     rf"{S} point 0 group -1: release_spread \S+ {GIVE}"),
    ("storage_lat_p50", scaled(f"{S}/stats/lat_p50", 0, 1.1), rf"{S} point 0 group -1: lat_p50 \S+ {GIVE}"),
    ("storage_latency_not_measured",
     not_measured(S, "0000", ["lat_p50", "lat_p99", "lat_p999"], ["lat_p50", "lat_p99", "lat_p999"]),
     rf"{S} point 0 group -1: lat_p50 nan {GIVE} nan: NaN where SPEC.md allows none"),
    ("step_step_s", scaled(f"{STEP2}/stats/step_s", 0, 1.1), rf"{STEP2} point 0000 group -1: step_s \S+ {GIVE}"),
    ("step_samples_per_s", scaled(f"{STEP1}/stats/samples_per_s", 1, 1.1),
     rf"{STEP1} point 0000 group 0: samples_per_s \S+ {GIVE}"),
    ("step_compute_s", scaled(f"{STEP1}/stats/compute_s", 2, 1.1),
     rf"{STEP1} point 0000 group 1: compute_s \S+ {GIVE}"),
    ("step_comm_exposed_s", shifted(f"{STEP2}/stats/comm_exposed_s", 0, 1e-3),
     rf"{STEP2} point 0000 group -1: comm_exposed_s \S+ {GIVE}"),
    ("matmul_tflops", scaled(f"{MM}/stats/tflops", 0, 1.1), rf"{MM} point 0 group -1: tflops \S+ {GIVE}"),
    ("matmul_rank_tflops_min", scaled(f"{MM}/stats/rank_tflops_min", 0, 1.1),
     rf"{MM} point 0 group -1: rank_tflops_min \S+ {GIVE}"),
    ("matmul_span_tflops", scaled(f"{MM}/stats/span_tflops", 0, 1.1),
     rf"{MM} point 0 group -1: span_tflops \S+ {GIVE}"),
    ("memory_bw", scaled(f"{MEM}/stats/bw", 0, 1.1), rf"{MEM} point 0 group -1: bw \S+ {GIVE}"),
    ("memory_node_bw", scaled(f"{MEM}/stats/node_bw", 0, 1.1), rf"{MEM} point 0 group -1: node_bw \S+ {GIVE}"),
    ("memory_rank_bw_min", scaled(f"{MEM}/stats/rank_bw_min", 0, 1.1),
     rf"{MEM} point 0 group -1: rank_bw_min \S+ {GIVE}"),
    ("fabric_round_trip", scaled(f"{LAT}/stats/round_trip", 0, 1.1),
     rf"{LAT} point 0 group -1: round_trip \S+ {GIVE}"),
    ("fabric_pair_latency", scaled(f"{LAT}/stats/pair_latency", 1, 1.1),
     rf"{LAT} point 1 group -1: pair_latency \S+ {GIVE}"),
    ("fabric_pair_bandwidth", scaled(f"{BW}/stats/pair_bandwidth", 1, 1.1),
     rf"{BW} point 1 group -1: pair_bandwidth \S+ {GIVE}"),
    ("fabric_batched_pair_bandwidth", scaled(f"{BW}/stats/batched_pair_bandwidth", 0, 1.1),
     rf"{BW} point 0 group -1: batched_pair_bandwidth \S+ {GIVE}"),
]

MPI_ENV = dict(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_mpi_yield_when_idle="1")


def write_families_file(preflight, path, storage_dir):
    os.makedirs(storage_dir, exist_ok=True)
    run = subprocess.run(["mpirun", "-np", "2", preflight, "run", os.path.join(HERE, "families.yaml"),
                          "--set", f"storage.dir={storage_dir}", "-o", path],
                         env=dict(os.environ, **MPI_ENV), capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"FAIL: preflight exited {run.returncode}:\n{run.stdout[-2000:]}{run.stderr[-2000:]}")


def write_good_file(preflight, path):
    env = dict(os.environ, **MPI_ENV)
    run = subprocess.run(["mpirun", "-np", "4", preflight, "comm", "--op", "allreduce,allgather",
                          "--topology", "world,intra", "--ranks-per-node", "2", "--sizes", "8,64K",
                          "--warmup", "2", "--min-iters", "3", "--iters", "5", "--budget", "1ms",
                          "--batch-blocks", "2", "-o", path],
                         env=env, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"FAIL: preflight exited {run.returncode}:\n{run.stdout[-2000:]}{run.stderr[-2000:]}")


def run_checker(checker, argv):
    """check_results.py run as its own __main__ in this process, with argv; (exit code, what it
    printed). Each call gets fresh module globals (runpy), as a new process would; numpy, h5py
    and the interpreter's start are paid once, not for each of the ~90 plants (a second each)."""
    out = io.StringIO()
    saved = sys.argv
    sys.argv = [checker] + argv
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                runpy.run_path(checker, run_name="__main__")
                rc = 0
            except SystemExit as e:
                if isinstance(e.code, str):  # what a process would print on its way out
                    print(e.code, file=sys.stderr)
                rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except Exception:  # a crash is a failed check, as a process's traceback would be
                traceback.print_exc()
                rc = 1
    finally:
        sys.argv = saved
    return rc, out.getvalue()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preflight")
    parser.add_argument("--work", required=True)
    parser.add_argument("--checker", required=True)
    parser.add_argument("--spec", required=True)
    parser.add_argument("--good", help="a good comm results file to use instead of running preflight")
    parser.add_argument("--good-families", help="a good file of tests/schema/families.yaml, likewise")
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    good = os.path.join(args.work, "good.h5")
    if args.good:
        shutil.copy(args.good, good)
    else:
        write_good_file(args.preflight, good)
    families = os.path.join(args.work, "good-families.h5")
    if args.good_families:
        shutil.copy(args.good_families, families)
    else:
        write_families_file(args.preflight, families, os.path.join(args.work, "storage"))
    failures = 0

    def check(name, path, extra, wanted_rc, wanted):
        nonlocal failures
        rc, said = run_checker(args.checker, ["--spec", args.spec] + extra + [path])
        line = next((l for l in said.splitlines() if re.search(wanted, l)), None)
        if rc == wanted_rc and line is not None:
            print(f"ok:   {name}: exit {rc}, {line[:150]}")
        else:
            failures += 1
            print(f"FAIL: {name}: exit {rc}, expected {wanted_rc} and /{wanted}/; it said:")
            print("      " + "\n      ".join(said.splitlines()[:8]))

    check("untouched file", good, ["--status", "complete", "--sizes", SIZES], 0, r"OK \(0 problem\(s\)\)")
    check("untouched families file", families, ["--status", "complete", "--min-cases", "7"], 0,
          r"OK \(0 problem\(s\)\)")
    for source, plants in ((good, PLANTS), (families, FAMILY_PLANTS)):
        for name, plant, message in plants:
            path = os.path.join(args.work, name + ".h5")
            shutil.copy(source, path)
            with h5py.File(path, "r+") as f:
                plant(f)
            check(name, path, [], 1, message)

    # h5dump, not h5py, must see the planted schema_version too (and not on the good file).
    h5dump_check = os.path.join(HERE, "h5dump_check.sh")
    for name, path, wanted_rc in (("h5dump_check good file", good, 0),
                                  ("h5dump_check wrong_schema_version",
                                   os.path.join(args.work, "wrong_schema_version.h5"), 1)):
        run = subprocess.run([h5dump_check, "--file", path], capture_output=True, text=True)
        wanted = "PASS" if wanted_rc == 0 else f"FAIL: schema_version is not {VERSION}"
        if run.returncode == wanted_rc and wanted in run.stdout:
            print(f"ok:   {name}: exit {run.returncode}")
        else:
            failures += 1
            print(f"FAIL: {name}: exit {run.returncode}, expected {wanted_rc} and '{wanted}':\n{run.stdout}{run.stderr}")
    total = len(PLANTS) + len(FAMILY_PLANTS) + 4
    print(f"{total - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
