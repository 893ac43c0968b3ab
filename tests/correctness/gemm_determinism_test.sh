#!/usr/bin/env bash
# The correctness family's GEMM determinism check on 4 ranks (OpenBLAS, float32, sizes 64 and
# 128): (a) clean, the case completes and every rank's wrong_elements is 0 in every timed
# iteration, with the attributes that say what was compared; (b) one mantissa bit of one element
# of rank 2's C flipped on every 3rd run (--test-corrupt-every 3): rank 2 alone has
# wrong_elements above 0, its events say expected != found against rank 0's result,
# wrong_per_rank names rank 2 only, and the run ends with the wrong-results exit code (1);
# (c) a class of one (1 rank) with a bit flipped in every run, the first included
# (--test-corrupt-every 1): the reference is the repetition-confirmed result, not the faulty
# first one, so every event holds one wrong element against the rank's own result (source 0);
# compared with the faulty first result, each later run would differ in two elements.
# gemm_determinism_test.sh PREFLIGHT WORKDIR
set -uo pipefail
bin=$1 work=$2
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"
args=(correctness --checks gemm --gemm-backend openblas --dtype float32 --sizes 64,128
  --threads 1 --warmup 1 --min-iters 6 --iters 8 --budget 20ms)

out=$work/clean.h5
mpirun -np 4 "$bin" "${args[@]}" -o "$out" >"$work/clean.log" 2>&1
rc=$?
[[ $rc -eq 0 ]] && pass "clean run exits 0" || { fail "clean run exit $rc"; tail -20 "$work/clean.log"; }
bad=$(h5 "$out" "
cases = [c for c in f['cases'].values() if text(c.attrs['family']) == 'correctness']
if len(cases) != 1: print('cases', len(cases))
for c in cases:
    if text(c.attrs['status']) != 'ok': print('status', text(c.attrs['status']))
    if text(c.attrs['correctness_check']) != 'gemm': print('check')
    if '0-3' not in text(c.attrs['compare_classes']): print('classes', text(c.attrs['compare_classes']))
    if '| 1 BLAS thread:' not in text(c.attrs['compare_classes']): print('class key', text(c.attrs['compare_classes']))
    if 'thread' not in text(c.attrs['determinism']): print('determinism')
    if len(c['points']) != 2: print('points', len(c['points']))
    for p in c['points'].values():
        w = p['counters/wrong_elements'][()]
        if w.shape[1] != 4 or w.shape[0] < 6 or (w != 0).any(): print('wrong_elements', w.tolist())
        if p['wrong_per_rank'][()].any(): print('wrong_per_rank', p['wrong_per_rank'][()].tolist())
    s = c['stats']
    for i in range(len(s['checked_tflops'])):
        if not s['checked_tflops'][i] > 0: print('checked_tflops', s['checked_tflops'][i])
        if s['wrong_results'][i] != 0 or s['checked_results'][i] < 24: print('counts', s['checked_results'][i], s['wrong_results'][i])
")
[[ -z $bad ]] && pass "clean: case ok, 2 points, wrong_elements 0 on every rank, classes 0-3" || fail "clean: $bad"

out=$work/corrupt.h5
mpirun -np 4 "$bin" "${args[@]}" --test-corrupt-rank 2 --test-corrupt-every 3 -o "$out" \
  >"$work/corrupt.log" 2>&1
rc=$?
[[ $rc -eq 1 ]] && pass "corrupted run exits 1 (wrong results)" ||
  { fail "corrupted run exit $rc"; tail -20 "$work/corrupt.log"; }
bad=$(h5 "$out" "
import math
c = [c for c in f['cases'].values() if text(c.attrs['family']) == 'correctness'][0]
if text(c.attrs['status']) == 'ok': print('status ok')
for name, p in c['points'].items():
    w = p['counters/wrong_elements'][()]
    if not (w[:, 2] > 0).any(): print(name, 'rank 2 has no wrong_elements')
    if (w[:, [0, 1, 3]] != 0).any(): print(name, 'another rank has wrong_elements')
    wpr = p['wrong_per_rank'][()].tolist()
    if not (wpr[2] > 0 and wpr[0] == wpr[1] == wpr[3] == 0): print(name, 'wrong_per_rank', wpr)
    s = {k: p['series/wrong_' + k][()] for k in ('iteration', 'element', 'expected', 'found', 'count', 'source')}
    events = [i for i in range(s['count'].shape[0]) if not math.isnan(s['count'][i, 2])]
    if not events: print(name, 'no events of rank 2')
    for i in events:
        if s['expected'][i, 2] == s['found'][i, 2]: print(name, 'expected == found', i)
        if s['count'][i, 2] != 1 or s['source'][i, 2] != 0: print(name, 'count/source', s['count'][i, 2], s['source'][i, 2])
    for r in (0, 1, 3):
        if not all(math.isnan(x) for x in s['count'][:, r]): print(name, 'events on rank', r)
    if s['count'].shape[0] and not any(s['iteration'][i, 2] >= 0 for i in events): print(name, 'no timed event')
")
[[ -z $bad ]] && pass "corrupted: rank 2 alone wrong, its events expected != found, source rank 0" ||
  fail "corrupted: $bad"

out=$work/one.h5
mpirun -np 1 "$bin" "${args[@]}" --test-corrupt-rank 0 --test-corrupt-every 1 -o "$out" \
  >"$work/one.log" 2>&1
rc=$?
[[ $rc -eq 1 ]] && pass "class of one, every run corrupted: exits 1" ||
  { fail "class of one: exit $rc"; tail -20 "$work/one.log"; }
bad=$(h5 "$out" "
import math
c = [c for c in f['cases'].values() if text(c.attrs['family']) == 'correctness'][0]
for name, p in c['points'].items():
    w = p['counters/wrong_elements'][()]
    if not (w[:, 0] == 1).all(): print(name, 'wrong_elements', w[:, 0].tolist())
    s = {k: p['series/wrong_' + k][()] for k in ('count', 'source')}
    events = [i for i in range(s['count'].shape[0]) if not math.isnan(s['count'][i, 0])]
    if not events: print(name, 'no events')
    for i in events:
        if s['count'][i, 0] != 1 or s['source'][i, 0] != 0: print(name, 'count/source', s['count'][i, 0], s['source'][i, 0])
")
[[ -z $bad ]] && pass "class of one: one wrong element per run against the confirmed reference" ||
  fail "class of one: $bad"
finish
