#!/usr/bin/python3
"""Writes a synthetic results file in preflight's layout (results-schema/SPEC.md) at a scale no
test machine can run: by default 4096 ranks x 30 sizes x 5 collectives x 50 iterations, to
time preflight-report on it. Times are log-normal around a latency + size/bandwidth model, with
one slow node (ranks 8-15, +30%) so the report has something to find.

  make_large_results.py OUT.h5 [--ranks 4096] [--sizes 30] [--iterations 50] [--ranks-per-node 8]

Its functions are shared with make_soak_results.py (a 24-hour soak), which writes schema
version 2 (fixed-length strings, checksums); this file's own output stays version 1, as the
report-scale figures in docs/testing.md were measured on it.
"""
import argparse
import json

import h5py
import numpy as np

COLLECTIVES = ["allreduce", "allgather", "reducescatter", "alltoall", "broadcast"]
STR = h5py.string_dtype()
CORE_UNITS = dict(group_ranks="ranks", iterations="iterations", batch_blocks="blocks", batch_ops="operations",
                  wrong="elements", size_bytes="B", count="elements", algbw="GB/s", busbw="GB/s",
                  batched_algbw="GB/s", batched_busbw="GB/s")


class Store:
    """How values are stored: version 1 (variable-length strings, no checksums) or version 2
    (SPEC.md "Integrity": fixed-length strings, chunked datasets with Fletcher-32)."""

    def __init__(self, version):
        self.version = version

    def open(self, path):
        # Superblock version 2 (the 1.8 low bound), 1.10 object formats: as the writer does.
        return h5py.File(path, "w", libver=("v108", "v110")) if self.version == 2 else h5py.File(path, "w")

    def text(self, value):
        return np.bytes_(value.encode()) if self.version == 2 else value

    def strings(self, values):
        if self.version == 2:
            encoded = [v.encode() for v in values]
            return np.array(encoded, dtype=f"S{max(1, max((len(e) for e in encoded), default=1))}")
        return np.array(values, dtype=object).astype(STR)

    def dataset(self, group, name, data, compressed=False, chunks=None):
        data = np.asarray(data)
        if self.version == 1 and not compressed:
            return group.create_dataset(name, data=data)
        options = dict(compression="gzip", compression_opts=4, shuffle=True) if compressed else {}
        if self.version == 2 and data.size:
            options["fletcher32"] = True
            chunks = chunks or data.shape  # a column is one chunk
        if not data.size:
            return group.create_dataset(name, data=data)  # empty: contiguous, nothing to check
        return group.create_dataset(name, data=data, chunks=chunks, **options)

    def attrs(self, obj, values):
        for k, v in values.items():
            obj.attrs[k] = self.text(v) if isinstance(v, str) else v


def column(group, name, values, units="", better=None, store=Store(1)):
    d = store.dataset(group, name, values)
    d.attrs["units"] = store.text(units)
    if better:
        d.attrs["better"] = better
    return d


