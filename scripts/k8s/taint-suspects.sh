#!/usr/bin/env bash
# The kubectl commands that keep new pods off the nodes a preflight report names as suspects
# (cordon, and a NoSchedule taint saying why: slow or wrong-results), printed for review; run them only with --execute.
#   scripts/k8s/taint-suspects.sh verdict.json [--execute]
set -euo pipefail
json=${1:?usage: taint-suspects.sh REPORT.json [--execute]}
execute=${2:-}
[[ -z $execute || $execute == --execute ]] || { echo "taint-suspects: unknown option $execute" >&2; exit 2; }
lines=$(/usr/bin/env python3 "$(dirname "$0")/../suspects.py" "$json") || exit $?
[[ -n $lines ]] || { echo "# no suspects in $json: nothing to taint"; exit 0; }
while IFS=$'\t' read -r host reason why; do
  for command in "kubectl cordon $host" "kubectl taint nodes $host preflight.io/suspect=${why:-slow}:NoSchedule --overwrite"; do
    echo "$command  # $reason"
    [[ $execute == --execute ]] && $command
  done
done <<<"$lines"
[[ $execute == --execute ]] || echo "# printed only: run again with --execute to apply"
