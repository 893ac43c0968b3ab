#!/usr/bin/env bash
# has_gpu.sh PREFLIGHT: exit 0 when this machine's rank 0 sees a GPU, 1 when not (and says why).
set -uo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
line=$(mpirun -np 1 "$1" env 2>&1 | sed -n 2p)
if [[ $line == *" none ("* ]]; then
  echo "no GPU: ${line#* none (}" | sed 's/)$//'
  exit 1
fi
exit 0
