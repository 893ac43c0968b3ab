#!/usr/bin/env bash
# Parity: preflight's triad bandwidth (memory family, one rank, one thread) beside a plain
# STREAM-style triad loop built here (stream_triad.c): the same array size, warm-up and
# iteration count. Runs alternate, REPS of each; prints each pair's ratio (preflight / plain,
# GB/s from the median time) and the median ratio; the target is >= 0.95.
#   scripts/parity/stream-vs-reference.sh [BUILD_DIR]
#   env: REPS (5), BYTES (64M: each array), ITERS (20)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/default}
preflight=$build/bench/preflight
[[ -x $preflight ]] || { echo "stream-vs-reference: build preflight first (cmake --preset default && cmake --build --preset default)" >&2; exit 2; }
source "$root/scripts/mpi-env.sh"
reps=${REPS:-5} bytes=${BYTES:-64M} iters=${ITERS:-20} warmup=3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# -O3, as preflight itself is built (and STREAM is usually built), with the same compiler.
cc -O3 -o "$work/stream_triad" "$here/stream_triad.c"
elements=$(/usr/bin/python3 -c "import sys
s = sys.argv[1]; m = {'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}
print((int(s[:-1]) * m[s[-1]] if s[-1] in m else int(s)) // 8)" "$bytes")

preflight_gbs() {
  local out=$work/p$RANDOM.h5
  mpirun -np 1 "$preflight" memory --kernel triad --layout rank --threads 1 --sizes "$bytes" \
    --warmup $warmup --min-iters "$iters" --iters "$iters" --budget 1h --batch-blocks 1 \
    -o "$out" >/dev/null
  /usr/bin/python3 -c "import h5py, sys
s = h5py.File(sys.argv[1], 'r')['cases/000000/stats']
print('%.6f' % s['bw'][0])" "$out"
  rm -f "$out"
}

printf "%-4s %14s %14s %8s\n" rep preflight_GB/s plain_GB/s ratio
ratios=()
for ((r = 1; r <= reps; r++)); do
  p=$(preflight_gbs)
  b=$("$work/stream_triad" "$elements" "$iters" $warmup | cut -d' ' -f1)
  ratio=$(awk -v p="$p" -v b="$b" 'BEGIN {printf "%.3f", p / b}')
  ratios+=("$ratio")
  printf "%-4s %14.2f %14.2f %8s\n" "$r" "$p" "$b" "$ratio"
done
median=$(printf "%s\n" "${ratios[@]}" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}')
echo "triad ${bytes} per array, 1 rank, 1 thread: median ratio preflight / plain loop = $median (target >= 0.95)"
awk -v m="$median" 'BEGIN {exit !(m >= 0.95)}'
