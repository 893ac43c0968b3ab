// The bottleneck summary: a ranked list of what holds the cluster back, each with its evidence
// and the next thing to check, following the chain of a training step: the schema's stages
// (meaning.hpp kStageNames: data in -> compute -> communication -> checkpoint -> training step),
// each finding in the stage its cases declare, then stragglers and hardware, then measurement
// quality. Wrong results and hangs come before all of them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/outliers.hpp"
#include "analysis/scaling.hpp"
#include "reader/results_reader.hpp"

namespace preflight::report {

// The schema's stages (schema::Stage, same order: correctness first), then the report's own.
enum class Stage {
  kCorrectness,
  kDataIn,
  kCompute,
  kCommunication,
  kCheckpoint,
  kStep,
  kStragglers,
  kMeasurement
};
Stage stage_of(schema::Stage s);
const char* name_of(Stage s);  // the schema's label for its stages ("data in", ...)

// A host, link or device a finding names for an operator to act on (drain the node, check the
// cable): the machine-readable part of the finding, listed in the JSON verdict's `suspects`.
// A device suspect (kind "device": a rank's own GPU or CPU computed or received wrong results)
// names its host, the rank and the GPU's UUID ("" for a CPU).
struct Suspect {
  std::string kind;                // "host", "link", "fabric" or "device"
  std::vector<std::string> hosts;  // the host, or the link's two hosts
  std::string action;
  std::int64_t rank = -1;   // device: the world rank that used it
  std::string device = {};  // device: the GPU's UUID, "" for a CPU
  // A soak's suspect (analysis/soak.hpp): what an operator does (monitor: listed, not failed)
  // and the pattern of the rounds it was named in; none and "" for any other.
  schema::Remedy remediation = schema::Remedy::kNone;
  std::string pattern = {};
};
inline constexpr const char* kDeviceSuspect = "device";
inline constexpr const char* kLinkSuspect = "link";
// Every node's shared network (a switch, a setting): what a pair sweep names when every pair is
// below the reference envelope's floor.
inline constexpr const char* kFabricSuspect = "fabric";  // names-ok: a suspect kind, not the family

// A square matrix of figures between the same things on both axes (the fabric pair sweep's
// node x node), drawn as a heat map by the HTML report.
struct Heatmap {
  std::string title;  // what the cells are, e.g. "bandwidth at 262144 B, first pass"
  std::string unit;
  bool higher_is_better = true;
  std::vector<std::string> labels;
  std::vector<double> cells;  // labels x labels, row by row; NaN: not measured
};

struct Finding {
  Stage stage = Stage::kMeasurement;
  std::string run_label;
  std::string title;                  // one line: what is wrong
  std::vector<std::string> evidence;  // figures and the cases they came from
  std::string next_check;             // what to look at next
  double weight = 0;                  // orders findings within a stage: larger first
  bool trustworthy = true;            // false for measurement-quality findings and caveated ones
  // Why this finding itself cannot be trusted (its figures came from virtual nodes, ...): shown
  // in its own line, and the finding ranks below every trustworthy one. Empty: no caveat.
  std::string caveat = {};
  // Hosts and links to act on; a finding with suspects ranks above the rest of the chain
  // (after wrong results).
  std::vector<Suspect> suspects = {};
  std::vector<Heatmap> heatmaps = {};
};

struct RunReport;
std::vector<Finding> find_bottlenecks(const std::vector<RunReport>& runs,
                                      const std::vector<ScalingSeries>& scaling);

}  // namespace preflight::report
