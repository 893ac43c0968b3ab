#!/usr/bin/env bash
# preflight-report --prometheus: promtool (Debian's prometheus package) accepts the file, and
# Debian's node_exporter, its textfile collector pointed at the file's directory on 127.0.0.1,
# serves the verdict, the checks and the figures without a scrape error; a hostile label is
# served escaped. Exit 77 (skipped) where promtool or node_exporter is missing.
# prometheus_export_test.sh PREFLIGHT_REPORT RESULTS.h5 WORKDIR
set -uo pipefail
report=$1 results=$2 work=$3
source "$(dirname "$0")/../faults/common.sh"
for tool in promtool prometheus-node-exporter; do
  command -v "$tool" >/dev/null || { echo "skipped: $tool not found (apt-get install prometheus prometheus-node-exporter)"; exit 77; }
done
rm -rf "$work" && mkdir -p "$work/textfile"
exporter=
trap '[[ -n $exporter ]] && kill $exporter 2>/dev/null' EXIT

"$report" "$results" --prometheus "$work/textfile/preflight.prom" >"$work/report.log" 2>&1
rc=$?
[[ $rc -le 3 && -s $work/textfile/preflight.prom ]] && pass "preflight-report --prometheus wrote the file (exit $rc)" ||
  { fail "preflight-report --prometheus: exit $rc"; tail "$work/report.log"; }
if promtool check metrics <"$work/textfile/preflight.prom" >"$work/promtool.log" 2>&1; then
  pass "promtool check metrics accepts it"
else
  fail "promtool check metrics: $(head -5 "$work/promtool.log")"
fi
expect "the exit code is a sample" grep -qE "^preflight_report_exit_code $rc$" "$work/textfile/preflight.prom"
expect "every check is a sample" grep -qE '^preflight_check\{run="[^"]+",rule="[^"]+",.*verdict="(pass|fail|inconclusive)"\} ' "$work/textfile/preflight.prom"
expect "headline figures are samples" grep -qE '^preflight_figure\{run="[^"]+",host="[^"]+",case="[^"]+",point="[^"]+",metric="[^"]+",unit="[^"]*"\} [0-9]' "$work/textfile/preflight.prom"

port=$((20000 + RANDOM % 20000))
prometheus-node-exporter --collector.disable-defaults --collector.textfile \
  --collector.textfile.directory="$work/textfile" --web.listen-address="127.0.0.1:$port" \
  >"$work/exporter.log" 2>&1 &
exporter=$!
scrape() {
  /usr/bin/python3 -c 'import sys, urllib.request
print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "http://127.0.0.1:$port/metrics"
}
for _ in $(seq 1 50); do scrape >"$work/scrape.txt" 2>/dev/null && break; sleep 0.2; done
expect "node_exporter serves the verdict" grep -qE "^preflight_report_exit_code $rc$" "$work/scrape.txt"
n_file=$(grep -c '^preflight_figure{' "$work/textfile/preflight.prom")
n_served=$(grep -c '^preflight_figure{' "$work/scrape.txt")
[[ $n_file -gt 0 && $n_file -eq $n_served ]] && pass "node_exporter serves all $n_served figures" ||
  fail "figures: $n_file in the file, $n_served served"
expect "no textfile scrape error" grep -qE '^node_textfile_scrape_error 0$' "$work/scrape.txt"

# A hostile name: the run label (--label) reaches every sample's labels; one with a quote, a
# brace, a line feed and a backslash must stay one escaped label value and add no sample.
"$report" "$results" --label 'evil"} preflight_report_exit_code 0
x\' --prometheus "$work/textfile/preflight.prom" >"$work/report2.log" 2>&1
sleep 0.2
scrape >"$work/scrape2.txt" 2>/dev/null
expect "a hostile label is escaped: still no scrape error" grep -qE '^node_textfile_scrape_error 0$' "$work/scrape2.txt"
expect "the hostile label is served escaped" grep -qF 'run="evil\"} preflight_report_exit_code 0\nx\\"' "$work/scrape2.txt"
[[ $(grep -c '^preflight_report_exit_code ' "$work/scrape2.txt") -eq 1 ]] && pass "no sample injected" ||
  fail "the hostile label injected a sample"
finish
