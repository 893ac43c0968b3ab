#!/usr/bin/env python3
"""torch.matmul's figure for one GEMM, to hold preflight's cuBLASLt figure against in the same
run (scripts/device-check.sh): bf16 8192^3 by default. Times ITERS calls back to back with CUDA
events after WARMUP, on random data (not zeros), and prints one line:
    torch.matmul bfloat16 8192x8192x8192: 745.3 TFLOP/s (median of 5 blocks of 50)
and exits 0; exits 77 (skipped) without CUDA.
    torch_matmul.py [--m 8192 --n 8192 --k 8192 --dtype bfloat16 --iters 50 --blocks 5]"""
import argparse
import statistics
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--m", type=int, default=8192)
    p.add_argument("--n", type=int, default=8192)
    p.add_argument("--k", type=int, default=8192)
    p.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float16", "float32"])
    p.add_argument("--iters", type=int, default=50)
    p.add_argument("--blocks", type=int, default=5)
    p.add_argument("--warmup", type=int, default=10)
    a = p.parse_args()
    try:
        import torch
    except ImportError:
        print("torch_matmul: no torch", file=sys.stderr)
        return 77
    if not torch.cuda.is_available():
        print("torch_matmul: no CUDA device", file=sys.stderr)
        return 77
    dtype = getattr(torch, a.dtype)
    # preflight's layout: C = A^T B with A stored k x m; torch's row-major m x k is the same memory.
    x = torch.rand(a.m, a.k, device="cuda", dtype=dtype) * 2 - 1
    y = torch.rand(a.k, a.n, device="cuda", dtype=dtype) * 2 - 1
    for _ in range(a.warmup):
        torch.matmul(x, y)
    torch.cuda.synchronize()
    rates = []
    for _ in range(a.blocks):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(a.iters):
            torch.matmul(x, y)
        stop.record()
        stop.synchronize()
        seconds = start.elapsed_time(stop) / 1e3 / a.iters
        rates.append(2.0 * a.m * a.n * a.k / seconds / 1e12)
    print(f"torch.matmul {a.dtype} {a.m}x{a.n}x{a.k}: {statistics.median(rates):.1f} TFLOP/s "
          f"(median of {a.blocks} blocks of {a.iters}; torch {torch.__version__})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
