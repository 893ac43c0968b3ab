#!/usr/bin/env bash
# --test-slow-node N (test-only) makes node N's ranks take 30% longer per operation, as a slow
# node would; the per-rank samples in the file must show it, and show nothing without it.
# 2 ranks as 2 one-rank nodes, so nothing is oversubscribed on a 2-core machine.
# slow_node_test.sh PREFLIGHT WORKDIR
set -uo pipefail
bin=$1 work=$2
source "$(dirname "$0")/common.sh"
rm -rf "$work" && mkdir -p "$work"
ratio() {  # slowest-point ratio of rank 1's median time to rank 0's
  h5 "$1" 'import numpy as np
print(min(np.median(f["cases/000000/points"][p]["samples"][:], axis=0)[1] / np.median(f["cases/000000/points"][p]["samples"][:], axis=0)[0] for p in f["cases/000000/points"]))'
}
for plant in "--test-slow-node 1" ""; do
  out=$work/run${plant:+-planted}.h5
  mpirun -np 2 "$bin" comm --ranks-per-node 1 --op allreduce --sizes 64K,1M --iters 100 --budget 0.3s $plant \
    -o "$out" >/dev/null 2>&1 || fail "run ${plant:-without plant} failed"
  r=$(ratio "$out")
  if [[ -n $plant ]]; then
    (($(echo "$r > 1.2 && $r < 1.45" | bc))) && pass "planted: rank 1 (node 1) is ${r}x rank 0" ||
      fail "planted: rank 1 / rank 0 = $r, expected about 1.3"
  else
    (($(echo "$r > 0.9 && $r < 1.1" | bc))) && pass "not planted: rank 1 / rank 0 = $r" ||
      fail "not planted: rank 1 / rank 0 = $r, expected about 1"
  fi
done
finish
