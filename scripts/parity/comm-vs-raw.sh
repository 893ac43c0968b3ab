#!/usr/bin/env bash
# Parity: preflight's all-reduce times beside a bare timed MPI_Allreduce loop (raw_allreduce.c,
# built here), at 8 B, 64 KiB, 1 MiB and 16 MiB on 2 and 4 ranks. Both take the same number of
# iterations, warm-up and back-to-back blocks; runs alternate, and each figure is the median over
# REPS runs, so drift on a shared machine hits both alike. Prints a ratio table
# (preflight / raw: 1.00 is parity; the targets are within 3% at >= 64 KiB, within 10% at 8 B).
#   scripts/parity/comm-vs-raw.sh [BUILD_DIR]       env: REPS (9), ITERS (200), NPS ("2 4")
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/default}
preflight=$build/bench/preflight
[[ -x $preflight ]] || { echo "comm-vs-raw: build preflight first (cmake --preset default && cmake --build --preset default)" >&2; exit 2; }
source "$root/scripts/mpi-env.sh"
reps=${REPS:-9} iters=${ITERS:-200} warmup=5 blocks=5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 -o "$work/raw_allreduce" "$here/raw_allreduce.c"

# preflight's per-iteration and back-to-back median for one size, read from its results file.
preflight_times() {  # np bytes -> "per_iteration batched"
  local out=$work/p$RANDOM$RANDOM.h5
  mpirun -np "$1" "$preflight" comm --op allreduce --sizes "$2" --warmup $warmup --iters "$iters" \
    --min-iters "$iters" --budget 1h --batch-blocks $blocks -o "$out" >/dev/null
  /usr/bin/python3 - "$out" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    s = f["cases/000000/stats"]
    print(f"{s['time_median'][0]:.9e} {s['batched_time_median'][0]:.9e}")
PY
  rm -f "$out"
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

printf '%-5s %-9s | %12s %12s %7s | %12s %12s %7s | %s\n' ranks size "pf iter(us)" "raw iter(us)" ratio \
  "pf b2b(us)" "raw b2b(us)" ratio target
for np in ${NPS:-2 4}; do
  for size in 8 64K 1M 16M; do
    bytes=$(numfmt --from=iec "$size")
    : >"$work/pf" && : >"$work/raw"
    for ((r = 0; r < reps; r++)); do
      preflight_times "$np" "$size" >>"$work/pf"
      mpirun -np "$np" "$work/raw_allreduce" "$bytes" "$iters" $warmup $blocks >>"$work/raw"
    done
    pf_i=$(cut -d' ' -f1 "$work/pf" | median); pf_b=$(cut -d' ' -f2 "$work/pf" | median)
    raw_i=$(cut -d' ' -f1 "$work/raw" | median); raw_b=$(cut -d' ' -f2 "$work/raw" | median)
    target=$([[ $bytes -ge 65536 ]] && echo "±3%" || echo "±10%")
    awk -v np="$np" -v s="$size" -v a="$pf_i" -v b="$raw_i" -v c="$pf_b" -v d="$raw_b" -v t="$target" \
      'BEGIN {printf "%-5s %-9s | %12.2f %12.2f %7.3f | %12.2f %12.2f %7.3f | %s\n", np, s, a*1e6, b*1e6, a/b, c*1e6, d*1e6, c/d, t}'
  done
done
