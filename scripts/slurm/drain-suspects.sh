#!/usr/bin/env bash
# The scontrol commands that drain the nodes a preflight report names as suspects, printed for
# review; run them only with --execute.
#   scripts/slurm/drain-suspects.sh verdict.json             # print
#   scripts/slurm/drain-suspects.sh verdict.json --execute   # print and run
# verdict.json: `preflight-report ... --json verdict.json`. Exit 0 also when nothing is named.
set -euo pipefail
json=${1:?usage: drain-suspects.sh REPORT.json [--execute]}
execute=${2:-}
[[ -z $execute || $execute == --execute ]] || { echo "drain-suspects: unknown option $execute" >&2; exit 2; }
lines=$(/usr/bin/env python3 "$(dirname "$0")/../suspects.py" "$json") || exit $?
[[ -n $lines ]] || { echo "# no suspects in $json: nothing to drain"; exit 0; }
while IFS=$'\t' read -r host reason _why; do
  # suspects.py passes only plain host names and reasons of letters, digits and punctuation
  # that a shell reads as text.
  echo "scontrol update NodeName=$host State=DRAIN Reason=\"$reason\""
  [[ $execute == --execute ]] && scontrol update "NodeName=$host" State=DRAIN "Reason=$reason"
done <<<"$lines"
[[ $execute == --execute ]] || echo "# printed only: run again with --execute to drain"
