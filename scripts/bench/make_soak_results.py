#!/usr/bin/python3
"""Writes a synthetic soak results file (results-schema/SPEC.md, schema version 2, sections
"Soak" and "When a case ran") at the scale of a burn-in no test machine can run: by default a
24-hour soak of 1,000 nodes x 8 GPUs (8,000 ranks), to time preflight-report on it
(scripts/bench/soak-scale.sh). Every declaration (case meaning, column meaning, units,
telemetry and its watch rules) is read from SPEC.md's tables, not restated here.

A round (one repetition of the campaign) is three cases, on every rank at once:
  - comm: NCCL allreduce float32 sum out-of-place on the world, sizes 8, 64K, 16M, 1G
    (configs/device/nccl.yaml's sizes and 1 GiB); acceptance.yaml's timing: min 20, max 1000
    iterations, 1 s a size, precision 1% (about 150 iterations at 5% noise); 5 back-to-back blocks;
  - matmul: cuBLASLt bfloat16 square 1024, 4096, 8192, configs/device/compute.yaml's timing
    (max 200 iterations, 200 ms a point), interval_tflops and 15 telemetry series at 0.1 s;
  - memory: CUDA hbm_triad 1 GiB arrays, 8 GPUs per node at once, the same timing and series.
Rounds start every --round-minutes (default 1.5: 960 rounds in 24 h); round r is repetition r,
case index = r x 3 + position (SPEC.md "Soak"). Each case's start_time and duration_s follow from
the modelled per-point times (warm-up, timed and back-to-back iterations, 1 s set-up a point).
Those cases take well under a minute a round, and a real soak runs rounds back to back: what the
report's cost follows is how much a soak writes a minute, so a round of 1.5 minutes stands for
this round with longer waits between its points, or a campaign of larger cases at the same rate
(docs/testing.md, "A day's soak"); 0.5 is these cases back to back with some to spare.

--samples summary (the default, as preflight writes a soak: campaign soak.samples) writes each
point as SPEC.md's "Summary points" (per-rank medians, each iteration's slowest time, the watched
telemetry summarised per case; no per-iteration x per-rank matrix, unwatched interval series
left out); --samples full writes every rank's time of every iteration and every series.

Times are log-normal (3% noise) around a latency + size/bandwidth model. Planted:
  - a slow node (node N/3, its 8 ranks 25% slower in every case) in 3 rounds mid-soak;
  - a drifting rank (local rank 3 of node 2N/3): its GEMM and triad times grow 0.4% a round,
    its SM clock falls with them.

  make_soak_results.py OUT.h5 [--nodes 1000] [--ranks-per-node 8] [--hours 24] [--round-minutes 1.5]
                      [--samples summary|full]
"""
import argparse
import datetime
import math
import os
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "tests", "schema"))
from check_results import parse_spec  # noqa: E402  (SPEC.md's tables, as the checker reads them)
from make_large_results import Store, column, slowest_stats, write_environment, write_matrix  # noqa: E402

SPEC_PATH = os.path.join(here, "..", "..", "results-schema", "SPEC.md")
NOISE = 0.03
T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
TELEMETRY_INTERVAL_S = 0.1
SLOW_BY, DRIFT_PER_ROUND = 1.25, 0.004


def rows(spec, section, index=0):
    return spec[section][index]["rows"]


def typed(value, spec_type, store):
    if spec_type == "string":
        return store.text(str(value))
    return {"int64": np.int64, "uint64": np.uint64, "float64": np.float64}[spec_type](value)


def write_declared_attrs(obj, table, values, store):
    """Attributes a SPEC.md table declares, typed as it says, each unit in its X.units."""
    for row in table:
        name = row["name"]
        if name not in values:
            continue
        obj.attrs[name] = typed(values[name], row["type"], store)
        if row.get("units"):
            obj.attrs[name + ".units"] = store.text(row["units"])


