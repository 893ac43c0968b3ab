#!/usr/bin/env bash
# The compute families on 4 virtual nodes of 1 rank (mpirun -np 4, 2 cores): figures, the
# check of C, the fraction of the CPU peak and how it was found, the CPU telemetry series, no
# GPU figure anywhere without NVML (terminal, HTML, Markdown, JSON), and a planted slow node (--test-slow-node: its rank waits as
# long again after each operation) named by the report and marked below its peers' median in the
# per-device chart. Then the memory family on 2 virtual nodes of 2 ranks.
# compute_test.sh PREFLIGHT PREFLIGHT_REPORT WORKDIR
set -uo pipefail
bin=$1 report=$2 work=$3
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
host=$(hostname)
quick=(--warmup 2 --min-iters 8 --iters 12 --budget 30ms --batch-blocks 2)

out=$work/matmul.h5
mpirun -np 4 "$bin" matmul --ranks-per-node 1 --dtype float32,float64 --sizes 64,96 \
  --shapes 80x48x40 --shapes-name layer --interval 10ms "${quick[@]}" \
  --test-slow-node 2 --test-slow-factor 1.0 -o "$out" >"$work/matmul.log" 2>&1 ||
  { fail "preflight matmul failed"; tail -20 "$work/matmul.log"; }

cases=$(h5 "$out" "print(sum(1 for c in f['cases'].values() if text(c.attrs['family']) == 'matmul'))")
[[ $cases -eq 4 ]] && pass "4 matmul cases (2 dtypes x square, layer)" || fail "matmul cases: $cases"
bad=$(h5 "$out" "
import math
for n, c in f['cases'].items():
    if text(c.attrs['status']) != 'ok': print(n, 'status', text(c.attrs['status']))
    s = c['stats']
    for i in range(len(s['tflops'])):
        if not (s['tflops'][i] > 0): print(n, 'tflops', s['tflops'][i])
        if not (0 < s['peak_fraction'][i] <= 1.5): print(n, 'peak_fraction', s['peak_fraction'][i])
        if s['flop'][i] != 2 * s['gemm_m'][i] * s['gemm_n'][i] * s['gemm_k'][i]: print(n, 'flop')
    if int(c.attrs['verify_samples']) != 256: print(n, 'verify_samples')
")
[[ -z $bad ]] && pass "every case ok: tflops > 0, 0 < peak_fraction <= 1.5, flop = 2mnk" || fail "$bad"
src=$(h5 "$out" "print(text(next(iter(f['cases'].values())).attrs['peak_source']))")
[[ $src == *"/proc/cpuinfo"* && $src == *"FMA"* && $src == *"GHz"* ]] &&
  pass "peak source: $src" || fail "peak source says not how: $src"
tele=$(h5 "$out" "
c = next(iter(f['cases'].values()))
series = sorted({k for p in c['points'].values() for k in p['series']})
rows = min(p['series']['cpu_mhz'].shape[0] for p in c['points'].values())
print(text(c.attrs['telemetry']), '|', ' '.join(series), '|', rows)")
[[ $tele == *"gpu: not available"* ]] && pass "telemetry: ${tele%%|*}" || fail "telemetry: $tele"
[[ $tele == *cpu_mhz* && $tele == *interval_tflops* ]] && pass "series: $(cut -d'|' -f2 <<<"$tele")" ||
  fail "no cpu_mhz or interval_tflops series: $tele"
[[ ${tele##*| } -ge 1 ]] && pass "cpu_mhz has ${tele##*| } row(s) or more per point" || fail "cpu_mhz empty"
[[ $tele != *gpu_* ]] && pass "no GPU series in the file" || fail "GPU series recorded without NVML: $tele"

"$report" "$out" --no-color --html "$work/report.html" --md "$work/report.md" \
  --json "$work/report.json" >"$work/report.txt" 2>&1
grep -q "^# slow node: $host/v2 " "$work/report.txt" &&
  pass "report: $(grep '^# slow node' "$work/report.txt" | head -1)" ||
  { fail "planted slow node 2 not named"; grep -e '^# slow' "$work/report.txt"; }
! grep -qiE "gpu_(util|mem_used|temp_c|power_w|sm_mhz|mem_mhz|throttle|ecc_errors|pcie)|device watch" \
  "$work/report.txt" "$work/report.html" "$work/report.md" "$work/report.json" &&
  pass "report: no GPU figure or finding in the terminal, HTML, Markdown or JSON" ||
  fail "the report shows a GPU figure"
grep -q 'id="per-device"' "$work/report.html" && grep -A3 'id="per-device"' "$work/report.html" | grep -q '<figure class="chart" id="chart-' &&
  pass "HTML: per-device section with a chart" || fail "HTML: no per-device chart"
# The planted rank's rate is the lowest in the per-device analysis' terms (own median time).
low=$(h5 "$out" "
import numpy as np
c = next(iter(f['cases'].values()))
p = c['points'][sorted(c['points'])[-1]]
print(int(np.argmax(np.nanmedian(p['samples'][()], axis=0))))")
[[ $low -eq 2 ]] && pass "rank 2 has the longest median time (lowest rate)" || fail "slowest rank $low"

mpirun -np 4 "$bin" memory --ranks-per-node 2 --sizes 64K,1M "${quick[@]}" -o "$work/memory.h5" \
  >"$work/memory.log" 2>&1 || { fail "preflight memory failed"; tail -20 "$work/memory.log"; }
mem=$(h5 "$work/memory.h5" "
for n, c in f['cases'].items():
    s = c['stats']; top = [i for i in range(len(s['group'])) if s['group'][i] == -1]
    print(text(c.attrs['memory_op']), int(c.attrs['ranks']), int(c.attrs['ranks_per_node']),
          text(c.attrs['status']), '%.2f' % s['bw'][top[-1]], '%.2f' % s['node_bw'][top[-1]],
          text(c.attrs['memory_peak_source'])[:7])")
echo "$mem"
[[ $(grep -c " ok " <<<"$mem") -eq 8 ]] && pass "memory: 8 cases ok (4 kernels x rank, node)" ||
  fail "memory cases: $mem"
grep -q "^triad 2 1 ok" <<<"$mem" && grep -q "^triad 4 2 ok" <<<"$mem" &&
  pass "memory: triad alone (1 rank per node) and with every rank" || fail "memory layouts"
! grep -qv "unknown" <<<"$(awk '{print $7}' <<<"$mem")" && pass "memory peak: unknown, said so" ||
  fail "memory peak not unknown here"
finish
