#!/usr/bin/python3
"""Writes a synthetic results file in preflight's layout (results-schema/SPEC.md) at a scale no
test machine can run: by default 4096 ranks x 30 sizes x 5 collectives x 50 iterations, to
time preflight-report on it. Times are log-normal around a latency + size/bandwidth model, with
one slow node (ranks 8-15, +30%) so the report has something to find.

  make_large_results.py OUT.h5 [--ranks 4096] [--sizes 30] [--iterations 50] [--ranks-per-node 8]
"""
import argparse
import json

import h5py
import numpy as np

COLLECTIVES = ["allreduce", "allgather", "reducescatter", "alltoall", "broadcast"]
STR = h5py.string_dtype()


def column(group, name, values, units="", better=None):
    d = group.create_dataset(name, data=values)
    d.attrs["units"] = units
    if better:
        d.attrs["better"] = better


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
    with h5py.File(a.out, "w") as f:
        config = {"generated": "scripts/bench/make_large_results.py", "ranks": n}
        for k, v in dict(schema_version=1, preflight_version="synthetic", git_revision="synthetic",
                         command_line="make_large_results.py", config=json.dumps(config),
                         start_time="2026-01-01T00:00:00Z", end_time="2026-01-01T01:00:00Z", status="complete",
                         exit_code=0, resumes="[]", world_size=n, node_count=n // per_node).items():
            f.attrs[k] = v
        env = f.create_group("environment")
        nodes = np.arange(n) // per_node
        column(env, "rank", np.arange(n, dtype=np.int64))
        column(env, "host", np.array([f"node{i:04d}" for i in nodes], dtype=object).astype(STR))
        column(env, "node", nodes.astype(np.int64))
        column(env, "node_name", np.array([f"node{i:04d}" for i in nodes], dtype=object).astype(STR))
        column(env, "local_rank", (np.arange(n) % per_node).astype(np.int64))
        for name, value in [("cpu_model", "synthetic CPU"), ("kernel", "Linux 6.1"), ("mpi_library", "Open MPI v4.1.4"),
                            ("gpu_model", "H200"), ("gpu_uuid", ""), ("gpu_driver", "13.0"), ("cuda_runtime", "13.0"),
                            ("nccl_version", "2.28.9")]:
            column(env, name, np.array([value] * n, dtype=object).astype(STR))
        column(env, "cpu_cores", np.full(n, 64, dtype=np.int64), "cores")
        column(env, "memory_bytes", np.full(n, 2**40, dtype=np.uint64), "B")
        column(env, "gpu_count", np.full(n, 8, dtype=np.int64), "GPUs")
        slow = (nodes == 1)  # ranks of node 1 are 30% slower
        cases = f.create_group("cases")
        for ci, coll in enumerate(COLLECTIVES):
            g = cases.create_group(f"{ci:06d}")
            for k, v in dict(index=ci, name=f"{coll} float32 out-of-place world", family="comm", backend="nccl",
                             wrong_elements=np.uint64(0), group_count=1, benchmark="collectives", variant="default",
                             repetition=0, timeout_s=600.0, collective=coll, dtype="float32", redop="sum", root=-1,
                             placement="out-of-place", topology="world", layout="world", ladder_nodes=0).items():
                g.attrs[k] = v
            column(g, "group_of_rank", np.zeros(n, dtype=np.int64))
            points = g.create_group("points")
            stats = {k: [] for k in ["point", "group", "group_ranks", "iterations", "time_min", "time_p5", "time_median",
                                     "time_p95", "time_max", "time_mean", "time_cv", "median_ci_low", "median_ci_high",
                                     "batch_blocks", "batch_ops", "batched_time_median", "batched_time_min",
                                     "batched_time_max", "wrong", "size_bytes", "count", "algbw", "busbw",
                                     "batched_algbw", "batched_busbw", "stop_reason"]}
            for pi, size in enumerate(sizes):
                base = 20e-6 + size / 100e9
                samples = base * rng.lognormal(0, 0.05, (a.iterations, n))
                samples[:, slow] *= 1.3
                batched = base * rng.lognormal(0, 0.05, (5, n))
                batched[:, slow] *= 1.3  # the report compares ranks by their back-to-back times
                pg = points.create_group(f"{pi:04d}")
                for name, m in (("samples", samples), ("batched", batched)):
                    d = pg.create_dataset(name, data=m, chunks=(max(1, min(m.shape[0], 32768 // n)), n),
                                          compression="gzip", compression_opts=4, shuffle=True)
                    d.attrs["units"] = "s"
                column(pg, "wrong_per_rank", np.zeros(n, dtype=np.uint64), "elements")
                slowest = samples.max(axis=1)
                med = float(np.median(slowest))
                srt = np.sort(slowest)
                for k, v in dict(point=pi, group=-1, group_ranks=n, iterations=a.iterations, time_min=srt[0],
                                 time_p5=np.percentile(slowest, 5), time_median=med,
                                 time_p95=np.percentile(slowest, 95), time_max=srt[-1], time_mean=slowest.mean(),
                                 time_cv=slowest.std(ddof=1) / slowest.mean(), median_ci_low=srt[0],
                                 median_ci_high=srt[-1], batch_blocks=5, batch_ops=10,
                                 batched_time_median=float(np.median(batched.max(axis=1))),
                                 batched_time_min=batched.max(axis=1).min(), batched_time_max=batched.max(axis=1).max(),
                                 wrong=0, size_bytes=size, count=size // 4, algbw=size / med / 1e9,
                                 busbw=size / med / 1e9, batched_algbw=size / med / 1e9,
                                 batched_busbw=size / med / 1e9, stop_reason="max_iterations").items():
                    stats[k].append(v)
            sg = g.create_group("stats")
            units = dict(group_ranks="ranks", iterations="iterations", batch_blocks="blocks", batch_ops="operations",
                         wrong="elements", size_bytes="B", count="elements", algbw="GB/s", busbw="GB/s",
                         batched_algbw="GB/s", batched_busbw="GB/s")
            for k, v in stats.items():
                if k == "stop_reason":
                    values = np.array(v, dtype=object).astype(STR)
                elif k in ("wrong",):
                    values = np.array(v, dtype=np.uint64)
                elif isinstance(v[0], (int, np.integer)) and not k.startswith("time"):
                    values = np.array(v, dtype=np.int64)
                else:
                    values = np.array(v, dtype=np.float64)
                unit = "s" if (k.startswith("time_") and k != "time_cv") or k.startswith("batched_time") or \
                    k.startswith("median_ci") else units.get(k, "")
                column(sg, k, values, unit, "higher" if k.endswith("bw") else None)
            g.attrs["status"] = "ok"  # last, as preflight writes it


if __name__ == "__main__":
    main()
