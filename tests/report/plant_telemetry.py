#!/usr/bin/python3
"""Adds GPU telemetry series to a copy of a results file, as the writer records them on cases
that drive the ranks' GPUs (results-schema/SPEC.md, "Telemetry"): the series of every case's
points with the watch declarations, and a PCI bus id per rank in /environment. Healthy readings
are alike on every rank (clocks within 1%, no throttle bits, a 16-lane gen-5 link whose first
reading is gen 1, as an idle GPU's is; temperatures of 60-75 C under a slowdown threshold of 90 C,
rank 3's up to 84 C, warm but 6 C short of it); faults are planted on one rank each. For the report's
telemetry findings (tests/report/telemetry_findings_test.sh).

plant_telemetry.py IN.h5 OUT.h5 [--throttle RANK:CASE] [--clock RANK:FACTOR] [--link RANK:LANES]
                  [--ecc RANK:CASE] [--hot RANK:CASE] [--no-readings RANK,RANK...]
  --throttle  rank RANK reads 0x8 | 0x40 (hardware slowdown, hardware thermal) in half the rows
              of case number CASE (0-based, in file order) only
  --clock     rank RANK's SM clock is FACTOR times the others' in every case
  --link      rank RANK's link is LANES wide (of 16) in every case
  --ecc       rank RANK's uncorrected ECC count rises from 0 to 2 during case CASE and stays at 2
              after it; rank 0 always reads 4 errors from before, which stand still (history)
  --hot       rank RANK reaches 87 C in case CASE, 3 C short of its slowdown temperature (90 C)
  --no-readings  these ranks have no readings (NaN), as ranks without NVML
"""
import argparse
import shutil

import h5py
import numpy as np

THROTTLE_LABELS = ("0x4 software power cap; 0x8 hardware slowdown; 0x10 sync boost; 0x20 software "
                   "thermal slowdown; 0x40 hardware thermal slowdown; 0x80 hardware power brake; "
                   "0x100 display clock setting")
# name: units, kind, description, watch (rule, finding, tolerance, reference, labels) or None
SERIES = {
    "gpu_sm_mhz": ("MHz", "count", "GPU SM clock", ("peers", "SM clock unlike its peers'", 0.10, "", "")),
    "gpu_mem_mhz": ("MHz", "count", "GPU memory clock",
                    ("peers", "memory clock unlike its peers'", 0.10, "", "")),
    "gpu_throttle": ("", "label", "NVML clock-throttle reason bits",
                     ("zero", "throttled", 0.0, "", THROTTLE_LABELS)),
    "gpu_pcie_width": ("lanes", "count", "current PCIe link width of the GPU",
                       ("reference", "PCIe link narrower than its maximum", 0.0, "gpu_pcie_max_width", "")),
    "gpu_pcie_gen": ("", "count", "current PCIe link generation of the GPU",
                     ("reference", "PCIe link generation below its maximum", 0.0, "gpu_pcie_max_gen", "")),
    "gpu_ecc_errors": ("", "count", "volatile uncorrected ECC errors since the driver loaded",
                       ("grows", "uncorrected ECC errors grew", 0.0, "", "")),
    "gpu_pcie_max_width": ("lanes", "count", "widest PCIe link the GPU and its slot allow", None),
    "gpu_pcie_max_gen": ("", "count", "highest PCIe link generation the GPU and its slot allow", None),
    "gpu_temp_c": ("C", "count", "GPU temperature",
                   ("margin", "close to its slowdown temperature", 5.0, "gpu_slowdown_temp_c", "")),
    "gpu_slowdown_temp_c": ("C", "count", "GPU temperature at which the hardware begins to slow the GPU",
                            None),
}


def rank_pair(text, kind=int):
    a, b = text.split(":")
    return int(a), kind(b)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("--throttle", type=rank_pair)
    p.add_argument("--clock", type=lambda t: rank_pair(t, float))
    p.add_argument("--link", type=rank_pair)
    p.add_argument("--ecc", type=rank_pair)
    p.add_argument("--hot", type=rank_pair)
    p.add_argument("--no-readings", type=lambda t: [int(r) for r in t.split(",")], default=[])
    a = p.parse_args()
    shutil.copyfile(a.src, a.dst)
    rng = np.random.default_rng(7)
    with h5py.File(a.dst, "r+") as f:
        ranks = int(f.attrs["world_size"])
        env = f["environment"]
        if "gpu_pci_bus_id" in env:
            del env["gpu_pci_bus_id"]
        env.create_dataset("gpu_pci_bus_id", data=np.array(
            [f"0000:{0x18 + 0x10 * r:02x}:00.0".encode() for r in range(ranks)], dtype="S16"))
        for number, (cid, case) in enumerate(sorted(f["cases"].items())):
            groups = case["group_of_rank"][()]
            for point_number, point in enumerate(case["points"].values()):
                first_point = point_number == 0
                series = point.require_group("series")
                rows = 6
                values = {
                    "gpu_sm_mhz": 1980 * (1 + 0.01 * rng.uniform(-1, 1, (rows, ranks))),
                    "gpu_mem_mhz": np.full((rows, ranks), 2619.0),
                    "gpu_throttle": np.zeros((rows, ranks)),
                    "gpu_pcie_width": np.full((rows, ranks), 16.0),
                    "gpu_pcie_gen": np.full((rows, ranks), 5.0),
                    "gpu_pcie_max_width": np.full((rows, ranks), 16.0),
                    "gpu_pcie_max_gen": np.full((rows, ranks), 5.0),
                }
                values["gpu_pcie_gen"][0, :] = 1  # idle at the point's start
                values["gpu_temp_c"] = np.linspace(60, 75, rows)[:, None] * np.ones((rows, ranks))
                values["gpu_temp_c"][:, 3 % ranks] = np.linspace(70, 84, rows)  # warm, 6 C short
                values["gpu_slowdown_temp_c"] = np.full((rows, ranks), 90.0)
                if a.hot and a.hot[1] == number:
                    values["gpu_temp_c"][:, a.hot[0]] = np.linspace(78, 87, rows)
                values["gpu_ecc_errors"] = np.zeros((rows, ranks))
                values["gpu_ecc_errors"][:, 0] = 4  # errors from before the run: they stand still
                if a.throttle and a.throttle[1] == number:
                    values["gpu_throttle"][::2, a.throttle[0]] = 0x8 | 0x40
                if a.clock:
                    values["gpu_sm_mhz"][:, a.clock[0]] *= a.clock[1]
                if a.link:
                    values["gpu_pcie_width"][:, a.link[0]] = a.link[1]
                if a.ecc and number > a.ecc[1]:
                    values["gpu_ecc_errors"][:, a.ecc[0]] = 2
                if a.ecc and number == a.ecc[1]:  # rises in the case's first point, then stays
                    values["gpu_ecc_errors"][:, a.ecc[0]] = [0, 0, 0, 1, 1, 2] if first_point else 2
                for name, (units, kind, description, watch) in SERIES.items():
                    v = values[name]
                    v[:, groups < 0] = np.nan  # idle ranks have no readings
                    v[:, a.no_readings] = np.nan
                    d = series.create_dataset(name, data=v)
                    for k, x in dict(units=units, description=description, direction="none",
                                     kind=kind).items():
                        d.attrs[k] = x
                    d.attrs["interval_s"] = 0.1
                    if watch:
                        rule, finding, tolerance, reference, labels = watch
                        d.attrs["watch"] = rule
                        d.attrs["watch_finding"] = finding
                        d.attrs["watch_tolerance"] = tolerance
                        d.attrs["watch_reference"] = reference
                        d.attrs["watch_labels"] = labels


main()
