#!/usr/bin/env bash
# scripts/check-report-names.sh passes on the tree, and fails on a copy of reports/analysis with
# a family name or a metric name planted in code, or an attribute read by a string literal
# (get("..."), param("...")) -- but not for the same words in comments.
# report_names_test.sh WORKDIR
set -uo pipefail
work=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
check=$root/scripts/check-report-names.sh
source "$(dirname "$0")/../faults/common.sh"
rm -rf "$work" && mkdir -p "$work"

expect "the report's generic code names no family or metric" "$check" "$root"

plant() {  # plant NAME LINE: a copy of reports/analysis with LINE appended to case_view.cpp
  rm -rf "$work/$1" && mkdir -p "$work/$1" && cp -r "$root/reports/analysis" "$work/$1/"
  printf '%s\n' "$2" >>"$work/$1/analysis/case_view.cpp"
  "$check" "$root" "$work/$1/analysis" >"$work/$1.out" 2>&1
}
plant family 'bool is_storage(const std::string& f) { return f == "storage"; }'
[[ $? -ne 0 ]] && grep -q 'family name .storage.' "$work/family.out" &&
  pass "a family name in a string literal fails" || { fail "planted family name not caught"; cat "$work/family.out"; }
plant identifier 'int comm = 0;'
[[ $? -ne 0 ]] && grep -q "identifier 'comm'" "$work/identifier.out" &&
  pass "a family name as an identifier fails" || { fail "planted identifier not caught"; cat "$work/identifier.out"; }
plant metric 'double f(const CaseData& c) { return c.stats.at("busbw").numbers[0]; }'
[[ $? -ne 0 ]] && grep -q '"busbw" is a family metric' "$work/metric.out" &&
  pass "a metric name looked up by name fails" || { fail "planted metric not caught"; cat "$work/metric.out"; }
plant prose 'const char* kWhy = "the lat_p99 of the reads";'
[[ $? -ne 0 ]] && grep -q "name 'lat_p99'" "$work/prose.out" &&
  pass "a metric name inside a string fails" || { fail "planted metric word not caught"; cat "$work/prose.out"; }
plant comment '// comm and storage, busbw and memory: prose in a comment is fine /* step */'
[[ $? -eq 0 ]] && pass "the same names in comments pass" || { fail "comment flagged"; cat "$work/comment.out"; }
plant substring 'int group_count_of_memory_step = 0; const char* kText = "group_count";'
[[ $? -eq 0 ]] && pass "names inside longer identifiers pass (whole words only)" ||
  { fail "substring flagged"; cat "$work/substring.out"; }
plant get_literal 'std::string f(const CaseView& v) { return v.get("benchmark").value_or(""); }'
[[ $? -ne 0 ]] && grep -q 'attribute read by a string: get("benchmark")' "$work/get_literal.out" &&
  pass "an attribute read by a string literal passed to get() fails" ||
  { fail "get(\"...\") not caught"; cat "$work/get_literal.out"; }
plant param_literal 'double f(const CaseView& v) { return v.number_param(std::string("variant")); }'
[[ $? -ne 0 ]] && grep -q 'attribute read by a string: number_param("variant")' "$work/param_literal.out" &&
  pass "an attribute read by a string literal passed to param() fails" ||
  { fail "number_param(\"...\") not caught"; cat "$work/param_literal.out"; }
plant get_declared 'auto f(const CaseView& v) { return v.get(kBenchmark); } auto g() { return std::get<0>(std::tuple{"x"}); }'
[[ $? -eq 0 ]] && pass "get() of a declared Attr passes" || { fail "get(kName) flagged"; cat "$work/get_declared.out"; }
finish
