// A running soak for the site's Grafana: rank 0 rewrites a Prometheus textfile (text exposition
// format 0.0.4, for node_exporter's textfile collector) after every finished case, atomically
// (PATH.tmp in the same directory, fsync, rename: the collector never reads half a file). It holds
// the soak's state and, per case of the latest round, its headline figures, median times, wrong
// elements and each node's time against its peers'. Its metrics are textfile_metrics.hpp's.
// docs/operations.md ("Watching a soak in Grafana") and scripts/grafana/preflight-soak.json.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness/run/rank_context.hpp"
#include "harness/sinks/sink.hpp"
#include "harness/sinks/textfile_metrics.hpp"

namespace preflight {

class TextfileSink final : public ResultSink {
 public:
  // path: the textfile (soak.textfile); campaign: the campaign's name, a label on every sample.
  TextfileSink(std::string path, std::string campaign, const RankContext& ctx);
  void case_started(const CaseHeading& heading) override;
  void point_finished(const CaseHeading&, const PointResult&) override {}
  void case_finished(const CaseRecord& record) override;
  void case_timed_out(const CaseRecord& partial, const TimeoutVerdict& verdict) override;
  void run_finished(const std::string& status, int exit_code, const std::string& note) override;

 private:
  using Lines = std::array<std::string, textfile::kAll.size()>;  // by metric, kAll's order
  // A case's samples of its latest round, rendered once when it finished.
  struct CaseSamples {
    Lines lines;
    double worst_ratio = 0;    // its highest node time ratio (0: none)
    std::string worst_labels;  // that sample's labels
  };
  CaseSamples samples_of(const CaseRecord& record);
  // The labels that name a case: benchmark, variant, case, and `duplicate` where an earlier case
  // of the round had the same three.
  std::string case_labels(const CaseRecord& record, std::size_t position);
  double soaked_s() const;
  void write(const std::string& status, bool finished);

  std::string path_, campaign_label_;
  const RankContext& ctx_;
  std::vector<std::string> host_of_node_;
  // From the latest case_started: the soak's clock then, and the case's place in its round.
  double soaked_at_start_s_ = 0, soak_s_ = 0;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  long round_ = 0;
  std::size_t position_ = 0;
  std::size_t cases_ = 0, failed_ = 0;
  std::map<std::size_t, CaseSamples> latest_;                  // by position in the round
  std::map<std::string, std::set<std::size_t>> positions_of_;  // case labels -> positions
  bool warned_ = false;
};

// Why rank 0 cannot write a soak's textfile at `path` (its directory missing or not writable, a
// name node_exporter would not read), naming soak.textfile and the fix; "" when it can. Creates
// and removes PATH.tmp to find out. No MPI: plan.hpp's check_soak_textfile shares the answer.
std::string textfile_problem(const std::string& path);

}  // namespace preflight
