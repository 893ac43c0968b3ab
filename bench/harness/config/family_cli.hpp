// A family's command (`preflight comm --op allreduce ...`): its flags come from the family's
// option table, plus the timing flags and --ranks-per-node, and what was given becomes a
// one-benchmark campaign that read_campaign checks like a YAML file (errors name the flag).
#pragma once

#include <yaml-cpp/yaml.h>

#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

#include "harness/config/config_node.hpp"
#include "harness/run/family.hpp"

namespace preflight {

// The flags' values as text, filled in by CLI11.
struct FamilyFlags {
  std::map<std::string, std::string> scalars;
  std::map<std::string, std::vector<std::string>> lists;
  std::map<std::string, std::string> timing;
  std::string ranks_per_node;
};

// The campaign the flags describe, and the YAML path -> flag map for messages.
struct FamilyCampaign {
  YAML::Node root;
  ConfigNode::FlagNames flags;
};

void add_family_options(CLI::App& cmd, const Family& family, FamilyFlags& f);

// After cmd was parsed: only the flags given go into the campaign.
FamilyCampaign build_family_campaign(const CLI::App& cmd, const Family& family,
                                     const FamilyFlags& f);

}  // namespace preflight
