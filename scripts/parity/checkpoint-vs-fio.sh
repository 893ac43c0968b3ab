#!/usr/bin/env bash
# Parity: preflight's checkpoint save and restore beside fio's, on the very same files (a
# checkpoint preflight lays out once and keeps), with the same block size, engine (psync <->
# psync, io_uring <-> io_uring at the same queue depth) and jobs (preflight: ranks with a file
# each; fio: numjobs as jobs with a file each, group_reporting).
#   save:    preflight's durable save (each rank overwrites its file, then fdatasync and the
#            directory's fsync) <-> fio --rw=write --end_fsync=1 on the same files; both start
#            with the file written back and dropped from the page cache;
#   restore: preflight's restore after eviction <-> fio --rw=read with invalidate=1 (cold).
# Runs alternate preflight, fio, preflight, fio, ...; the table shows each side's median
# bandwidth and IOPS, the median of the paired ratios (preflight / fio: target >= 0.95) with
# its interquartile range, and fio's run-to-run variation (CV), i.e. the machine's noise.
#   scripts/parity/checkpoint-vs-fio.sh [BUILD_DIR]
#   env: DIR (a directory on a real disk; default a fresh one in /var/tmp), REPS (5), SIZE (256M
#        per job), BS (1M), QD (16, io_uring), JOBS ("1 2"), ENGINES ("psync io_uring")
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/default}
preflight=$build/bench/preflight
[[ -x $preflight ]] || { echo "checkpoint-vs-fio: build preflight first (cmake --preset default && cmake --build --preset default)" >&2; exit 2; }
command -v fio >/dev/null || { echo "checkpoint-vs-fio: fio is not installed (apt-get install fio)" >&2; exit 2; }
source "$root/scripts/mpi-env.sh"
source "$here/paired_summary.sh"
reps=${REPS:-5} size=${SIZE:-256M} bs=${BS:-1M} qd=${QD:-16}
base=${DIR:-/var/tmp}
work=$(mktemp -d "$base/checkpoint-vs-fio.XXXXXX")
trap 'rm -rf "$work"' EXIT
[[ $(stat -f -c %T "$work") != tmpfs ]] || { echo "checkpoint-vs-fio: $work is on tmpfs: choose DIR on a disk" >&2; exit 2; }
set_dir=$work/preflight-parity
maxjobs=$(tr ' ' '\n' <<<"${JOBS:-1 2}" | sort -n | tail -1)

# The checkpoint: rank-000000.dat, rank-000001.dat, ... of SIZE each, kept for every run.
mpirun -np "$maxjobs" "$preflight" checkpoint --dir "$work" --dataset parity --size "$size" \
  --block-sizes "$bs" --phases restore --restore warm --warmup 0 --min-iters 1 --iters 1 --keep true >/dev/null

preflight_run() {  # engine phase(save/restore) jobs -> "bandwidth_GB/s iops"
  local engine=$1 phase=$2 jobs=$3 out=$work/p$RANDOM$RANDOM.h5 depth=()
  [[ $engine == io_uring ]] && depth=(--queue-depth "$qd")
  mpirun -np "$jobs" --bind-to none "$preflight" checkpoint --dir "$work" --dataset parity --size "$size" \
    --keep true --engine "$engine" --phases "$phase" --durability durable --restore evicted \
    --block-sizes "$bs" "${depth[@]}" --verify false --warmup 0 --min-iters 1 --iters 1 -o "$out" >/dev/null
  /usr/bin/python3 - "$out" "$bs" <<'PY'
import sys, h5py
from math import nan
with h5py.File(sys.argv[1], "r") as f:
    s = f["cases/000000/stats"]
    bw = s["save_bw"][0] if "save_bw" in s else s["agg_bw"][0]
    block = float(s["block_bytes"][0])
    print(f"{bw:.6f} {bw * 1e9 / block:.3f}")
PY
  rm -f "$out"
}

fio_run() {  # engine phase jobs -> "bandwidth_GB/s iops"
  local engine=$1 phase=$2 jobs=$3 files=() rw=read extra=()
  [[ $phase == save ]] && rw=write extra=(--end_fsync=1)
  for ((j = 0; j < jobs; j++)); do
    files+=(--name="job$j" --filename="$(printf '%s/rank-%06d.dat' "$set_dir" "$j")")
  done
  # A save starts from a clean cache, as preflight's does: whatever is dirty is written back.
  sync
  fio --ioengine="$engine" --direct=0 --rw="$rw" --bs="$bs" "${extra[@]}" \
    --iodepth="$([[ $engine == io_uring ]] && echo "$qd" || echo 1)" \
    --size="$size" --invalidate=1 --group_reporting --output-format=json "${files[@]}" |
    /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)["jobs"][0]
r = j["write"] if j["write"]["io_bytes"] > 0 else j["read"]
print("%.6f %.3f" % (r["bw_bytes"] / 1e9, r["iops"]))'
}

printf '%-8s %-8s %-5s %-4s | %7s %9s | %7s %9s | %6s %13s %5s\n' engine phase bs jobs \
  "pf GB/s" "pf IOPS" "fio GB/s" "fio IOPS" ratio "ratio IQR" fioCV
for engine in ${ENGINES:-psync io_uring}; do
  for phase in save restore; do
    for jobs in ${JOBS:-1 2}; do
      : >"$work/pairs"
      for ((r = 0; r < reps; r++)); do
        echo "$(preflight_run "$engine" "$phase" "$jobs") $(fio_run "$engine" "$phase" "$jobs")" >>"$work/pairs"
      done
      printf '%-8s %-8s %-5s %-4s | %s\n' "$engine" "$phase" "$bs" "$jobs" "$(summary "$work/pairs")"
    done
  done
done
echo "bandwidth in GB/s (10^9 B/s), aggregate over jobs: total bytes / (last finish - first start)."
echo "save: preflight durable save (fdatasync + directory fsync) vs fio write with end_fsync=1;"
echo "restore: preflight restore after eviction vs fio read, invalidate=1 (cold)."
echo "ratio = preflight / fio, median of $reps paired runs, with its IQR; fioCV = fio's run-to-run variation (the noise)."
echo "size $size per job, block $bs, queue depth $qd for io_uring (1 otherwise), files in $work (removed)."
