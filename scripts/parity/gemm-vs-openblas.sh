#!/usr/bin/env bash
# Parity: preflight's CPU GEMM (matmul family, OpenBLAS backend) beside a bare OpenBLAS call
# timed by bare_gemm.c (built here): the same call (column-major C = A^T B), shape, dtype and
# threads, one rank, the same warm-up and iteration count. Runs alternate, REPS of each; prints
# each pair's ratio (preflight / bare, GFLOP/s from the median time) and the median ratio. The
# target is >= 0.97. On a shared machine the spread of the ratios is the noise to read it by.
#   scripts/parity/gemm-vs-openblas.sh [BUILD_DIR]
#   env: REPS (5), SIZE (1024: m = n = k), THREADS (1), ITERS (20), DTYPE (float32)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/default}
preflight=$build/bench/preflight
[[ -x $preflight ]] || { echo "gemm-vs-openblas: build preflight first (cmake --preset default && cmake --build --preset default)" >&2; exit 2; }
source "$root/scripts/mpi-env.sh"
reps=${REPS:-5} size=${SIZE:-1024} threads=${THREADS:-1} iters=${ITERS:-20} dtype=${DTYPE:-float32}
warmup=3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/bare_gemm" "$here/bare_gemm.c" $(pkg-config --cflags --libs openblas)

preflight_gflops() {
  local out=$work/p$RANDOM.h5
  # Unbound, as the bare call runs: mpirun binds a lone rank to one core, where THREADS > 1
  # would share it.
  mpirun -np 1 --bind-to none "$preflight" matmul --dtype "$dtype" --sizes "$size" --threads "$threads" \
    --warmup $warmup --min-iters "$iters" --iters "$iters" --budget 1h --batch-blocks 1 \
    -o "$out" >/dev/null
  /usr/bin/python3 -c "import h5py, sys
s = h5py.File(sys.argv[1], 'r')['cases/000000/stats']
print('%.6f' % (s['tflops'][0] * 1e3))" "$out"
  rm -f "$out"
}

printf "%-4s %14s %14s %8s\n" rep preflight_GF/s bare_GF/s ratio
ratios=()
for ((r = 1; r <= reps; r++)); do
  p=$(preflight_gflops)
  b=$("$work/bare_gemm" "$size" "$size" "$size" "$threads" "$iters" $warmup "$dtype")
  ratio=$(awk -v p="$p" -v b="$b" 'BEGIN {printf "%.3f", p / b}')
  ratios+=("$ratio")
  printf "%-4s %14.2f %14.2f %8s\n" "$r" "$p" "$b" "$ratio"
done
median=$(printf "%s\n" "${ratios[@]}" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}')
echo "gemm ${dtype} ${size}^3, ${threads} thread(s): median ratio preflight / bare OpenBLAS = $median (target >= 0.97)"
awk -v m="$median" 'BEGIN {exit !(m >= 0.97)}'
