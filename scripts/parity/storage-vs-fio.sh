#!/usr/bin/env bash
# Parity: preflight's storage reads beside fio's, on the very same files (a data set preflight
# prepares once and keeps), with the same block size, queue depth, engine (psync <-> psync,
# io_uring <-> io_uring, mmap <-> mmap), direct flag, sequential (read) and random (randread)
# access, and 1 and 2 jobs (preflight: 1 and 2 ranks, a file each; fio: numjobs as jobs with a
# file each, group_reporting). Cold on both sides: O_DIRECT, or buffered with the file evicted
# before each read (preflight's evicted state; fio's default invalidate=1). Each run reads
# every block of each file once. Neither side is pinned to a core (mpirun --bind-to none: fio
# does not pin either). Runs alternate preflight, fio, preflight, fio, ...; the table
# shows each side's median bandwidth and IOPS, the median of the paired ratios
# (preflight / fio: 1.00 is parity; target >= 0.95) with its interquartile range, and fio's own
# run-to-run variation (CV), i.e. the machine's noise.
#   scripts/parity/storage-vs-fio.sh [BUILD_DIR]
#   env: DIR (a directory on a real disk; default a fresh one in /var/tmp), REPS (5), SIZE (128M
#        per job), SEQ_BS (1M), RAND_BS (16K), QD (16, io_uring), JOBS ("1 2"), ENGINES
#        ("psync io_uring mmap"), ACCESS ("read randread")
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/default}
preflight=$build/bench/preflight
[[ -x $preflight ]] || { echo "storage-vs-fio: build preflight first (cmake --preset default && cmake --build --preset default)" >&2; exit 2; }
command -v fio >/dev/null || { echo "storage-vs-fio: fio is not installed (apt-get install fio)" >&2; exit 2; }
source "$root/scripts/mpi-env.sh"
source "$here/paired_summary.sh"
reps=${REPS:-5} size=${SIZE:-128M} seq_bs=${SEQ_BS:-1M} rand_bs=${RAND_BS:-16K} qd=${QD:-16}
base=${DIR:-/var/tmp}
work=$(mktemp -d "$base/storage-vs-fio.XXXXXX")
trap 'rm -rf "$work"' EXIT
[[ $(stat -f -c %T "$work") != tmpfs ]] || { echo "storage-vs-fio: $work is on tmpfs: choose DIR on a disk" >&2; exit 2; }
set_dir=$work/preflight-parity
maxjobs=$(tr ' ' '\n' <<<"${JOBS:-1 2}" | sort -n | tail -1)

# The data set: rank-000000.dat, rank-000001.dat, ... of SIZE each, kept for every run.
mpirun -np "$maxjobs" "$preflight" storage --dir "$work" --dataset parity --size "$size" \
  --block-sizes "$seq_bs" --cache warm --warmup 0 --min-iters 1 --iters 1 --keep true >/dev/null

preflight_run() {  # engine direct(0/1) rw bs jobs -> "bandwidth_GB/s iops"
  local engine=$1 direct=$2 rw=$3 bs=$4 jobs=$5 out=$work/p$RANDOM$RANDOM.h5
  local cache=evicted access=sequential depth=()
  [[ $direct == 1 ]] && cache=direct
  [[ $rw == randread ]] && access=random
  [[ $engine == io_uring ]] && depth=(--queue-depth "$qd")
  mpirun -np "$jobs" --bind-to none "$preflight" storage --dir "$work" --dataset parity --size "$size" --keep true \
    --engine "$engine" --cache "$cache" --access "$access" --block-sizes "$bs" "${depth[@]}" \
    --warmup 0 --min-iters 1 --iters 1 -o "$out" >/dev/null
  /usr/bin/python3 - "$out" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    s = f["cases/000000/stats"]
    print(f"{s['agg_bw'][0]:.6f} {s['iops'][0]:.3f}")
PY
  rm -f "$out"
}

fio_run() {  # engine direct rw bs jobs -> "bandwidth_GB/s iops"
  local engine=$1 direct=$2 rw=$3 bs=$4 jobs=$5 files=()
  for ((j = 0; j < jobs; j++)); do
    files+=(--name="job$j" --filename="$(printf '%s/rank-%06d.dat' "$set_dir" "$j")")
  done
  fio --ioengine="$engine" --direct="$direct" --rw="$rw" --bs="$bs" --iodepth="$([[ $engine == io_uring ]] && echo "$qd" || echo 1)" \
    --size="$size" --invalidate=1 --group_reporting --output-format=json "${files[@]}" |
    /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)["jobs"][0]["read"]
print("%.6f %.3f" % (r["bw_bytes"] / 1e9, r["iops"]))'
}

printf '%-8s %-6s %-8s %-5s %-4s | %7s %9s | %7s %9s | %6s %13s %5s\n' engine direct access bs jobs \
  "pf GB/s" "pf IOPS" "fio GB/s" "fio IOPS" ratio "ratio IQR" fioCV
for engine in ${ENGINES:-psync io_uring mmap}; do
  directs="0 1"
  [[ $engine == mmap ]] && directs=0  # a mapping always goes through the page cache
  for direct in $directs; do
    for rw in ${ACCESS:-read randread}; do
      bs=$seq_bs
      [[ $rw == randread ]] && bs=$rand_bs
      for jobs in ${JOBS:-1 2}; do
        : >"$work/pairs"
        for ((r = 0; r < reps; r++)); do
          echo "$(preflight_run "$engine" "$direct" "$rw" "$bs" "$jobs") $(fio_run "$engine" "$direct" "$rw" "$bs" "$jobs")" >>"$work/pairs"
        done
        printf '%-8s %-6s %-8s %-5s %-4s | %s\n' "$engine" "$direct" "$rw" "$bs" "$jobs" "$(summary "$work/pairs")"
      done
    done
  done
done
echo "bandwidth in GB/s (10^9 B/s), aggregate over jobs: total bytes / (last finish - first start); IOPS likewise."
echo "ratio = preflight / fio, median of $reps paired runs, with its IQR; fioCV = fio's run-to-run variation (the noise)."
echo "size $size per job, queue depth $qd for io_uring (1 otherwise), files in $work (removed)."
