#!/usr/bin/env bash
# Parity: preflight's checkpoint save and restore beside fio's, on the very same files (a
# checkpoint preflight lays out once and keeps), with the same block size, engine (psync <->
# psync, io_uring <-> io_uring at the same queue depth) and jobs (preflight: ranks with a file
# each; fio: numjobs as jobs with a file each, group_reporting).
#   save:    preflight's durable save (each rank overwrites its file, then fdatasync and the
#            directory's fsync) <-> fio --rw=write --end_fsync=1 on the same files; both start
#            with the file written back and dropped from the page cache, outside the clock (for
#            fio the script does it, as preflight does before each save). One untimed save
#            comes first on preflight's side (--warmup 1), as fio fills its write buffers before
#            its clock starts: neither side's time then includes faulting its buffers in;
#   restore: preflight's restore after eviction <-> fio --rw=read with invalidate=1 (cold; the
#            script evicts first, so that fio has nothing left to drop inside its timed run).
# What the two sides do differently, and stays: preflight gives each block the pattern of its
# place in the file before writing it, so a restore can check it (a reused buffer of a 1 MiB
# multiple needs one word a sector changed, as fio's scramble_buffers changes a few bytes of
# buffers it filled once; smaller blocks are filled whole), and fsyncs the directory (fio
# cannot); fio fsyncs where preflight fdatasyncs.
# Job j runs on CPU j of CPUS on both sides (preflight: mpirun --cpu-list CPUS --bind-to
# cpu-list:ordered; fio: cpus_allowed=CPUS, cpus_allowed_policy=split), so that where a job
# lands is no difference (docs/storage.md, "Where the jobs run").
# Runs alternate, preflight first in even pairs and fio first in odd ones; the table shows each
# side's median bandwidth and IOPS, the median of the paired ratios (preflight / fio: target >=
# 0.95) with its interquartile range, and fio's run-to-run variation (CV), i.e. the machine's
# noise. Both sides' figures are as fio defines its group's: bytes of all jobs / the longest
# job's own time (fio times each job from its own start); column "span" is preflight's reported
# figure, over its ranks' span (first start to last finish, as IOR), over the one in the table.
#   scripts/parity/checkpoint-vs-fio.sh [BUILD_DIR]
#   env: DIR (a directory on a real disk; default a fresh one in /var/tmp), REPS (5), SIZE (1G
#        per job), BS (1M), QD (16, io_uring), JOBS ("1 2"), ENGINES ("psync io_uring"),
#        CPUS (the jobs' CPUs, job j on the j-th: "0,1,..."), WARM_SOURCE (1: read a restore's
#        files once with O_DIRECT before each run, paired_summary.sh; 0: not), FIO_ARGS (more
#        fio options, e.g. --refill_buffers=1 to have fio fill each block too; none)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/default}
preflight=$build/bench/preflight
[[ -x $preflight ]] || { echo "checkpoint-vs-fio: build preflight first (cmake --preset default && cmake --build --preset default)" >&2; exit 2; }
command -v fio >/dev/null || { echo "checkpoint-vs-fio: fio is not installed (apt-get install fio)" >&2; exit 2; }
source "$root/scripts/mpi-env.sh"
source "$here/paired_summary.sh"
reps=${REPS:-5} size=${SIZE:-1G} bs=${BS:-1M} qd=${QD:-16}
read -ra fio_args <<<"${FIO_ARGS:-}"
base=${DIR:-/var/tmp}
work=$(mktemp -d "$base/checkpoint-vs-fio.XXXXXX")
trap 'rm -rf "$work"' EXIT
[[ $(stat -f -c %T "$work") != tmpfs ]] || { echo "checkpoint-vs-fio: $work is on tmpfs: choose DIR on a disk" >&2; exit 2; }
set_dir=$work/preflight-parity
maxjobs=$(tr ' ' '\n' <<<"${JOBS:-1 2}" | sort -n | tail -1)
cpus=${CPUS:-$(seq -s, 0 $((maxjobs - 1)))}

# The checkpoint: rank-000000.dat, rank-000001.dat, ... of SIZE each, kept for every run.
mpirun -np "$maxjobs" "$preflight" checkpoint --dir "$work" --dataset parity --size "$size" \
  --block-sizes "$bs" --phases restore --restore warm --warmup 0 --min-iters 1 --iters 1 --keep true >/dev/null

files_of() {  # jobs -> the files the jobs read or write, one a line
  for ((j = 0; j < $1; j++)); do printf '%s/rank-%06d.dat\n' "$set_dir" "$j"; done
}

