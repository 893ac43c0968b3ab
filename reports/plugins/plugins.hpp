// Report plug-ins: the analyses that only make sense for one family (they may name families,
// parameters and metrics; the report's generic code names none). Listed in ONE table,
// plugins.cpp, as bench/families.cpp lists the families. A plug-in contributes any of: the
// measurement-quality rule it serves (schema meaning.hpp, a case's `quality` attribute),
// findings, alpha-beta fits, sections of the report of its own.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/bottlenecks.hpp"
#include "analysis/case_view.hpp"
#include "analysis/chart.hpp"
#include "plugins/alpha_beta.hpp"

namespace preflight::report {
struct RunReport;
}

namespace preflight::report::plugins {

// An acceptance rule's case selection: case attribute -> accepted values.
using Selection = std::map<std::string, std::set<std::string>>;

// A section of the report a plug-in writes: every renderer (terminal, Markdown, HTML, JSON)
// shows all of it, in the same order, without knowing what it is about.
struct Section {
  std::string id;                  // HTML anchor, JSON key: letters, digits and '-'
  std::string title;               // heading
  std::vector<std::string> lines;  // what it shows and how: formulas, inputs, sources
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // one cell per header entry
  std::vector<Chart> charts;                   // HTML draws them; the others list their points
};

struct Plugin {
  std::string_view name;
  std::string_view quality_rule;  // the quality rule it serves, or ""
  // Why a point of a case that asks for quality_rule is not to be judged ("" when it may be);
  // `where` is the acceptance rule's selection (a rule may select what the quality rule flags).
  std::string (*point_quality)(const CaseView& v, std::size_t point,
                               const Selection& where) = nullptr;
  // Findings of its own for one run (bottleneck summary).
  void (*findings)(const RunReport& r, std::vector<Finding>& out) = nullptr;
  std::vector<AlphaBetaFit> (*fits)(const RunData& run, const std::string& label) = nullptr;
  // Sections of its own for one run (none when the run has nothing it reads).
  void (*sections)(const RunReport& r, std::vector<Section>& out) = nullptr;
};

std::span<const Plugin> all();

// Over the quality rules the case asks for: the first problem a serving plug-in sees at the point.
std::string quality_problem(const CaseView& v, std::size_t point, const Selection& where);
void add_findings(const RunReport& r, std::vector<Finding>& out);
std::vector<AlphaBetaFit> fits(const RunData& run, const std::string& label);
void add_sections(const RunReport& r, std::vector<Section>& out);
// Quality rules that cases of the run ask for and no plug-in serves: not checked.
std::vector<std::string> unserved_quality_rules(const RunData& run);

// The plug-ins (one file each).
std::string served_from_memory(const CaseView& v, std::size_t point, const Selection& where);
void served_from_memory_findings(const RunReport& r, std::vector<Finding>& out);
void inter_vs_intra(const RunReport& r, std::vector<Finding>& out);
void checkpoint_interval_section(const RunReport& r, std::vector<Section>& out);
void pair_matrix_findings(const RunReport& r, std::vector<Finding>& out);
std::string feeds_accelerator(const CaseView& v, std::size_t point, const Selection& where);
void feeds_accelerator_findings(const RunReport& r, std::vector<Finding>& out);
void dataloader_section(const RunReport& r, std::vector<Section>& out);
void step_section(const RunReport& r, std::vector<Section>& out);
void step_findings(const RunReport& r, std::vector<Finding>& out);
void silent_corruption_findings(const RunReport& r, std::vector<Finding>& out);
void silent_corruption_section(const RunReport& r, std::vector<Section>& out);

}  // namespace preflight::report::plugins
