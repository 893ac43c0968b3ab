#!/usr/bin/env bash
# Parity: preflight's all-reduce times beside a bare timed MPI_Allreduce loop (raw_allreduce.c,
# built here), at 8 B, 64 KiB, 1 MiB and 16 MiB on 2 and 4 ranks. Both take the same number of
# iterations, warm-up and back-to-back blocks; runs alternate, and each figure is the median over
# REPS runs, so drift on a shared machine hits both alike. Prints a ratio table
# (preflight / raw: 1.00 is parity; the targets are within 3% at >= 64 KiB, within 5% at 8 B)
# with the spread of the ratio, so a reader can tell a real gap from the machine's noise.
# A second table gives, from the same runs, the statistic peer tools print (the OSU
# micro-benchmarks, for one): each rank's mean time, averaged over ranks ("mean of rank
# means"); for preflight it is computed from the results file's per-rank samples
# (points/<P>/samples, iteration x rank, and points/<P>/batched, block x rank).
#   scripts/parity/comm-vs-raw.sh [BUILD_DIR]   env: REPS (9), ITERS (200), NPS ("2 4"), SIZES ("8 64K 1M 16M")
#   e.g. the small-message check alone: SIZES=8 scripts/parity/comm-vs-raw.sh build/ci
#   RAW_BURN_MS=N (0): the raw loop's ranks spin N ms before timing (see raw_allreduce.c), to put
#   it on the scheduler's footing of a process that has been busy, as preflight's ranks have.
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

# preflight's per-iteration and back-to-back median for one size, then the mean of rank means of
# each, read from its results file.
preflight_times() {  # np bytes -> "per_iteration batched per_iteration_mrm batched_mrm"
  local out=$work/p$RANDOM$RANDOM.h5
  mpirun -np "$1" "$preflight" comm --op allreduce --sizes "$2" --warmup $warmup --iters "$iters" \
    --min-iters "$iters" --budget 1h --batch-blocks $blocks -o "$out" >/dev/null
  /usr/bin/python3 - "$out" <<'PY'
import sys, h5py, numpy as np
def mean_of_rank_means(m):  # rows x ranks, NaN where a rank idled
    m = np.asarray(m, dtype=float)
    ranks = ~np.all(np.isnan(m), axis=0)
    return float(np.mean(np.nanmean(m[:, ranks], axis=0)))
with h5py.File(sys.argv[1], "r") as f:
    c = f["cases/000000"]
    s = c["stats"]
    p = c["points/0000"]
    print(f"{s['time_median'][0]:.9e} {s['batched_time_median'][0]:.9e} "
          f"{mean_of_rank_means(p['samples'][...]):.9e} {mean_of_rank_means(p['batched'][...]):.9e}")
PY
  rm -f "$out"
}

# Per (ranks, size): runs alternate preflight, raw, preflight, raw, ...; each preflight run is
# paired with the raw run after it. The table shows the median of the paired ratios and their
# interquartile range (the spread a shared machine puts on one ratio), plus how much the raw
# loop alone varied between runs (its CV): a ratio whose IQR straddles 1 is within the noise.
summary() {  # FILE COLUMNS: lines of "pf_iter pf_b2b pf_iter_mrm pf_b2b_mrm raw_iter raw_b2b raw_iter_mrm raw_b2b_mrm"
  # COLUMNS "0 1": the medians of the slowest rank; "2 3": the means of rank means.
  /usr/bin/python3 - "$1" $2 <<'PY'
import random, sys, statistics as st
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
def q(v, p):
    v = sorted(v); i = p * (len(v) - 1); lo = int(i); hi = min(lo + 1, len(v) - 1)
    return v[lo] + (i - lo) * (v[hi] - v[lo])
# The ratio of the two sides' medians over all runs, with a 95% bootstrap interval (pairs
# resampled): where the noise is per launch, as here, pairing adds the noise of both members to
# every ratio, and this says more precisely whether a systematic gap remains.
rng = random.Random(1)
def ratio_of_medians(pairs):
    return st.median(p for p, _ in pairs) / st.median(r for _, r in pairs)
out = []
for pf in map(int, sys.argv[2:]):
    raw = pf + 4
    ratios = [r[pf] / r[raw] for r in rows]
    raws = [r[raw] for r in rows]
    cv = st.stdev(raws) / st.mean(raws) if len(raws) > 1 else 0
    pairs = [(r[pf], r[raw]) for r in rows]
    boot = sorted(ratio_of_medians(rng.choices(pairs, k=len(pairs))) for _ in range(2000))
    out.append(f"{st.median(r[pf] for r in rows)*1e6:10.2f} {st.median(raws)*1e6:10.2f} "
               f"{st.median(ratios):6.3f} [{q(ratios,.25):5.3f},{q(ratios,.75):5.3f}] {cv*100:4.0f}% "
               f"{ratio_of_medians(pairs):6.3f} [{q(boot,.025):5.3f},{q(boot,.975):5.3f}]")
print(" | ".join(out))
PY
}

header() {
  printf '%-5s %-5s | %10s %10s %6s %13s %5s %6s %13s | %10s %10s %6s %13s %5s %6s %13s | %s\n' ranks size \
    "pf iter" "raw iter" ratio "ratio IQR" "rawCV" "RoM" "RoM 95% CI" "pf b2b" "raw b2b" ratio \
    "ratio IQR" "rawCV" "RoM" "RoM 95% CI" target
}

rows=()
echo "uptime at start: $(uptime); REPS=$reps ITERS=$iters RAW_BURN_MS=${RAW_BURN_MS:-0}"
for np in ${NPS:-2 4}; do
  for size in ${SIZES:-8 64K 1M 16M}; do
    bytes=$(numfmt --from=iec "$size")
    pairs=$work/pairs-$np-$size
    : >"$pairs"
    for ((r = 0; r < reps; r++)); do
      pf=$(preflight_times "$np" "$size")
      raw=$(RAW_BURN_MS=${RAW_BURN_MS:-0} mpirun -x RAW_BURN_MS -np "$np" "$work/raw_allreduce" \
        "$bytes" "$iters" $warmup $blocks)
      echo "$pf $raw" >>"$pairs"
    done
    target=$([[ $bytes -ge 65536 ]] && echo "±3%" || echo "±5%")
    rows+=("$np $size $target")
  done
done
echo "uptime at end: $(uptime)"
echo
echo "median over iterations of the slowest rank's time (preflight's time_median, batched_time_median):"
header
for row in "${rows[@]}"; do
  read -r np size target <<<"$row"
  printf '%-5s %-5s | %s | %s\n' "$np" "$size" "$(summary "$work/pairs-$np-$size" "0 1")" "$target"
done
echo
echo "mean of rank means (each rank's mean time, averaged over ranks; the OSU statistic):"
header
for row in "${rows[@]}"; do
  read -r np size target <<<"$row"
  printf '%-5s %-5s | %s | %s\n' "$np" "$size" "$(summary "$work/pairs-$np-$size" "2 3")" "$target"
done
echo
echo "times in microseconds; ratio = preflight / raw (median of $reps paired runs); IQR of the paired ratios;"
echo "rawCV = run-to-run variation of the raw loop alone, i.e. the machine's noise;"
echo "RoM = ratio of the medians over all runs (median preflight / median raw), with its 95% bootstrap interval"
