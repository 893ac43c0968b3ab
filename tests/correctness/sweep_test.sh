#!/usr/bin/env bash
# The collective correctness sweep on 4 ranks (bench/correctness/collective_checks.cpp), Open MPI:
#  (a) clean: every case complete with no wrong element, and the cases hold every algorithm
#      Open MPI lists for all-reduce and all-gather (ompi_info's enumerators, not the sweep's
#      own reading of MPI_T) but two_proc, which takes 2 ranks and is a skipped line;
#  (b) a planted intermittent fault (one bit of one element, every 2nd run) on rank 1 in the case
#      "allreduce ring float32" only: that case fails, only its counters on rank 1 are non-zero,
#      and its events hold expected != found; every other case stays clean;
#  (c) two_proc, the one algorithm (a) leaves out, on the 2 ranks it takes: its case runs clean;
#  (d) coll/han's priority above coll/tuned's (OMPI_MCA_coll_han_priority=40): han would serve
#      the collectives and forcing tuned's algorithms would change nothing, so the forced case is
#      a skipped line naming coll/han and its fix, and only the default runs.
# sweep_test.sh PREFLIGHT PYTHON WORKDIR
set -euo pipefail
bin=$1 python=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
args=(correctness --checks collective --collectives allreduce,allgather --comm-sizes 4K,64K
      --warmup 2 --min-iters 4 --iters 6 --budget 1ms)

ompi_info --param coll tuned --level 9 --parsable |
  sed -n 's/^mca:coll:tuned:param:coll_tuned_\(allreduce\|allgather\)_algorithm:enumerator:value:[1-9][0-9]*:\(.*\)$/\1 \2/p' \
  >"$work/offered.txt"
[[ -s $work/offered.txt ]] || { echo "FAIL: ompi_info lists no tuned algorithms" >&2; exit 1; }

run() {  # run NAME EXPECTED-RC ARGS...
  local name=$1 rc=$2 got=0
  shift 2
  mpirun -np 4 "$bin" "${args[@]}" "$@" -o "$work/$name.h5" </dev/null >"$work/$name.log" 2>&1 || got=$?
  tail -n 30 "$work/$name.log"
  if [[ $got -ne $rc ]]; then
    echo "FAIL: $name: exit code $got, expected $rc" >&2
    exit 1
  fi
}

run clean 0
grep -q "two_proc" "$work/clean.log" || { echo "FAIL: no skipped line names two_proc" >&2; exit 1; }
run planted 1 --test-corrupt-rank 1 --test-corrupt-every 2 --test-corrupt-case "allreduce ring"

"$python" - "$work" <<'PY'
import sys, h5py, numpy as np
work = sys.argv[1]
problems = []

def cases(path):
    with h5py.File(path, "r") as f:
        for key in sorted(f["cases"]):
            c = f["cases"][key]
            a = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in c.attrs.items()}
            counters, series = [], {}
            for p in sorted(c["points"]):
                pg = c["points"][p]
                counters.append(pg["counters"]["wrong_elements"][:])
                for name in pg["series"]:
                    series.setdefault(name, []).append(pg["series"][name][:])
            yield a, counters, series

offered = {tuple(line.split()) for line in open(f"{work}/offered.txt")}
seen = set()
for a, counters, series in cases(f"{work}/clean.h5"):
    name = a["name"]
    seen.add((a["collective"], a["forced_algorithm"]))
    if a.get("status") != "ok":
        problems.append(f"clean: {name}: status {a.get('status')}")
    if any(np.nansum(c) != 0 for c in counters):
        problems.append(f"clean: {name}: wrong elements")
    if a["forced_algorithm"] != "default" and not a["forced_by"].startswith(f"coll_tuned_{a['collective']}_algorithm="):
        problems.append(f"clean: {name}: forced_by '{a['forced_by']}'")
expected = {x for x in offered if x != ("allgather", "two_proc")}
expected |= {("allreduce", "default"), ("allgather", "default")}
if seen != expected:
    problems.append(f"clean: cases {sorted(seen)}, expected every algorithm ompi_info lists: {sorted(expected)}")

