// The bottleneck summary: a ranked list of what holds the cluster back, each with its evidence
// and the next thing to check, following the chain of a training step: data in (storage,
// decode) -> compute (matmul) -> communication (intra vs inter, by size band) -> stragglers and
// hardware -> measurement quality. Wrong results and hangs come before all of them.
#pragma once

#include <string>
#include <vector>

#include "analysis/outliers.hpp"
#include "analysis/scaling.hpp"
#include "reader/results_reader.hpp"

namespace preflight::report {

enum class Stage { kCorrectness, kData, kCompute, kCommunication, kStragglers, kMeasurement };
const char* name_of(Stage s);

struct Finding {
  Stage stage = Stage::kMeasurement;
  std::string run_label;
  std::string title;                  // one line: what is wrong
  std::vector<std::string> evidence;  // figures and the cases they came from
  std::string next_check;             // what to look at next
  double weight = 0;                  // orders findings within a stage: larger first
  bool trustworthy = true;            // false for measurement-quality findings
};

struct RunReport;
std::vector<Finding> find_bottlenecks(const std::vector<RunReport>& runs,
                                      const std::vector<ScalingSeries>& scaling);

}  // namespace preflight::report
