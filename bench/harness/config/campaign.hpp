// A campaign: benchmarks, variants and repetitions, read from YAML (or built from command-line
// flags), validated in full before anything runs.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/config/timing.hpp"
#include "harness/run/family.hpp"

namespace preflight {

struct Variant {
  std::string name;
  std::map<std::string, std::string> env;  // set before the variant's cases run
};

struct Benchmark {
  std::string name;
  std::unique_ptr<Family> family;  // configured from the entry
  TimingOptions timing;
};

// The config's campaign section and its time budget key: read by the campaign, and left out of
// the campaign's identity when a file is resumed (plan.cpp).
inline constexpr const char* kCampaignSection = "campaign";
inline constexpr const char* kTimeBudgetKey = "time_budget";
// The config's soak section (docs/guide-burn-in.md): rounds of the campaign until its duration
// is spent; `--soak DURATION` sets its duration key.
inline constexpr const char* kSoakSection = "soak";
inline constexpr const char* kSoakDurationKey = "duration";
// summary (the default) or full: how a soak's points are written (results-schema/SPEC.md,
// "Summary points").
inline constexpr const char* kSoakSamplesKey = "samples";

struct Campaign {
  std::string name;
  double time_budget_s = 0;  // 0: none
  int ranks_per_node = 0;    // 0: nodes by host
  int repetitions = 1;
  double soak_s = 0;          // 0: not a soak; else rounds are started until this is spent
  std::string soak_textfile;  // a soak's Prometheus textfile, rewritten as cases finish; "": none
  bool soak_summary_points = true;  // soak.samples: summary; false: full
  std::vector<Variant> variants;    // at least one
  std::vector<Benchmark> benchmarks;
  nlohmann::json effective;  // the effective config, recorded in the results
};

// Makes a family by name; nullptr when there is none (families.cpp provides it).
using FamilyMaker = std::unique_ptr<Family> (*)(const std::string& name);

// Applies `--set PATH=VALUE` overrides to a parsed YAML document. PATH starts with `campaign`,
// `timing`, or a benchmark's name or family (then it applies to every such benchmark).
// Each overridden value's path is labelled "--set PATH" in `labels`, for messages.
void apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides,
                     std::map<std::string, std::string>& labels);

// Reads and checks a whole campaign; throws UsageError naming file:line:column.
Campaign read_campaign(const YAML::Node& root, const std::string& file, FamilyMaker make_family,
                       const std::vector<std::string>& family_names,
                       ConfigNode::FlagNames flags = nullptr);

// Parses YAML text; a syntax error becomes a UsageError naming file:line:column.
YAML::Node parse_yaml(const std::string& text, const std::string& file);

}  // namespace preflight
