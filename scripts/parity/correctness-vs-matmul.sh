#!/usr/bin/env bash
# Parity: the correctness family's GEMM determinism check (GEMM + hash of C + the ranks' hash
# exchange, every run) beside the matmul family's bare GEMM, the same backend, shape, dtype,
# threads, ranks, warm-up and iteration count. Runs alternate, REPS of each, at 1 rank and at 2;
# prints each pair's ratio (checked_tflops / tflops, each the median over iterations of the
# slowest rank) and, per rank count, the median ratio with its quartiles. The target is >= 0.95:
# the check costs at most 5% of the GEMM it checks. On a shared machine the quartiles are the
# noise to read it by; run it when nothing else runs (uptime's load below 1).
#   scripts/parity/correctness-vs-matmul.sh [BUILD_DIR]
#   env: REPS (5), SIZE (1024: m = n = k), THREADS (1), ITERS (20), DTYPE (float32), RANKS ("1 2"),
#        BACKEND (openblas)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/default}
preflight=$build/bench/preflight
[[ -x $preflight ]] || { echo "correctness-vs-matmul: build preflight first (cmake --preset default && cmake --build --preset default)" >&2; exit 2; }
source "$root/scripts/mpi-env.sh"
reps=${REPS:-5} size=${SIZE:-1024} threads=${THREADS:-1} iters=${ITERS:-20} dtype=${DTYPE:-float32}
ranks_list=${RANKS:-1 2} backend=${BACKEND:-openblas}
timing=(--warmup 3 --min-iters "$iters" --iters "$iters" --budget 1h --batch-blocks 1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# figure NP COLUMN ARGS...: the first case's first point's COLUMN, in GFLOP/s.
figure() {
  local np=$1 column=$2 out=$work/r$RANDOM.h5
  shift 2
  mpirun -np "$np" "$preflight" "$@" --dtype "$dtype" --sizes "$size" --threads "$threads" \
    "${timing[@]}" -o "$out" </dev/null >/dev/null
  /usr/bin/python3 -c "import h5py, sys
s = h5py.File(sys.argv[1], 'r')['cases/000000/stats']
print('%.6f' % (s[sys.argv[2]][0] * 1e3))" "$out" "$column"
  rm -f "$out"
}

summary=()
for np in $ranks_list; do
  printf "%-6s %-4s %16s %16s %8s\n" ranks rep check_GF/s matmul_GF/s ratio
  ratios=$work/ratios-$np
  : >"$ratios"
  for ((r = 1; r <= reps; r++)); do
    # Alternate which side goes first, so a drift of the machine does not favour one.
    if ((r % 2)); then
      c=$(figure "$np" checked_tflops correctness --checks gemm --gemm-backend "$backend")
      m=$(figure "$np" tflops matmul --backend "$backend")
    else
      m=$(figure "$np" tflops matmul --backend "$backend")
      c=$(figure "$np" checked_tflops correctness --checks gemm --gemm-backend "$backend")
    fi
    ratio=$(awk -v c="$c" -v m="$m" 'BEGIN {printf "%.3f", c / m}')
    echo "$ratio" >>"$ratios"
    printf "%-6s %-4s %16.2f %16.2f %8s\n" "$np" "$r" "$c" "$m" "$ratio"
  done
  summary+=("$(/usr/bin/python3 - "$ratios" "$np" <<'PY'
import sys, statistics as st
v = sorted(float(l) for l in open(sys.argv[1]) if l.strip())
def q(p):
    i = p * (len(v) - 1); lo = int(i); hi = min(lo + 1, len(v) - 1)
    return v[lo] + (i - lo) * (v[hi] - v[lo])
print(f"{sys.argv[2]} rank(s): median ratio {st.median(v):.3f} [quartiles {q(.25):.3f}, {q(.75):.3f}], {len(v)} pairs")
PY
)")
done
echo "gemm determinism check vs matmul, $backend $dtype ${size}^3, $threads thread(s) per rank (target >= 0.95):"
printf "  %s\n" "${summary[@]}"
ok=1
for line in "${summary[@]}"; do
  m=$(sed -E 's/.*median ratio ([0-9.]+).*/\1/' <<<"$line")
  awk -v m="$m" 'BEGIN {exit !(m >= 0.95)}' || ok=0
done
((ok))
