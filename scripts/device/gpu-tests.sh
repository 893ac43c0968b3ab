#!/usr/bin/env bash
# gpu-tests.sh: the ctest scripts labelled gpu (tests/nccl/gpu_test.sh and no_gpu_test.sh) on a
# GPU machine that has no build tree, run with the device bundle's preflight and mpirun
# (scripts/device-bundle.sh) and this machine's python3 (h5py) for the checkers. Run from the
# repository's root after device-check.sh, in the same device call:
#   scripts/device/gpu-tests.sh [--bundle DIR] [--work DIR] [--python PYTHON]   (PYTHON: one
#   with h5py; python3 by default)
# Prints each script's last line and PASS / FAIL / SKIPPED; exit 0 when none failed, 1 otherwise,
# 2 on bad usage. The bundle's libraries reach preflight and mpirun alone (wrappers set them), so
# python3 keeps its own.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bundle=$root/device-bundle work=${OUT:-/tmp}/gpu-tests python=python3
while [[ $# -gt 0 ]]; do
  case $1 in
    --bundle) bundle=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --python) python=$2; shift 2 ;;
    *) echo "gpu-tests.sh: unknown argument $1 (see the header)" >&2; exit 2 ;;
  esac
done
bundle=$(cd "$bundle" 2>/dev/null && pwd) || { echo "gpu-tests.sh: no bundle; make it with scripts/device-bundle.sh" >&2; exit 2; }
mkdir -p "$work/bin" || exit 2
# shellcheck source=bundle-env.sh
source "$(dirname "$0")/bundle-env.sh"  # $library_path, as device-check.sh gives its programs
for program in preflight mpirun; do
  cat >"$work/bin/$program" <<EOF
#!/usr/bin/env bash
export LD_LIBRARY_PATH=$library_path OPAL_PREFIX=$bundle
export PMIX_MCA_mca_base_component_path=$bundle/lib/x86_64-linux-gnu/pmix2/lib/pmix
exec $bundle/bin/$program "\$@"
EOF
  chmod +x "$work/bin/$program"
done
export PATH=$work/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
check=("$python" "$root/tests/schema/check_results.py" --spec "$root/results-schema/SPEC.md")
failed=0
for test in gpu_test no_gpu_test; do
  "$root/tests/nccl/$test.sh" "$work/bin/preflight" "$work/$test" "$python" "${check[@]}" \
    >"$work/$test.log" 2>&1
  rc=$?
  case $rc in
    0) verdict=PASS ;;
    77) verdict=SKIPPED ;;
    *) verdict="FAIL (exit $rc)"; failed=1 ;;
  esac
  printf '%-12s %-16s %s\n' "$test" "$verdict" "$(tail -1 "$work/$test.log")"
done
exit $failed