def write_run_attributes(f, store, n, per_node, config, extra=None):
    values = dict(schema_version=store.version, preflight_version="synthetic", git_revision="synthetic",
                  command_line="make_large_results.py", config=json.dumps(config),
                  start_time="2026-01-01T00:00:00Z", end_time="2026-01-01T01:00:00Z", status="complete",
                  exit_code=0, resumes="[]", world_size=n, node_count=n // per_node)
    values.update(extra or {})
    store.attrs(f, values)


def write_environment(f, store, n, per_node, gpu_uuid=False):
    env = f.create_group("environment")
    nodes = np.arange(n) // per_node
    names = [f"node{i:04d}" for i in nodes]
    column(env, "rank", np.arange(n, dtype=np.int64), store=store)
    column(env, "host", store.strings(names), store=store)
    column(env, "node", nodes.astype(np.int64), store=store)
    column(env, "node_name", store.strings(names), store=store)
    column(env, "local_rank", (np.arange(n) % per_node).astype(np.int64), store=store)
    for name, value in [("cpu_model", "synthetic CPU"), ("kernel", "Linux 6.1"), ("mpi_library", "Open MPI v4.1.4"),
                        ("gpu_model", "H200"), ("gpu_driver", "13.0"), ("cuda_runtime", "13.0"),
                        ("nccl_version", "2.28.9")]:
        column(env, name, store.strings([value] * n), store=store)
    column(env, "gpu_uuid", store.strings([f"GPU-{r:08x}" if gpu_uuid else "" for r in range(n)]), store=store)
    column(env, "cpu_cores", np.full(n, 64, dtype=np.int64), "cores", store=store)
    column(env, "memory_bytes", np.full(n, 2**40, dtype=np.uint64), "B", store=store)
    column(env, "gpu_count", np.full(n, 8, dtype=np.int64), "GPUs", store=store)
    return nodes


def write_matrix(pg, name, m, store):
    """samples or batched: iteration x rank, chunked by rows, compressed (shuffle + deflate)."""
    n = m.shape[1]
    d = store.dataset(pg, name, m, compressed=True, chunks=(max(1, min(m.shape[0], 32768 // n)), n))
    d.attrs["units"] = store.text("s")
    return d


def slowest_stats(samples, batched, batch_ops):
    """The core stats of the all-groups row: per iteration the slowest rank (SPEC.md)."""
    slowest = np.nanmax(samples, axis=1)
    srt = np.sort(slowest)
    n = len(srt)
    half, reach = n / 2, 1.96 * np.sqrt(n) / 2  # 1-based order statistics n/2 +- 1.96 sqrt(n)/2 (+1 above)
    blocks = np.nanmax(batched, axis=1) if batched.shape[0] else np.array([np.nan])
    return dict(iterations=n, time_min=srt[0], time_p5=np.percentile(slowest, 5), time_median=float(np.median(slowest)),
                time_p95=np.percentile(slowest, 95), time_max=srt[-1], time_mean=slowest.mean(),
                time_cv=slowest.std(ddof=1) / slowest.mean() if n > 1 else 0.0,
                median_ci_low=srt[int(np.clip(np.floor(half - reach) - 1, 0, n - 1))],
                median_ci_high=srt[int(np.clip(np.ceil(1 + half + reach) - 1, 0, n - 1))],
                batch_blocks=batched.shape[0], batch_ops=batch_ops if batched.shape[0] else 0,
                batched_time_median=float(np.median(blocks)), batched_time_min=blocks.min(),
                batched_time_max=blocks.max(), wrong=0)


def stats_values(name, v):
    if name == "stop_reason":
        return None
    if name == "wrong":
        return np.array(v, dtype=np.uint64)
    if isinstance(v[0], (int, np.integer)) and not name.startswith("time"):
        return np.array(v, dtype=np.int64)
    return np.array(v, dtype=np.float64)


def write_v1_stats(g, stats, store):
    sg = g.create_group("stats")
    for k, v in stats.items():
        values = store.strings(v) if k == "stop_reason" else stats_values(k, v)
        unit = "s" if (k.startswith("time_") and k != "time_cv") or k.startswith("batched_time") or \
            k.startswith("median_ci") else CORE_UNITS.get(k, "")
        column(sg, k, values, unit, "higher" if k.endswith("bw") else None, store)


def write_comm_case(cases, ci, coll, sizes, iterations, n, slow, rng, store):
    g = cases.create_group(f"{ci:06d}")
    store.attrs(g, dict(index=ci, name=f"{coll} float32 out-of-place world", family="comm", backend="nccl",
                        wrong_elements=np.uint64(0), group_count=1, benchmark="collectives", variant="default",
                        repetition=0, timeout_s=600.0, collective=coll, dtype="float32", redop="sum", root=-1,
                        placement="out-of-place", topology="world", layout="world", ladder_nodes=0))
    column(g, "group_of_rank", np.zeros(n, dtype=np.int64), store=store)
    points = g.create_group("points")
    stats = {}
    for pi, size in enumerate(sizes):
        base = 20e-6 + size / 100e9
        samples = base * rng.lognormal(0, 0.05, (iterations, n))
        samples[:, slow] *= 1.3
        batched = base * rng.lognormal(0, 0.05, (5, n))
        batched[:, slow] *= 1.3  # the report compares ranks by their back-to-back times
        pg = points.create_group(f"{pi:04d}")
        write_matrix(pg, "samples", samples, store)
        write_matrix(pg, "batched", batched, store)
        column(pg, "wrong_per_rank", np.zeros(n, dtype=np.uint64), "elements", store=store)
        row = dict(point=pi, group=-1, group_ranks=n, **slowest_stats(samples, batched, 10))
        med = row["time_median"]
        row.update(size_bytes=size, count=size // 4, algbw=size / med / 1e9, busbw=size / med / 1e9,
                   batched_algbw=size / med / 1e9, batched_busbw=size / med / 1e9, stop_reason="max_iterations")
        for k, v in row.items():
            stats.setdefault(k, []).append(v)
    write_v1_stats(g, stats, store)
    g.attrs["status"] = "ok"  # last, as preflight writes it


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("out")
    p.add_argument("--ranks", type=int, default=4096)
    p.add_argument("--sizes", type=int, default=30)
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--ranks-per-node", type=int, default=8)
    a = p.parse_args()
    rng = np.random.default_rng(1)
    n, per_node = a.ranks, a.ranks_per_node
    sizes = [8 * 2**k for k in range(a.sizes)]
    store = Store(1)
    with store.open(a.out) as f:
        write_run_attributes(f, store, n, per_node, {"generated": "scripts/bench/make_large_results.py", "ranks": n})
        nodes = write_environment(f, store, n, per_node)
        slow = (nodes == 1)  # ranks of node 1 are 30% slower
        cases = f.create_group("cases")
        for ci, coll in enumerate(COLLECTIVES):
            write_comm_case(cases, ci, coll, sizes, a.iterations, n, slow, rng, store)


if __name__ == "__main__":
    main()
