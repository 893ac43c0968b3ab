# Shared by the safety tests of the families whose files are a storage data set (sourced after
# tests/faults/common.sh, with bin, work and family set): a fresh work directory, tmpfs mounts
# undone on exit, and refused(), which runs one refusal.
rm -rf "$work" && mkdir -p "$work/data"
mounts=()
cleanup() { for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done; }
trap cleanup EXIT
small=(--size 1M --block-sizes 64K --warmup 0 --min-iters 1 --iters 1)
refused() {  # [np=N] refused DESCRIPTION MESSAGE ARGS...: exit 2, MESSAGE on stderr, no results file
  local what=$1 message=$2; shift 2
  rm -f "$work/out.h5"
  mpirun -np "${np:-2}" "$bin" "$family" "$@" -o "$work/out.h5" >"$work/stdout" 2>"$work/stderr"
  local rc=$?
  if [[ $rc -eq 2 ]] && grep -qF -- "$message" "$work/stderr" && [[ ! -e $work/out.h5 ]]; then
    pass "$what: $(grep -m1 preflight: "$work/stderr")"
  else
    fail "$what: exit $rc, stderr: $(head -3 "$work/stderr")"
  fi
}
