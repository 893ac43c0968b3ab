#!/usr/bin/env bash
# has_gpu.sh PREFLIGHT: exit 0 when this machine's rank 0 sees a GPU (`preflight env` names its
# bus and CUDA driver), 1 when it sees none (and says why, in CUDA's words), 2 when it cannot
# tell (`preflight env` failed or printed neither: its first and last lines), so that a broken build or a
# missing mpirun is never read as "a GPU is here".
set -uo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
output=$(mpirun -np 1 "$1" env 2>&1)
rc=$?
# Rank 0's row (the first below the column names): mpirun may print lines of its own before.
line=$(awk 'seen && /^ *0 / {print; exit} /^ *rank +host/ {seen = 1}' <<<"$output")
if [[ $rc -eq 0 && $line == *" none ("* ]]; then
  echo "no GPU: ${line#* none (}" | sed 's/)$//'
  exit 1
fi
if [[ $rc -eq 0 && $line =~ \ bus\ .*\(CUDA\ driver ]]; then
  exit 0
fi
echo "cannot tell whether a GPU is here: '$1 env' exited $rc: $(head -2 <<<"$output" | tr '\n' '|') ... $(tail -2 <<<"$output" | tr '\n' '|')"
exit 2
