#!/usr/bin/env bash
# scripts/device/summarize.py reads figures out of preflight's own console tables (a GPU machine's
# python3 may have no h5py): here from a real CPU run, a figure of the table is found by case,
# size and column (the first of two cases of one name), a one-rank collective's NaN busbw is never called the best, and a target whose
# figure the run lacks says "not measured".
# summarize_test.sh PREFLIGHT PREFLIGHT_REPORT WORK
set -euo pipefail
bin=$(realpath "$1") report=$(realpath "$2") work=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
summarize=(/usr/bin/python3 "$root/scripts/device/summarize.py")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_ess_singleton_isolated=1
rm -rf "$work" && mkdir -p "$work" && cd "$work"
quick=(--warmup 1 --min-iters 2 --iters 3 --budget 1ms --batch-blocks 1)
"$bin" memory --kernel triad --sizes 64K --layout rank "${quick[@]}" >memory.log 2>&1
"$bin" comm --op allreduce --sizes 8,64K "${quick[@]}" -o comm.h5 >comm.log 2>&1
fail() { echo "FAIL: $*"; exit 1; }
# The triad's bw at 64 KiB, as the table prints it.
want=$(awk '/^\[case .*cpu triad/ {c=1} c && $1 == 65536 {print $7; exit}' memory.log)
got=$(/usr/bin/python3 -c "
import sys; sys.path.insert(0, '$root/scripts/device')
import summarize
print(summarize.figure('memory.log', r'^cpu triad x[0-9]+ 1 rank per node$', 'array_bytes', 65536, 'bw'))")
[[ -n $want ]] && python3 -c "import sys; sys.exit(abs(float('$got') - float('$want')) > 1e-9 * abs(float('$want')))" ||
  fail "figure(): $got, the table says $want"
# Two benchmarks may print the same case name (gemm and gemm-sustained on the device check): the
# first one's figure, not the later one's (a dict keyed by the name kept the last).
awk '/^\[case .*cpu triad/ {c=1} c && $1 == 65536 {$7 = 999999} {print}' memory.log >later.log
cat memory.log later.log >twice.log
got=$(/usr/bin/python3 -c "
import sys; sys.path.insert(0, '$root/scripts/device')
import summarize
print(summarize.figure('twice.log', r'^cpu triad x[0-9]+ 1 rank per node$', 'array_bytes', 65536, 'bw'))")
python3 -c "import sys; sys.exit(abs(float('$got') - float('$want')) > 1e-9 * abs(float('$want')))" ||
  fail "figure() with a case name printed twice: $got, the first table says $want"
# One rank: the case is a launch check, busbw NaN, and the row claims no bandwidth.
"$report" comm.h5 --json comm.json >/dev/null 2>&1 || true
row=$("${summarize[@]}" row nccl comm.log comm.json 1)
[[ $row != *busbw* ]] || fail "a one-rank collective summarised as bandwidth: $row"
[[ $(awk '$1 == 65536 {print $10, $11; exit}' comm.log) == "- -" ]] ||
  fail "the one-rank table shows a bandwidth figure: $(grep -m1 '^ *65536 ' comm.log)"
targets=$("${summarize[@]}" targets memory.log /nonexistent)
grep -q "^target HBM triad >= 0.95 x 4.1 TB/s: not measured in this run$" <<<"$targets" ||
  fail "targets: $targets"
echo "PASS: summarize.py reads the console's figures; one rank is no bandwidth; absent targets say so"
