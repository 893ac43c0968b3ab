#!/usr/bin/env bash
# h5dump, the HDF5 project's own reader, sees the run attributes, the environment table and
# a case's statistics with their units, and the schema_version attribute holds the version
# layout.hpp defines (kVersion), as a 64-bit integer.
#   h5dump_check.sh PREFLIGHT WORKDIR   runs preflight (2 ranks) and checks its file
#   h5dump_check.sh --file RESULTS      checks an existing file (checker_selftest.sh plants
#                                       a wrong schema_version in one)
set -euo pipefail
layout=$(dirname "$0")/../../results-schema/include/preflight/schema/layout.hpp
version=$(sed -nE 's/^inline constexpr int kVersion = ([0-9]+);.*/\1/p' "$layout")
[[ -n $version ]] || { echo "FAIL: no kVersion in $layout"; exit 1; }
if [[ $1 == --file ]]; then
  file=$2
else
  bin=$1 work=$2 file=$2/r.h5
  source "$(dirname "$0")/../../scripts/mpi-env.sh"
  rm -rf "$work" && mkdir -p "$work"
  mpirun -np 2 "$bin" comm --sizes 8,64K --iters 5 --budget 1ms -o "$file" >"$work/log" 2>&1
fi
dump=$(h5dump -H -A "$file")
attrs=$(h5dump -a /status -d /cases/000000/stats/busbw -a /cases/000000/stats/busbw/units "$file")
# The attribute alone, so that its value cannot be matched anywhere else in the dump.
schema_version=$(h5dump -a /schema_version "$file")
fail=0
for want in 'ATTRIBUTE "schema_version"' 'ATTRIBUTE "git_revision"' 'GROUP "environment"' 'DATASET "host"' \
            'GROUP "cases"' 'DATASET "time_median"' 'DATASET "samples"' 'DATASET "wrong_per_rank"'; do
  grep -qF "$want" <<<"$dump" || { echo "FAIL: h5dump shows no $want"; fail=1; }
done
for want in '"complete"' '"GB/s"'; do
  grep -qF "$want" <<<"$attrs" || { echo "FAIL: h5dump values lack $want"; fail=1; }
done
grep -qE '^ *DATATYPE +H5T_STD_I64LE *$' <<<"$schema_version" ||
  { echo "FAIL: schema_version is not a 64-bit integer:"; echo "$schema_version"; fail=1; }
grep -qE "^ *\(0\): $version *\$" <<<"$schema_version" ||
  { echo "FAIL: schema_version is not $version (layout.hpp kVersion):"; echo "$schema_version"; fail=1; }
[[ $fail -eq 0 ]] && echo "PASS: h5dump reads the file, schema_version $version"
exit $fail