def declare_column(ds, row, store, stats_column):
    ds.attrs["units"] = store.text(row["units"])
    ds.attrs["description"] = store.text(row["meaning"])
    ds.attrs["direction"] = store.text(row["direction"])
    ds.attrs["kind"] = store.text(row["kind"])
    if stats_column:
        ds.attrs["headline"] = np.int64(int(row["headline"]))
        ds.attrs["per_iteration"] = store.text(row["per_iteration"])
        ds.attrs["per_iteration_source"] = store.text(row["source"])


class Family:
    """One family's SPEC.md tables: case attributes, stats columns, series and meaning."""

    def __init__(self, spec, section, gpu_section=None):
        tables = spec[section]
        self.attrs = tables[0]["rows"] + (rows(spec, gpu_section) if gpu_section else [])
        self.stats = tables[1]["rows"]
        self.series = tables[2]["rows"] if len(tables) > 3 else []
        self.meaning = {r["attribute"]: r["value"] for r in tables[-1]["rows"]}


class Soak:
    def __init__(self, a):
        self.spec = parse_spec(SPEC_PATH)
        self.store = Store(2)
        self.nodes, self.per_node = a.nodes, a.ranks_per_node
        self.n = a.nodes * a.ranks_per_node
        self.soak_s = a.hours * 3600.0
        self.round_s = a.round_minutes * 60.0
        self.rounds = max(1, int(math.floor(self.soak_s / self.round_s + 1e-9)))
        self.summary = a.samples == "summary"
        soak_tables = self.spec["Soak (on `/`)"]
        self.samples_attr = soak_tables[1]["rows"]  # the case attribute samples
        self.summary_units = {r["name"]: r["units"] for r in soak_tables[2]["rows"]}
        self.rng = np.random.default_rng(7)
        node_of = np.arange(self.n) // self.per_node
        self.slow_ranks = node_of == self.nodes // 3
        self.slow_rounds = set(range(self.rounds // 2, min(self.rounds, self.rounds // 2 + 3)))
        self.drift_rank = (2 * self.nodes // 3) * self.per_node + min(3, self.per_node - 1)
        self.comm = Family(self.spec, "The comm family", "The comm family on GPUs")
        self.matmul = Family(self.spec, "The matmul family")
        self.memory = Family(self.spec, "The memory family")
        self.core_stats = rows(self.spec, "Stats columns (`/cases/<NNNNNN>/stats/<column>`)")
        tele = self.spec["Telemetry"]
        self.telemetry = tele[0]["rows"]
        self.watches = {r["series"]: r for r in tele[2]["rows"]}
        labels = "0x8 hardware slowdown; 0x20 software thermal slowdown; 0x40 hardware thermal " \
                 "slowdown; 0x80 hardware power brake"
        self.watch_labels = {"gpu_throttle": labels}

    # ---- the per-rank factor of a round: noise, the slow node, the drifting rank ----
    def times(self, base, rows_, round_, drift):
        m = base * self.rng.lognormal(0, NOISE, (rows_, self.n))
        if round_ in self.slow_rounds:
            m[:, self.slow_ranks] *= SLOW_BY
        if drift:
            m[:, self.drift_rank] *= 1 + DRIFT_PER_ROUND * round_
        return m

    def point(self, pg, base, iterations, blocks, round_, drift):
        samples = self.times(base, iterations, round_, drift)
        batched = self.times(base, blocks, round_, drift)
        if self.summary:  # every rank is active: medians over all, the slowest of all
            self.per_rank_row(pg, "rank_time_median", np.median(samples, axis=0))
            self.per_rank_row(pg, "rank_batched_median", np.median(batched, axis=0))
            column(pg, "iteration_slowest", samples.max(axis=1), self.summary_units["iteration_slowest"],
                   store=self.store)
        else:
            write_matrix(pg, "samples", samples, self.store)
            write_matrix(pg, "batched", batched, self.store)
        column(pg, "wrong_per_rank", np.zeros(self.n, dtype=np.uint64), "elements", store=self.store)
        return samples, slowest_stats(samples, batched, 10)

    def per_rank_row(self, pg, name, values):
        """A summary point's 1 x world_size row, chunked and compressed."""
        ds = write_matrix(pg, name, np.asarray(values, dtype=np.float64)[None, :], self.store)
        ds.attrs["units"] = self.store.text(self.summary_units[name])
        return ds

    def declare_series(self, ds, family, name):
        declared = {r["name"]: r for r in family.series + self.telemetry}
        declare_column(ds, declared[name], self.store, False)
        ds.attrs["interval_s"] = np.float64(TELEMETRY_INTERVAL_S)
        watch = self.watches.get(name)
        if watch:
            ds.attrs["watch"] = self.store.text(watch["watch"])
            ds.attrs["watch_finding"] = self.store.text(watch["watch_finding"])
            ds.attrs["watch_tolerance"] = np.float64(float(watch["watch_tolerance"]))
            ds.attrs["watch_reference"] = self.store.text(watch["watch_reference"])
            ds.attrs["watch_labels"] = self.store.text(self.watch_labels.get(name, ""))

    def series(self, pg, family, names_values, rows_):
        if self.summary:  # the watched ones are summarised per case (watched()); the rest left out
            for name, per_rank in names_values.items():
                self.readings.setdefault(name, []).append((np.asarray(per_rank, dtype=np.float64), rows_))
            return
        sg = pg.create_group("series")
        for name, per_rank in names_values.items():
            m = np.repeat(np.asarray(per_rank, dtype=np.float64)[None, :], rows_, axis=0)
            ds = write_matrix(sg, name, m, self.store)  # chunked and compressed as samples are
            self.declare_series(ds, family, name)

    def watched(self, g, family):
        """A summary case's watched series (SPEC.md "Summary points"): 4 x world_size each, its
        rule's figure per rank, its reference's highest reading (margin: lowest), the readings,
        those not 0. Each
        point's readings are one value per rank repeated over its rows."""
        if not any(name in self.watches for name in self.readings):
            return
        wg = g.create_group("watched")
        for name, points in self.readings.items():
            if name not in self.watches:
                continue
            rule = self.watches[name]["watch"]
            values = np.stack([v for v, _ in points])  # points x ranks
            counts = np.array([rows_ for _, rows_ in points], dtype=np.float64)
            readings = counts.sum() * np.ones(self.n)
            rows = np.full((4, self.n), np.nan)
            if rule == "zero":
                bits = np.zeros(self.n, dtype=np.uint64)
                for v in values:
                    bits |= np.abs(v).astype(np.uint64)
                rows[0] = bits.astype(np.float64)
                rows[3] = ((values != 0) * counts[:, None]).sum(axis=0)
            elif rule == "peers":  # the median of every reading: each point's value repeated its rows
                order = np.argsort(values, axis=0, kind="stable")
                cum = np.cumsum(counts[order], axis=0)
                total = counts.sum()
                lo = np.argmax(cum >= (total + 1) // 2, axis=0)  # 1-based rank ceil(total/2)
                hi = np.argmax(cum >= total // 2 + 1, axis=0)
                pick = lambda k: np.take_along_axis(values, np.take_along_axis(order, k[None, :], 0), 0)[0]
                rows[0] = pick(lo) + 0.5 * (pick(hi) - pick(lo)) if total % 2 == 0 else pick(hi)
                rows[3] = 0
            elif rule == "grows":  # the last reading less the first; readings above the one before
                rows[0] = values[-1] - values[0]
                rows[3] = (np.diff(values, axis=0) > 0).sum(axis=0)  # each point's rows are alike
            else:  # reference: the reference's highest reading; margin: its lowest (the limit)
                rows[0] = values.max(axis=0)
                reference = np.stack([v for v, _ in self.readings[self.watches[name]["watch_reference"]]])
                rows[1] = reference.min(axis=0) if rule == "margin" else reference.max(axis=0)
                rows[3] = 0
            rows[2] = readings
            ds = self.store.dataset(wg, name, rows, compressed=True, chunks=rows.shape)
            self.declare_series(ds, family, name)

    def telemetry_values(self, samples, rate_name, rate):
        """interval rate and the GPU's telemetry, per rank; the SM clock follows its speed."""
        own = np.median(samples, axis=0)
        sm = np.minimum(1980.0, 1980.0 * np.median(own) / own)
        return {rate_name: rate * np.median(own) / own, "gpu_util": np.full(self.n, 1.0),
                "gpu_mem_used": np.full(self.n, 40e9), "gpu_temp_c": np.full(self.n, 71.0),
                "gpu_power_w": np.full(self.n, 690.0), "gpu_sm_mhz": sm, "gpu_mem_mhz": np.full(self.n, 3201.0),
                "gpu_throttle": np.zeros(self.n), "gpu_power_capped": np.ones(self.n),
                "gpu_ecc_errors": np.zeros(self.n), "gpu_pcie_width": np.full(self.n, 16.0),
                "gpu_pcie_gen": np.full(self.n, 5.0), "gpu_pcie_max_width": np.full(self.n, 16.0),
                "gpu_pcie_max_gen": np.full(self.n, 5.0), "gpu_slowdown_temp_c": np.full(self.n, 87.0),
                "cpu_mhz": np.full(self.n, 2000.0),
                "cpu_temp_c": np.full(self.n, 55.0)}

    # ---- the three cases of a round ----
    def comm_case(self, g, round_):
        n, stats, spent = self.n, [], 0.0
        for pi, size in enumerate([8, 64 << 10, 16 << 20, 1 << 30]):
            base = 30e-6 + 2 * (n - 1) / n * size / 350e9
            iterations = int(min(1000, max(20, min(150, 1.0 / base))))  # acceptance.yaml's timing
            samples, row = self.point(g["points"].create_group(f"{pi:04d}"), base, iterations, 5, round_, False)
            med, bmed = row["time_median"], row["batched_time_median"]
            factor = 2 * (n - 1) / n
            row.update(point=pi, group=-1, group_ranks=n, size_bytes=size, count=size // 4,
                       algbw=size / med / 1e9, busbw=size / med / 1e9 * factor,
                       batched_algbw=size / bmed / 1e9, batched_busbw=size / bmed / 1e9 * factor,
                       stop_reason="precision" if iterations == 150 else "budget")
            stats.append(row)
            spent += 1.0 + (10 + iterations + 50) * med
        return stats, spent

    def compute_case(self, g, round_, works, rate_name, rate_of, extra_row):
        stats, spent = [], 0.0
        for pi, (work, base) in enumerate(works):
            iterations = int(max(5, min(200, 0.2 / base)))  # configs/device/compute.yaml's timing
            pg = g["points"].create_group(f"{pi:04d}")
            samples, row = self.point(pg, base, iterations, 5, round_, True)
            own = np.median(samples, axis=0)
            row.update(point=pi, group=-1, group_ranks=self.n, stop_reason="max_iterations" if iterations == 200
                       else "budget", **extra_row(work, row, own))
            point_s = (10 + iterations + 50) * row["time_median"]
            self.series(pg, self.family_of(g), self.telemetry_values(samples, rate_name, rate_of(row)),
                        max(1, math.ceil(point_s / TELEMETRY_INTERVAL_S)))
            stats.append(row)
            spent += 1.0 + point_s
        return stats, spent

    def matmul_row(self, mnk, row, own):
        flop = 2 * mnk ** 3
        tf, btf = flop / row["time_median"] / 1e12, flop / row["batched_time_median"] / 1e12
        return dict(gemm_m=mnk, gemm_n=mnk, gemm_k=mnk, flop=flop, kept_algorithm=0, tflops=tf, batched_tflops=btf,
                    peak_fraction=tf / 989.0, batched_peak_fraction=btf / 989.0,
                    rank_tflops_min=float((flop / own / 1e12).min()),
                    rank_tflops_median=float(np.median(flop / own / 1e12)), span_tflops=float("nan"))

    def memory_row(self, array_bytes, row, own):
        moved = 3 * array_bytes
        bw, bbw = moved / row["time_median"] / 1e9, moved / row["batched_time_median"] / 1e9
        per_node, peak = self.per_node, 4800.0 * self.per_node
        return dict(array_bytes=array_bytes, bytes_moved=moved, bw=bw, batched_bw=bbw, node_bw=bw * per_node,
                    batched_node_bw=bbw * per_node, peak_fraction=bw * per_node / peak,
                    batched_peak_fraction=bbw * per_node / peak, rank_bw_min=float((moved / own / 1e9).min()),
                    rank_bw_median=float(np.median(moved / own / 1e9)))

    def family_of(self, g):
        return {"comm": self.comm, "matmul": self.matmul, "memory": self.memory}[g.attrs["family"].decode()]

    # ---- writing a case: attributes, points, stats, then status last ----
    def case(self, cases, index, round_, start_s, kind):
        g = cases.create_group(f"{index:06d}")
        per_node, n = self.per_node, self.n
        if kind == "comm":
            family, subject, layout = self.comm, "allreduce float32 sum out-of-place", "world"
            own = dict(family="comm", backend="nccl", benchmark="burn_in_allreduce", collective="allreduce",
                       dtype="float32", redop="sum", root=-1, placement="out-of-place", topology="world",
                       layout=layout, ladder_nodes=0, measures="bandwidth between ranks", launch="stream",
                       registration="off", timer="cuda-events")
            series = "world"
        elif kind == "matmul":
            family, subject, layout = self.matmul, "cublaslt bfloat16 square", ""
            own = dict(family="matmul", backend="cublaslt", benchmark="burn_in_gemm", dtype="bfloat16",
                       shapes="square", threads=1, peak_tflops=989.0,
                       peak_source="H200 SXM datasheet: 989 TFLOP/s dense bfloat16", verify_samples=64,
                       check_tolerance=1e-2, library="cuBLASLt 13.0 (synthetic)", interval_s=TELEMETRY_INTERVAL_S,
                       telemetry="gpu: nvml; cpu: /sys", ranks=n)
            series = family.meaning["series"]
        else:
            family, subject, layout = self.memory, "cuda hbm_triad x1", f"{per_node} GPUs per node at once"
            own = dict(family="memory", backend="cuda", benchmark="burn_in_hbm", memory_op="hbm_triad", threads=1,
                       ranks_per_node=per_node, nodes=self.nodes, ranks=n, layout=layout,
                       memory_peak=4800.0 * per_node, memory_peak_source="H200 datasheet 4.8 TB/s HBM3e x GPUs",
                       interval_s=TELEMETRY_INTERVAL_S, telemetry="gpu: nvml; cpu: /sys",
                       bytes_counted="STREAM's: every array read and written")
            series = family.meaning["series"]
        name = f"{subject} {layout}" if layout else subject
        self.readings = {}  # a summary case's series: name -> [(value per rank, rows) per point]
        column(g, "group_of_rank", np.zeros(n, dtype=np.int64), store=self.store)
        g.create_group("points")
        g.attrs["family"] = self.store.text(own["family"])
        if kind == "comm":
            stats, spent = self.comm_case(g, round_)
        elif kind == "matmul":
            works = [(s, 10e-6 + 2 * s ** 3 / 700e12) for s in (1024, 4096, 8192)]
            stats, spent = self.compute_case(g, round_, works, "interval_tflops", lambda r: r["tflops"], self.matmul_row)
        else:
            works = [(1 << 30, 5e-6 + 3 * (1 << 30) / 4.0e12)]
            stats, spent = self.compute_case(g, round_, works, "interval_bw", lambda r: r["bw"], self.memory_row)
        self.write_stats(g, family, stats)
        if self.summary:
            self.watched(g, family)
        meaning = dict(family.meaning, subject=subject, series=series, span_nodes=self.nodes)
        start = T0 + datetime.timedelta(seconds=start_s)
        values = dict(own, index=index, name=name, wrong_elements=0, group_count=1, variant="default",
                      repetition=round_, timeout_s=600.0, duration_s=spent,
                      start_time=start.strftime("%Y-%m-%dT%H:%M:%S.") + f"{start.microsecond // 1000:03d}Z",
                      host_cpu_stolen=0.0, host_cpu_foreign=0.01, host_cpu_s=128 * spent,
                      samples="summary" if self.summary else "full", **meaning)
        for section in ("Case attributes (on `/cases/<NNNNNN>`)", "When a case ran (on `/cases/<NNNNNN>`)",
                        "Host load (on `/cases/<NNNNNN>`)"):
            write_declared_attrs(g, rows(self.spec, section), values, self.store)
        case_meaning = [dict(r, units=r["units"]) for r in rows(self.spec, "Case meaning (on `/cases/<NNNNNN>`)")]
        write_declared_attrs(g, case_meaning, values, self.store)
        write_declared_attrs(g, family.attrs, values, self.store)
        write_declared_attrs(g, self.samples_attr, values, self.store)
        g.attrs["status"] = self.store.text("ok")  # last, as preflight writes it
        return spent

    def write_stats(self, g, family, stats):
        sg = g.create_group("stats")
        for row in self.core_stats + family.stats:
            name = row["name"]
            values = [r[name] for r in stats]
            if row["type"] == "string":
                data = self.store.strings(values)
            else:
                data = np.array(values, dtype={"int64": np.int64, "uint64": np.uint64, "float64": np.float64}[row["type"]])
            declare_column(self.store.dataset(sg, name, data), row, self.store, True)

    def write(self, out):
        with self.store.open(out) as f:
            end = T0 + datetime.timedelta(seconds=self.soak_s)
            config = {"generated": "scripts/bench/make_soak_results.py", "nodes": self.nodes,
                      "ranks_per_node": self.per_node, "soak": {"duration": f"{self.soak_s:g}s"},
                      "round_s": self.round_s}
            values = dict(schema_version=2, preflight_version="synthetic", git_revision="synthetic",
                          command_line="make_soak_results.py", config=__import__("json").dumps(config),
                          start_time=T0.strftime("%Y-%m-%dT%H:%M:%SZ"), end_time=end.strftime("%Y-%m-%dT%H:%M:%SZ"),
                          status="complete", exit_code=0, resumes="[]", world_size=self.n, node_count=self.nodes,
                          soak_s=self.soak_s)
            write_declared_attrs(f, rows(self.spec, "Run attributes (on `/`)") + rows(self.spec, "Soak (on `/`)"),
                                 values, self.store)
            write_environment(f, self.store, self.n, self.per_node, gpu_uuid=True)
            cases = f.create_group("cases")
            kinds = ["comm", "matmul", "memory"]
            for r in range(self.rounds):
                start = r * self.round_s
                for position, kind in enumerate(kinds):
                    start += self.case(cases, r * len(kinds) + position, r, start, kind)
                if r % 8 == 7:
                    print(f"round {r + 1}/{self.rounds} written", file=sys.stderr, flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("--nodes", type=int, default=1000)
    p.add_argument("--ranks-per-node", type=int, default=8)
    p.add_argument("--hours", type=float, default=24.0)
    p.add_argument("--round-minutes", type=float, default=1.5)
    p.add_argument("--samples", choices=("summary", "full"), default="summary",
                   help="points as summaries (a soak's default) or every rank's every iteration")
    a = p.parse_args()
    for flag, value in (("--nodes", a.nodes), ("--ranks-per-node", a.ranks_per_node), ("--hours", a.hours),
                        ("--round-minutes", a.round_minutes)):
        if value <= 0:
            print(f"make_soak_results.py: {flag} {value}: must be above 0", file=sys.stderr)
            sys.exit(2)
    soak = Soak(a)
    soak.write(a.out)
    print(f"{a.out}: {soak.n} ranks ({a.nodes} nodes x {a.ranks_per_node}), {soak.rounds} rounds x 3 cases, "
          f"soak_s {soak.soak_s:g}, samples {a.samples}, {os.path.getsize(a.out) / 1e6:.1f} MB")
    rounds = sorted(soak.slow_rounds)
    print(f"planted: slow node node{a.nodes // 3:04d} ({SLOW_BY:g}x) in rounds {rounds[0]}-{rounds[-1]}; "
          f"rank {soak.drift_rank} drifting +{DRIFT_PER_ROUND:.1%} a round (GEMM, triad)")


if __name__ == "__main__":
    main()
