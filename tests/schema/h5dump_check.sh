#!/usr/bin/env bash
# h5dump, the HDF5 project's own reader, sees the run attributes, the environment table and
# a case's statistics with their units.
set -euo pipefail
bin=$1 work=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
rm -rf "$work" && mkdir -p "$work"
mpirun -np 2 "$bin" comm --sizes 8,64K --iters 5 --budget 1ms -o "$work/r.h5" >"$work/log" 2>&1
dump=$(h5dump -H -A "$work/r.h5")
attrs=$(h5dump -a /status -a /schema_version -d /cases/000000/stats/busbw -a /cases/000000/stats/busbw/units "$work/r.h5")
fail=0
for want in 'ATTRIBUTE "schema_version"' 'ATTRIBUTE "git_revision"' 'GROUP "environment"' 'DATASET "host"' \
            'GROUP "cases"' 'DATASET "time_median"' 'DATASET "samples"' 'DATASET "wrong_per_rank"'; do
  grep -qF "$want" <<<"$dump" || { echo "FAIL: h5dump shows no $want"; fail=1; }
done
for want in '"complete"' '(0): 1' '"GB/s"'; do
  grep -qF "$want" <<<"$attrs" || { echo "FAIL: h5dump values lack $want"; fail=1; }
done
[[ $fail -eq 0 ]] && echo "PASS: h5dump reads the file"
exit $fail
