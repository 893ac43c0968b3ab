#!/usr/bin/env bash
# A rank that stops answering inside a case: the watchdog must end the job within the timeout
# plus 10 s with exit code 3, name that rank and its host, and leave a valid file whose case is
# marked timeout, keeping the sizes that finished before the hang. Tried with the hanging rank
# being another rank and being rank 0 itself. Then --resume runs the timed-out case again.
# hang_test.sh PREFLIGHT WORKDIR CHECKER...
set -uo pipefail
bin=$1 work=$2; shift 2
check=("$@")
source "$(dirname "$0")/common.sh"
rm -rf "$work" && mkdir -p "$work"
timeout_s=2
host=$(hostname)
campaign=(--ranks-per-node 2 --op allreduce --topology world,intra --sizes 8,64K,1M --iters 5 --budget 1ms
  --timeout ${timeout_s}s)
for hang_rank in 2 0; do
  out=$work/hang$hang_rank.h5
  start=$(date +%s.%N)
  mpirun -np 4 "$bin" comm "${campaign[@]}" --test-hang-rank $hang_rank --test-hang-case 1 \
    --test-hang-point 1 --test-hang-seconds 120 -o "$out" >"$work/log$hang_rank" 2>&1
  rc=$?
  took=$(echo "$(date +%s.%N) - $start" | bc)
  [[ $rc -eq 3 ]] && pass "rank $hang_rank hangs: exit code 3" || fail "rank $hang_rank hangs: exit code $rc, expected 3"
  (($(echo "$took <= $timeout_s + 10" | bc))) && pass "ended after ${took}s (timeout ${timeout_s}s)" ||
    fail "ended after ${took}s, more than timeout + 10 s"
  grep -q "rank(s) $hang_rank ($host) did not arrive" "$work/log$hang_rank" && pass "names rank $hang_rank and host $host" ||
    { fail "message does not name rank $hang_rank ($host)"; grep timeout "$work/log$hang_rank"; }
  got=$(h5 "$out" 'c = f["cases"]; print(text(f.attrs["status"]), text(c["000000"].attrs["status"]), text(c["000001"].attrs["status"]), list(c["000001/not_arrived"][:]))')
  [[ $got == "timeout ok timeout [$hang_rank]" ]] && pass "file: run timeout, case 0 ok, case 1 timeout, not_arrived [$hang_rank]" ||
    fail "file says: $got"
  "${check[@]}" --status timeout --timeout-case 1 --timeout-points 1 --not-arrived $hang_rank "$out" &&
    pass "file passes the schema check, the size before the hang kept" ||
    fail "schema check of $out"
done
# The timed-out case runs again on --resume (without the hang) and the campaign completes.
mpirun -np 4 "$bin" comm "${campaign[@]}" --resume "$work/hang2.h5" >"$work/resume.log" 2>&1
rc=$?
got=$(h5 "$work/hang2.h5" 'c = f["cases"]; print(text(f.attrs["status"]), text(c["000001"].attrs["status"]), len(c["000001/points"]))')
[[ $rc -eq 0 && $got == "complete ok 3" ]] && pass "--resume reran the timed-out case: $got" ||
  fail "--resume after a timeout: exit $rc, file says $got"
"${check[@]}" --status complete "$work/hang2.h5" >/dev/null && pass "resumed file passes the schema check" ||
  fail "resumed file fails the schema check"
finish
