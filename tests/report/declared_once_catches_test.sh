#!/usr/bin/env bash
# scripts/check-declared-once.sh fails on each kind of thing it counts: planted one at a time in
# a copy of the tree, each raises its own count to 1 and the script exits 1; the tree as it is
# passes (every count 0).
# declared_once_catches_test.sh REPO_ROOT WORKDIR
set -uo pipefail
root=$(realpath "$1") work=$2
source "$root/tests/faults/common.sh"
check=$root/scripts/check-declared-once.sh
"$check" "$root" >"$work.clean.out" 2>&1 && pass "the tree as it is: every count 0" ||
  fail "the tree as it is: $(grep -v '  0 ' "$work.clean.out" | head -5)"
# One copy of what the script reads; each plant is undone (the file copied back) after its check.
rm -rf "$work" && mkdir -p "$work/tests"
cp -r "$root/bench" "$root/reports" "$root/results-schema" "$root/common" "$root/scripts" "$work/"
cp -r "$root/tests/family" "$work/tests/"
plant() {  # plant COUNT FILE LINE: append LINE to the copy's FILE; COUNT must read 1
  local count=$1 file=$2 line=$3
  printf '%s\n' "$line" >>"$work/$file"
  "$check" "$work" >"$work.out" 2>&1
  local rc=$? got
  cp "$root/$file" "$work/$file"
  got=$(awk -v c="$count" '$1 == c {print $2}' "$work.out")
  [[ $rc -eq 1 && $got == 1 ]] && pass "$count: planted in $file, counted (exit 1)" ||
    fail "$count: planted in $file, exit $rc, count '${got}': $(head -14 "$work.out")"
}
plant meaning_bodies bench/comm/collective_case.cpp 'CaseMeaning Other::meaning() const { return {}; }'
plant string_attribute_reads reports/analysis/scaling.cpp 'auto x = v.param("dtype");'
plant status_literals reports/analysis/scaling.cpp 'bool b = c.status == "ok";'
plant status_literals reports/analysis/scaling.cpp 'bool b = c.status() != "failed";'
plant string_attribute_reads reports/analysis/scaling.cpp 'auto it = c.params.find("dtype");'
plant undeclared_attribute_writes bench/comm/collective_case.cpp 'auto p = Param("dtype", std::string("x"));'
plant family_name_literals reports/plugins/step.cpp 'bool b = c.family == "step";'
plant family_name_literals bench/comm/comm_family.cpp 'struct F { std::string name() const override { return "comm"; } };'
plant undeclared_attribute_writes bench/comm/collective_case.cpp 'auto p = Param{"dtype", std::string("x")};'
plant index_enums results-schema/include/preflight/schema/comm.hpp 'enum CommColumn : std::size_t { kA };'
plant index_enums results-schema/include/preflight/schema/comm.hpp 'enum CommColumn : size_t { kA };'
plant index_enums results-schema/include/preflight/schema/comm.hpp 'enum class CommColumn : unsigned { kA };'
plant index_enums results-schema/include/preflight/schema/comm.hpp 'inline constexpr std::size_t kCommBytes = index_in(kCommStatsColumns, comm::kBytesColumn);'
plant index_enums results-schema/include/preflight/schema/comm.hpp 'inline constexpr std::size_t kCommBytes =
    schema::index_in(kCommStatsColumns, comm::kBytesColumn);'
plant twin_meaning_structs reports/reader/results_reader.hpp 'struct Meaning { int stage; };'
plant analysis_to_render reports/analysis/scaling.cpp '#include "render/charts.hpp"'
plant render_to_reader reports/render/html.cpp '#include "reader/results_reader.hpp"'
plant render_to_plugins reports/render/json.cpp '#include "plugins/alpha_beta.hpp"'
plant relative_includes reports/render/html.cpp '#include "../reader/results_reader.hpp"'
plant relative_includes reports/analysis/scaling.cpp '#include "../render/charts.hpp"'
plant reports_to_bench reports/plugins/step.cpp '#include "harness/run/case.hpp"'
plant format_helper_copies reports/render/json.cpp 'std::string with_unit(double v, const std::string& unit) { return ""; }'
plant format_helper_copies reports/plugins/checkpoint.cpp 'std::string percent(double f) { return ""; }'
plant format_helper_copies reports/render/html_format.cpp 'std::string duration(double s) { return ""; }'
plant format_helper_copies reports/plugins/step.cpp 'auto percent_significant(double f, int d) -> std::string { return ""; }'
rm -rf "$work" "$work.out" "$work.clean.out"
finish
