#!/usr/bin/env bash
# `preflight env --check` and the checks `preflight run` makes first, with planted failures: a
# lowered memlock limit, an unwritable results path (a read-only mount), a missing library, a
# node whose kernel differs (virtual nodes). Each gives its fail line with the fix and exit 5;
# a clean environment gives none and says "no GPU" rather than failing; `run` stops before
# measuring (the file keeps the checks) unless --env-check warn, and the report shows the line.
# env_check_test.sh PREFLIGHT PREFLIGHT_TEST_FAMILY PREFLIGHT_REPORT WORKDIR
set -uo pipefail
bin=$1 family_bin=$2 report=$3 work=$4
source "$(dirname "$0")/../faults/common.sh"
# The clean environment below is one without a GPU: on a GPU machine its GPUs are hidden (4 ranks
# on 2 virtual nodes would otherwise rightly fail "one rank per GPU" on a 1-GPU host).
export CUDA_VISIBLE_DEVICES=
rm -rf "$work" && mkdir -p "$work"
ro="$work/read-only"
cleanup() { mountpoint -q "$ro" && umount "$ro"; }
trap cleanup EXIT

check() {  # check EXPECTED_RC LOG PATTERN DESCRIPTION
  local rc=$1 log=$2 pattern=$3 what=$4 got
  got=$(cat "$log.rc")
  if [[ $got -eq $rc ]] && grep -qE -- "$pattern" "$log"; then
    pass "$what"
  else
    fail "$what (exit $got, expected $rc; wanted /$pattern/)"
    tail -15 "$log"
  fi
}
launch() {  # launch LOG NP BINARY ARGS...: runs it, the exit code in LOG.rc
  local log=$1 np=$2; shift 2
  mpirun -np "$np" "$@" >"$log" 2>&1
  echo $? >"$log.rc"
}

# A clean environment: nothing fails, the GPU checks say no GPU.
launch "$work/clean.log" 4 "$bin" env --check --ranks-per-node 2 --results-dir "$work"
check 0 "$work/clean.log" '^\[skipped\] GPUs visible \(every rank\): no GPU' "clean: GPU checks say no GPU"
if grep -q '^\[fail\]' "$work/clean.log"; then fail "clean: a fail line"; grep '^\[fail\]' "$work/clean.log"; else pass "clean: no fail line"; fi
check 0 "$work/clean.log" '^\[pass\] same configuration on every node \(every rank\): 2 nodes alike' "clean: 2 virtual nodes alike"

# A lowered memlock limit against a benchmark that pins 16 MiB per rank.
cat >"$work/pins.yaml" <<'YAML'
benchmarks:
  - {name: pace, family: pace, units: [100], pins_bytes: 16777216}
YAML
(ulimit -l 64 && launch "$work/memlock.log" 2 "$family_bin" env --check "$work/pins.yaml" --results-dir "$work")
check 5 "$work/memlock.log" '^\[fail\] memlock limit \(every rank\): 64 KiB on every rank; benchmark pace pins 16 MiB per rank' \
  "lowered memlock: fail line"
check 5 "$work/memlock.log" 'fix: raise it where the job starts: `ulimit -l unlimited`' "lowered memlock: its fix"

# An unwritable results path: a read-only mount.
mkdir -p "$ro"
if mount -t tmpfs -o ro,size=1m tmpfs "$ro" 2>/dev/null; then
  launch "$work/ro.log" 2 "$bin" env --check --results-dir "$ro"
  check 5 "$work/ro.log" "^\[fail\] writable $ro \(results file\) \(rank 0 on [^)]*\): cannot write there: Read-only file system" \
    "read-only results path: fail line"
  check 5 "$work/ro.log" 'fix: choose a directory the job can write' "read-only results path: its fix"
else
  fail "could not mount a read-only tmpfs to plant an unwritable path (the test runs as root)"
fi

# A library a benchmark loads at run time that is not there.
cat >"$work/lib.yaml" <<'YAML'
benchmarks:
  - {name: pace, family: pace, units: [100], needs_library: libpreflight-absent.so.1}
YAML
launch "$work/lib.log" 2 "$family_bin" env --check "$work/lib.yaml" --results-dir "$work"
check 5 "$work/lib.log" '^\[fail\] library libpreflight-absent.so.1 \(needed by benchmark pace\) \(every rank\): cannot be loaded: libpreflight-absent.so.1: cannot open' \
  "missing library: fail line"

# A node whose kernel differs from the other three: it is named, and no other.
launch "$work/kernel.log" 4 "$bin" env --check --ranks-per-node 1 --results-dir "$work" --test-node-kernel "2=Linux 9.9.9-planted"
check 5 "$work/kernel.log" "^\[fail\] same configuration on every node \(vm/v2\): kernel: vm/v2 has 'Linux 9.9.9-planted' where the other 3 nodes have 'Linux [^']+'" \
  "differing kernel: that node named"
check 5 "$work/kernel.log" 'fix: bring the named nodes in line' "differing kernel: its fix"

# `run` checks first and stops: nothing measured, the file holds the checks; the report fails on it.
launch "$work/run-stop.log" 2 "$family_bin" run "$work/lib.yaml" -o "$work/stopped.h5"
check 5 "$work/run-stop.log" 'stopped before measuring: an environment check failed' "run stops on a fail"
[[ $(h5 "$work/stopped.h5" 'print(len(f["cases"]), text(f.attrs["status"]), f.attrs["exit_code"], [text(s) for s in f["env_checks/status"][()]].count("fail"))') == "0 failed 5 1" ]] &&
  pass "stopped run: no case, status failed, exit 5, the fail in /env_checks" ||
  fail "stopped run file: $(h5 "$work/stopped.h5" 'print(len(f["cases"]), text(f.attrs["status"]), f.attrs["exit_code"])' 2>&1)"
"$report" "$work/stopped.h5" --json "$work/stopped.json" >"$work/report.log" 2>&1
echo $? >"$work/report.log.rc"
check 1 "$work/report.log" 'environment checks: stopped \| library libpreflight-absent.so.1 \(needed by benchmark pace\) \(every rank\): cannot be loaded' \
  "report: the failed environment check is a reason of its verdict"
launch "$work/run-warn.log" 2 "$family_bin" run "$work/lib.yaml" --env-check warn -o "$work/warned.h5"
check 0 "$work/run-warn.log" '^\[fail\] library libpreflight-absent.so.1' "--env-check warn: the line shown, the run measured"
launch "$work/run-off.log" 2 "$family_bin" run "$work/lib.yaml" --env-check off -o "$work/off.h5"
if grep -q 'environment' "$work/run-off.log"; then fail "--env-check off: checks ran"; else pass "--env-check off: no checks"; fi
finish