preflight_run() {  # engine phase(save/restore) jobs -> "bandwidth_GB/s iops span_bandwidth_GB/s"
  local engine=$1 phase=$2 jobs=$3 out=$work/p$RANDOM$RANDOM.h5 depth=() warmup=0
  [[ $engine == io_uring ]] && depth=(--queue-depth "$qd")
  # A save's first run faults in its write buffers (queue depth x block per rank) and sets up
  # its ring; fio does both before its clock starts. A read's buffers fault in on both sides.
  [[ $phase == save ]] && warmup=1
  [[ $phase == restore ]] && warm_source $(files_of "$jobs")
  mpirun -np "$jobs" --cpu-list "$cpus" --bind-to cpu-list:ordered "$preflight" checkpoint --dir "$work" --dataset parity --size "$size" \
    --keep true --engine "$engine" --phases "$phase" --durability durable --restore evicted \
    --block-sizes "$bs" "${depth[@]}" --verify false --warmup "$warmup" --min-iters 1 --iters 1 -o "$out" >/dev/null
  # fio's group figure: bytes of all jobs / the longest job's own time; and preflight's own.
  /usr/bin/python3 - "$out" <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    case = f["cases/000000"]
    s, p = case["stats"], case["points/0000"]
    longest = np.nanmax(p["samples"][0])
    done = np.nansum(p["counters/bytes"][0])
    ops = np.nansum(p["counters/ops"][0]) if "ops" in p["counters"] else done / s["block_bytes"][0]
    span_bw = s["save_bw"][0] if "save_bw" in s else s["agg_bw"][0]
    print(f"{done / longest / 1e9:.6f} {ops / longest:.3f} {span_bw:.6f}")
PY
  rm -f "$out"
}

fio_run() {  # engine phase jobs -> "bandwidth_GB/s iops"
  local engine=$1 phase=$2 jobs=$3 files=() paths=() rw=read extra=()
  [[ $phase == save ]] && rw=write extra=(--end_fsync=1)
  mapfile -t paths < <(files_of "$jobs")
  for ((j = 0; j < jobs; j++)); do files+=(--name="job$j" --filename="${paths[j]}"); done
  # As preflight starts each save and restore: nothing of the files dirty or cached.
  [[ $phase == restore ]] && warm_source "${paths[@]}"
  evict "${paths[@]}"
  fio --ioengine="$engine" --direct=0 --rw="$rw" --bs="$bs" "${extra[@]}" \
    --iodepth="$([[ $engine == io_uring ]] && echo "$qd" || echo 1)" \
    --size="$size" --invalidate=1 --group_reporting --cpus_allowed="$cpus" --cpus_allowed_policy=split \
    --output-format=json "${fio_args[@]}" "${files[@]}" |
    /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)["jobs"][0]
r = j["write"] if j["write"]["io_bytes"] > 0 else j["read"]
print("%.6f %.3f" % (r["bw_bytes"] / 1e9, r["iops"]))'
}

printf '%-8s %-8s %-5s %-4s | %7s %9s | %7s %9s | %6s %13s %5s %5s\n' engine phase bs jobs \
  "pf GB/s" "pf IOPS" "fio GB/s" "fio IOPS" ratio "ratio IQR" fioCV span
for engine in ${ENGINES:-psync io_uring}; do
  for phase in save restore; do
    for jobs in ${JOBS:-1 2}; do
      : >"$work/pairs"
      for ((r = 0; r < reps; r++)); do
        # Each side first in half the pairs: what the order favours (the state the run before
        # leaves) falls on both alike.
        if ((r % 2 == 0)); then
          pf=$(preflight_run "$engine" "$phase" "$jobs")
          fo=$(fio_run "$engine" "$phase" "$jobs")
        else
          fo=$(fio_run "$engine" "$phase" "$jobs")
          pf=$(preflight_run "$engine" "$phase" "$jobs")
        fi
        read -r pf_bw pf_iops pf_span <<<"$pf"
        echo "$pf_bw $pf_iops $fo $pf_span" >>"$work/pairs"
      done
      printf '%-8s %-8s %-5s %-4s | %s\n' "$engine" "$phase" "$bs" "$jobs" "$(summary "$work/pairs")"
    done
  done
done
echo "bandwidth in GB/s (10^9 B/s) and IOPS, both sides as fio's group figure: bytes of all jobs / the longest job's own time."
echo "span = preflight's reported save_bw or agg_bw (bytes / (last finish - first start) over its ranks) / pf GB/s, median."
echo "save: preflight durable save (fdatasync + directory fsync; one untimed save first) vs fio write with end_fsync=1;"
echo "restore: preflight restore after eviction vs fio read, invalidate=1 (cold); both evicted outside the clock."
echo "ratio = preflight / fio, median of $reps paired runs, with its IQR; fioCV = fio's run-to-run variation (the noise)."
echo "size $size per job, block $bs, queue depth $qd for io_uring (1 otherwise), job j on CPU j of $cpus on both sides, WARM_SOURCE=${WARM_SOURCE:-1}, files in $work (removed)."
[[ -z ${FIO_ARGS:-} ]] || echo "fio also given: $FIO_ARGS"
