# Shared by the fault-injection tests: mpirun settings and small assertions.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/mpi-env.sh"
failures=0 checks=0 skipped_parts=()
pass() { checks=$((checks + 1)); echo "ok:   $*"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL: $*"; }
# skip_part REASON: a part of the test that this machine cannot run. The test then ends as a
# ctest skip (exit 77, its SKIP_RETURN_CODE) with the reasons, never as a pass, unless a check
# failed (exit 1).
skip_part() { skipped_parts+=("$*"); echo "skipped: $*"; }
expect() {  # expect DESCRIPTION COMMAND...: passes when the command succeeds
  local what=$1; shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}
finish() {
  echo "$((checks - failures)) passed, $failures failed${skipped_parts[0]:+, ${#skipped_parts[@]} part(s) skipped}"
  [[ $failures -eq 0 ]] || return 1
  if [[ ${#skipped_parts[@]} -gt 0 ]]; then
    printf 'skipped: %s\n' "${skipped_parts[@]}"
    return 77
  fi
}
# Runs python3 with h5py on a results file: h5 FILE 'python expression printing something'.
# text(v) is a string attribute or element as str: h5py gives fixed-length strings as bytes.
h5() {
  /usr/bin/python3 -c "import h5py, sys
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
f = h5py.File(sys.argv[1], 'r'); $2" "$1"
}
# Numeric comparisons: at_least VALUE LIMIT, at_most VALUE LIMIT. Each fails unless both are
# finite decimal numbers (awk alone compares "nan" or "" as text, and "nan" >= 0.9 is true).
is_number() { [[ $1 =~ ^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$ ]]; }
at_least() { is_number "$1" && is_number "$2" && awk -v x="$1" -v y="$2" 'BEGIN {exit !(x + 0 >= y + 0)}'; }
at_most() { is_number "$1" && is_number "$2" && awk -v x="$1" -v y="$2" 'BEGIN {exit !(x + 0 <= y + 0)}'; }
