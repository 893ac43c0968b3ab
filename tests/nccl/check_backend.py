"""Checks what a comm run with backend nccl or auto left in its file:
check_backend.py FILE --cases-backend NAME   every case ran on that backend (and there is one)
check_backend.py FILE --skipped-no-gpu       no case, and one `skipped` line: backend nccl, no GPU
check_backend.py FILE --gpu-attributes       every case records launch, registration and timer
"""
import argparse
import json
import sys

import h5py


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


parser = argparse.ArgumentParser()
parser.add_argument("file")
parser.add_argument("--cases-backend")
parser.add_argument("--skipped-no-gpu", action="store_true")
parser.add_argument("--gpu-attributes", action="store_true")
args = parser.parse_args()
problems = []
with h5py.File(args.file, "r") as f:
    cases = [f["cases"][name] for name in f["cases"]]
    skipped = json.loads(text(f.attrs["skipped"])) if "skipped" in f.attrs else []
    backends = sorted({text(c.attrs["backend"]) for c in cases})
    print(f"{len(cases)} case(s), backends {backends}, skipped {skipped}")
    if args.cases_backend and (not cases or backends != [args.cases_backend]):
        problems.append(f"expected every case on backend {args.cases_backend}, found {backends}")
    if args.skipped_no_gpu:
        if cases:
            problems.append(f"expected no case, found {len(cases)}")
        if len(skipped) != 1 or "backend nccl: no GPU" not in skipped[0]:
            problems.append(f"expected one skipped line naming backend nccl and no GPU: {skipped}")
    if args.gpu_attributes:
        for c in cases:
            for name in ("launch", "registration", "timer"):
                if name not in c.attrs:
                    problems.append(f"{text(c.attrs['name'])}: no attribute {name}")
for p in problems:
    print("FAIL:", p)
sys.exit(1 if problems else 0)
