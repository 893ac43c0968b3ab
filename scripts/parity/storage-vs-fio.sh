#!/usr/bin/env bash
# Parity: preflight's storage reads beside fio's, on the very same files (data sets preflight
# prepares once and keeps), with the same block size, queue depth, engine (psync <-> psync,
# io_uring <-> io_uring, mmap <-> mmap), direct flag, sequential (read) and random (randread)
# access, and 1 and 2 jobs (preflight: 1 and 2 ranks, a file each; fio: numjobs as jobs with a
# file each, group_reporting). Cold on both sides: O_DIRECT, or buffered with the file evicted
# before each read (preflight's evicted state; for fio the script evicts before it starts, as
# preflight does, so that fio's invalidate=1 has nothing left to drop inside its timed run).
# Each run reads every block of each file once; sequential reads use larger files than random
# ones, so that a run lasts long enough that start-up (opening, ring and buffers, fio's
# millisecond run time) is a small part of it. Job j runs on CPU j of CPUS on both sides
# (preflight: mpirun --cpu-list CPUS --bind-to cpu-list:ordered; fio: cpus_allowed=CPUS,
# cpus_allowed_policy=split): unpinned, where each job happens to land decides the figure on a
# small machine (docs/storage.md, "Where the jobs run"). Runs alternate, preflight first in
# even pairs and fio first in odd ones; the table shows each side's median bandwidth and IOPS,
# the median of the paired ratios (preflight / fio: 1.00 is parity; target >= 0.97) with its
# interquartile range, and fio's own run-to-run variation (CV), i.e. the machine's noise.
#   Both sides' figures as fio defines its group's: bytes of all jobs / the longest job's own
# time (fio times each job from its own start; it has no common start). preflight reports
# bytes / (last finish - first start) over its ranks, as IOR does; column "span" is that
# figure over the one in the table (1.000 on one job; below 1 where ranks left the starting
# barrier apart).
#   scripts/parity/storage-vs-fio.sh [BUILD_DIR]
#   env: DIR (a directory on a real disk; default a fresh one in /var/tmp), REPS (5), SEQ_SIZE
#        (1G per job, sequential), RAND_SIZE (128M per job, random; SIZE sets both), SEQ_BS
#        (1M), RAND_BS (16K), QD (16, io_uring), JOBS ("1 2"), ENGINES ("psync io_uring mmap"),
#        ACCESS ("read randread"), CPUS (the jobs' CPUs, job j on the j-th: "0,1,..."),
#        WARM_SOURCE (1: read the files once with O_DIRECT before each run, paired_summary.sh;
#        0: not), FIO_ARGS (more fio options, e.g. for an experiment; none)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/default}
preflight=$build/bench/preflight
[[ -x $preflight ]] || { echo "storage-vs-fio: build preflight first (cmake --preset default && cmake --build --preset default)" >&2; exit 2; }
command -v fio >/dev/null || { echo "storage-vs-fio: fio is not installed (apt-get install fio)" >&2; exit 2; }
source "$root/scripts/mpi-env.sh"
source "$here/paired_summary.sh"
reps=${REPS:-5} seq_bs=${SEQ_BS:-1M} rand_bs=${RAND_BS:-16K} qd=${QD:-16}
seq_size=${SEQ_SIZE:-${SIZE:-1G}} rand_size=${RAND_SIZE:-${SIZE:-128M}}
read -ra fio_args <<<"${FIO_ARGS:-}"
base=${DIR:-/var/tmp}
work=$(mktemp -d "$base/storage-vs-fio.XXXXXX")
trap 'rm -rf "$work"' EXIT
[[ $(stat -f -c %T "$work") != tmpfs ]] || { echo "storage-vs-fio: $work is on tmpfs: choose DIR on a disk" >&2; exit 2; }
maxjobs=$(tr ' ' '\n' <<<"${JOBS:-1 2}" | sort -n | tail -1)
cpus=${CPUS:-$(seq -s, 0 $((maxjobs - 1)))}

# One data set per access: rank-000000.dat, rank-000001.dat, ... of its size each, kept for
# every run; the sequential reads' set is <work>/preflight-parity-read, the random reads'
# <work>/preflight-parity-randread.
size_of() { [[ $1 == randread ]] && echo "$rand_size" || echo "$seq_size"; }
for rw in ${ACCESS:-read randread}; do
  mpirun -np "$maxjobs" "$preflight" storage --dir "$work" --dataset "parity-$rw" --size "$(size_of "$rw")" \
    --block-sizes "$seq_bs" --cache warm --warmup 0 --min-iters 1 --iters 1 --keep true >/dev/null