planted = 0
for a, counters, series in cases(f"{work}/planted.h5"):
    name = a["name"]
    target = name == "allreduce ring float32"
    wrong = sum(float(np.nansum(c)) for c in counters)
    if not target:
        if wrong != 0 or a.get("status") != "ok":
            problems.append(f"planted: {name}: {wrong} wrong elements, status {a.get('status')}: only 'allreduce ring float32' was planted")
        continue
    planted += 1
    if a.get("status") != "failed":
        problems.append(f"planted: {name}: status {a.get('status')}, expected failed")
    for c in counters:
        per_rank = np.nansum(c, axis=0)
        if any(per_rank[r] != 0 for r in (0, 2, 3)):
            problems.append(f"planted: {name}: wrong elements on ranks other than 1: {per_rank}")
    if sum(float(np.nansum(c[:, 1])) for c in counters) == 0:
        problems.append(f"planted: {name}: no wrong element counted on rank 1 in the timed iterations")
    exp = np.concatenate([s[:, 1] for s in series["wrong_expected"]])
    found = np.concatenate([s[:, 1] for s in series["wrong_found"]])
    source = np.concatenate([s[:, 1] for s in series["wrong_source"]])
    keep = ~np.isnan(exp)
    if keep.sum() == 0:
        problems.append(f"planted: {name}: no event recorded on rank 1")
    elif np.any(exp[keep] == found[keep]) or np.any(source[keep] != -1):
        problems.append(f"planted: {name}: events expected {exp[keep]} found {found[keep]} source {source[keep]}")
    for r in (0, 2, 3):
        if np.any(~np.isnan(np.concatenate([s[:, r] for s in series["wrong_expected"]]))):
            problems.append(f"planted: {name}: events on rank {r}")
if planted != 1:
    problems.append(f"planted: {planted} cases named 'allreduce ring float32'")
for p in problems:
    print("FAIL:", p)
print("PASS" if not problems else f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
PY

mpirun -np 2 "$bin" correctness --checks collective --collectives allgather --algorithms two_proc \
  --comm-sizes 4K,64K --warmup 2 --min-iters 4 --iters 6 --budget 1ms -o "$work/two.h5" \
  </dev/null >"$work/two.log" 2>&1 || { echo "FAIL: two_proc on 2 ranks failed" >&2; tail "$work/two.log"; exit 1; }
"$python" - "$work/two.h5" <<'PY'
import sys, h5py
cases = h5py.File(sys.argv[1])["cases"]
seen = [(cases[k].attrs["name"].decode(), cases[k].attrs["status"].decode(),
         cases[k].attrs["forced_by"].decode()) for k in sorted(cases)]
want = [("allgather two_proc float32", "ok", "coll_tuned_allgather_algorithm=6")]
print("PASS two_proc on 2 ranks" if seen == want else f"FAIL: two_proc on 2 ranks: {seen}, expected {want}")
sys.exit(0 if seen == want else 1)
PY

OMPI_MCA_coll_han_priority=40 mpirun -np 2 "$bin" correctness --checks collective \
  --collectives allreduce --algorithms default,ring --comm-sizes 4K --warmup 1 --min-iters 2 \
  --iters 3 --budget 1ms -o "$work/han.h5" </dev/null >"$work/han.log" 2>&1 ||
  { echo "FAIL: the sweep with coll/han above coll/tuned failed" >&2; tail "$work/han.log"; exit 1; }
grep -q "allreduce ring: not run: coll/han serves the collectives.*OMPI_MCA_coll_han_priority=0" \
  "$work/han.log" || { echo "FAIL: no skipped line names coll/han" >&2; tail "$work/han.log"; exit 1; }
"$python" - "$work/han.h5" <<'PY'
import sys, h5py
cases = h5py.File(sys.argv[1])["cases"]
seen = sorted(cases[k].attrs["name"].decode() for k in cases)
want = ["allreduce default float32"]
print("PASS han above tuned" if seen == want else f"FAIL: han above tuned: cases {seen}, expected {want}")
sys.exit(0 if seen == want else 1)
PY
