// Everything the analyses found in a set of results files: what every renderer (terminal,
// Markdown, HTML, JSON, JUnit) shows, so that they never disagree. Built once by build_report().
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/acceptance.hpp"
#include "analysis/bottlenecks.hpp"
#include "analysis/case_table.hpp"
#include "analysis/device_watch.hpp"
#include "analysis/headline_figures.hpp"
#include "analysis/host_load.hpp"
#include "analysis/instances.hpp"
#include "analysis/outliers.hpp"
#include "analysis/reference.hpp"
#include "analysis/regression.hpp"
#include "analysis/scaling.hpp"
#include "analysis/soak.hpp"
#include "plugins/alpha_beta.hpp"
#include "plugins/plugins.hpp"
#include "reader/results_reader.hpp"

namespace preflight::report {

// One results file and what was found in it alone.
struct RunReport {
  const RunData* run = nullptr;
  std::string label;              // the instance label, or the file's name without .h5
  std::vector<Outlier> outliers;  // slow (and late) nodes and ranks
  std::vector<std::string> outliers_not_judged = {};  // what could not be judged, and why
  // Devices whose telemetry broke a rule its series declare, and what could not be judged.
  std::vector<WatchFinding> watch_findings = {};
  std::vector<std::string> watch_not_judged = {};
  // The reference envelope the run was judged against (null: peers only) and how it was chosen;
  // figures: its checks that judged something (not "not measured").
  ReferenceChoice reference = {};
  std::size_t reference_figures_judged = 0;
  // Read from the run's cases and environment when the report is built, so that no renderer
  // computes from them: how many cases failed and timed out; the run's hosts, each once, in the
  // order of the ranks that ran on them; the host of each node name and of rank 0 ("" when the
  // environment does not name it); each case's headline figure at each point.
  CaseOutcomes outcomes = {};
  std::vector<std::string> hosts = {};
  std::map<std::string, std::string> host_of_node = {};
  std::string rank0_host = {};
  std::vector<HeadlineFigure> figures = {};
  // A soak read round by round (analysis/soak.hpp); none for any other run.
  std::optional<SoakSummary> soak = {};
};

// A regression comparison of one run against the baseline runs.
struct RegressionSection {
  std::vector<const RunData*> baselines;  // oldest first
  const RunData* current = nullptr;
  RegressionReport result;
  // The share of the hosts others took in each baseline run, then in the current one.
  std::vector<RunHostLoad> host_load = {};
};

struct Report {
  std::vector<RunReport> runs;
  std::vector<ScalingSeries> scaling;      // every run's series, in run order
  std::vector<AlphaBetaFit> fits;          // from the alpha-beta plug-in
  std::vector<plugins::Section> sections;  // plug-ins' own sections, run by run
  std::vector<Finding> findings;           // ranked, most important first
  std::vector<Check> checks;               // acceptance checks, in rule order
  RegressionOptions regression_options;
  std::vector<RegressionSection> regressions;   // empty without --baseline
  std::optional<InstanceComparison> instances;  // with --prices and two or more files
  // Stages of the chain no case declares (schema stage labels, e.g. "compute"), and quality
  // rules no plug-in serves, so that silence is not mistaken for health.
  std::vector<std::string> not_measured;

  // The report's exit code (docs/report.md): 1 when a check failed or a run got slower, else 3
  // when a check was inconclusive, else 0.
  int exit_code() const;
};

struct ReportInputs {
  const std::vector<RunData>* runs = nullptr;
  std::vector<std::string> labels;        // one per run
  std::vector<const RunData*> baselines;  // --baseline, each given
  const Rules* rules = nullptr;           // --rules
  const Catalogue* catalogue = nullptr;   // --prices
  RegressionOptions regression;
  OutlierOptions outliers;
  SoakOptions soak;
  // One per run where its soak was judged while it was read (SoakStream); null: judged here.
  std::vector<SoakStream>* soak_streams = nullptr;
  // Reference envelopes to choose from by each run's environment; `given` (--reference) is used
  // for every run instead; `none`: judged against peers only.
  const std::vector<Reference>* references = nullptr;
  const Reference* given_reference = nullptr;
  bool no_reference = false;
};

// Throws RulesError (a rule needs a baseline) and CatalogueError (a label without a price).
Report build_report(const ReportInputs& inputs);

}  // namespace preflight::report