done
files_of() {  # rw jobs -> the files the jobs read, one a line
  for ((j = 0; j < $2; j++)); do printf '%s/preflight-parity-%s/rank-%06d.dat\n' "$work" "$1" "$j"; done
}

preflight_run() {  # engine direct(0/1) rw bs jobs -> "bandwidth_GB/s iops span_bandwidth_GB/s"
  local engine=$1 direct=$2 rw=$3 bs=$4 jobs=$5 out=$work/p$RANDOM$RANDOM.h5
  local cache=evicted access=sequential depth=()
  [[ $direct == 1 ]] && cache=direct
  [[ $rw == randread ]] && access=random
  [[ $engine == io_uring ]] && depth=(--queue-depth "$qd")
  warm_source $(files_of "$rw" "$jobs")
  mpirun -np "$jobs" --cpu-list "$cpus" --bind-to cpu-list:ordered "$preflight" storage --dir "$work" --dataset "parity-$rw" \
    --size "$(size_of "$rw")" --keep true --engine "$engine" --cache "$cache" --access "$access" \
    --block-sizes "$bs" "${depth[@]}" --warmup 0 --min-iters 1 --iters 1 -o "$out" >/dev/null
  # fio's group figure: bytes of all jobs / the longest job's own time; and preflight's own.
  /usr/bin/python3 - "$out" <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    case = f["cases/000000"]
    p = case["points/0000"]
    longest = np.nanmax(p["samples"][0])
    print(f"{np.nansum(p['counters/bytes'][0]) / longest / 1e9:.6f} "
          f"{np.nansum(p['counters/ops'][0]) / longest:.3f} {case['stats/agg_bw'][0]:.6f}")
PY
  rm -f "$out"
}

fio_run() {  # engine direct rw bs jobs -> "bandwidth_GB/s iops"
  local engine=$1 direct=$2 rw=$3 bs=$4 jobs=$5 files=() paths
  mapfile -t paths < <(files_of "$rw" "$jobs")
  for ((j = 0; j < jobs; j++)); do files+=(--name="job$j" --filename="${paths[j]}"); done
  warm_source "${paths[@]}"
  evict "${paths[@]}"
  fio --ioengine="$engine" --direct="$direct" --rw="$rw" --bs="$bs" --iodepth="$([[ $engine == io_uring ]] && echo "$qd" || echo 1)" \
    --size="$(size_of "$rw")" --invalidate=1 --group_reporting --cpus_allowed="$cpus" --cpus_allowed_policy=split \
    --output-format=json "${fio_args[@]}" "${files[@]}" |
    /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)["jobs"][0]["read"]
print("%.6f %.3f" % (r["bw_bytes"] / 1e9, r["iops"]))'
}

printf '%-8s %-6s %-8s %-5s %-4s | %7s %9s | %7s %9s | %6s %13s %5s %5s\n' engine direct access bs jobs \
  "pf GB/s" "pf IOPS" "fio GB/s" "fio IOPS" ratio "ratio IQR" fioCV span
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
          # Each side first in half the pairs: what the order favours (the state the run
          # before leaves) falls on both alike.
          if ((r % 2 == 0)); then
            pf=$(preflight_run "$engine" "$direct" "$rw" "$bs" "$jobs")
            fo=$(fio_run "$engine" "$direct" "$rw" "$bs" "$jobs")
          else
            fo=$(fio_run "$engine" "$direct" "$rw" "$bs" "$jobs")
            pf=$(preflight_run "$engine" "$direct" "$rw" "$bs" "$jobs")
          fi
          read -r pf_bw pf_iops pf_span <<<"$pf"
          echo "$pf_bw $pf_iops $fo $pf_span" >>"$work/pairs"
        done
        printf '%-8s %-6s %-8s %-5s %-4s | %s\n' "$engine" "$direct" "$rw" "$bs" "$jobs" "$(summary "$work/pairs")"
      done
    done
  done
done
echo "bandwidth in GB/s (10^9 B/s) and IOPS, both sides as fio's group figure: bytes of all jobs / the longest job's own time."
echo "span = preflight's reported agg_bw (bytes / (last finish - first start) over its ranks) / pf GB/s, median over the runs."
echo "ratio = preflight / fio, median of $reps paired runs, with its IQR; fioCV = fio's run-to-run variation (the noise)."
echo "size $seq_size per job sequential, $rand_size random; queue depth $qd for io_uring (1 otherwise); job j on CPU j of $cpus on both sides; WARM_SOURCE=${WARM_SOURCE:-1}; files in $work (removed)."
[[ -z ${FIO_ARGS:-} ]] || echo "fio also given: $FIO_ARGS"
