#include "plugins/plugins.hpp"

#include <array>

#include "analysis/report.hpp"

namespace preflight::report::plugins {
namespace {

// Every report plug-in. Add one here and in reports/CMakeLists.txt.
const std::array kPlugins = {
    // correctness (first in the chain): the device whose result disagrees, named with its host and
    // GPU; the checks.
    Plugin{"silent-corruption", "", nullptr, &silent_corruption_findings, nullptr,
           &silent_corruption_section},
    // comm: alpha-beta model of each collective and its predictions for more nodes.
    Plugin{"alpha-beta", "", nullptr, nullptr, &alpha_beta_fits},
    // storage: figures of the page cache or a memory file system are no storage figures.
    Plugin{"served-from-memory", schema::kQualityServedFromMemory, &served_from_memory,
           &served_from_memory_findings, nullptr},
    // comm: inter-node against intra-node throughput of the same collective.
    Plugin{"inter-vs-intra", "", nullptr, &inter_vs_intra, nullptr},
    // checkpoint: the interval the measured save time allows and the run time it loses.
    Plugin{"checkpoint-interval", "", nullptr, nullptr, nullptr, &checkpoint_interval_section},
    // fabric: the node x node pair matrix; node and link faults isolated from it.
    Plugin{"pair-matrix", "", nullptr, &pair_matrix_findings, nullptr},
    // dataloader: images/s valid only where the AU target is met; the stage that limits it.
    Plugin{"feeds-accelerator", schema::kQualityFeedsAccelerator, &feeds_accelerator,
           &feeds_accelerator_findings, nullptr, &dataloader_section},
    // step: the step-time projection from the other families' figures, beside the measured step.
    Plugin{"step-projection", "", nullptr, &step_findings, nullptr, &step_section},
};

}  // namespace

std::span<const Plugin> all() {
  return kPlugins;
}

std::string quality_problem(const CaseView& v, std::size_t point, const Selection& where) {
  for (const auto& rule : v.c.meaning.quality)
    for (const auto& p : kPlugins)
      if (p.point_quality != nullptr && p.quality_rule == rule) {
        auto problem = p.point_quality(v, point, where);
        if (!problem.empty()) return problem;
      }
  return {};
}

void add_findings(const RunReport& r, std::vector<Finding>& out) {
  for (const auto& p : kPlugins)
    if (p.findings != nullptr) p.findings(r, out);
}

std::vector<AlphaBetaFit> fits(const RunData& run, const std::string& label) {
  std::vector<AlphaBetaFit> out;
  for (const auto& p : kPlugins)
    if (p.fits != nullptr) {
      auto more = p.fits(run, label);
      out.insert(out.end(), more.begin(), more.end());
    }
  return out;
}

void add_sections(const RunReport& r, std::vector<Section>& out) {
  for (const auto& p : kPlugins)
    if (p.sections != nullptr) p.sections(r, out);
}

std::vector<std::string> unserved_quality_rules(const RunData& run) {
  std::set<std::string> unserved;
  for (const auto& c : run.cases)
    for (const auto& rule : c.meaning.quality) {
      bool served = false;
      for (const auto& p : kPlugins) served = served || p.quality_rule == rule;
      if (!served) unserved.insert(rule);
    }
  return {unserved.begin(), unserved.end()};
}

}  // namespace preflight::report::plugins
