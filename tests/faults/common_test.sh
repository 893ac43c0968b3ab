#!/usr/bin/env bash
# The tests' numeric comparisons (common.sh) fail on what a failed or unmeasured read gives: NaN,
# an empty string, text; and compare numbers as numbers (10 >= 9, where text says "10" < "9").
# common_test.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"
refuse() {  # refuse DESCRIPTION COMMAND...: passes when the comparison fails
  local what=$1; shift
  if "$@"; then fail "$what"; else pass "$what"; fi
}
expect "1.0 >= 0.9" at_least 1.0 0.9
expect "10 >= 9 (numbers, not text)" at_least 10 9
expect "0.0 <= 0.01" at_most 0.0 0.01
expect "1e-05 <= 0.01" at_most 1e-05 0.01
expect "-0.5 <= 0" at_most -0.5 0
refuse "0.5 >= 0.9" at_least 0.5 0.9
refuse "0.02 <= 0.01" at_most 0.02 0.01
refuse "nan >= 0.9" at_least nan 0.9
refuse "nan <= 0.01" at_most nan 0.01
refuse "NaN <= 0.01" at_most NaN 0.01
refuse "inf >= 0.9" at_least inf 0.9
refuse "'' <= 0.01 (a failed read prints nothing)" at_most "" 0.01
refuse "'' >= 0.9" at_least "" 0.9
refuse "'Traceback' <= 0.01" at_most Traceback 0.01
refuse "'0.5 0.6' <= 1 (two values)" at_most "0.5 0.6" 1
finish
