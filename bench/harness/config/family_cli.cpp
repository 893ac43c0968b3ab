#include "harness/config/family_cli.hpp"

#include <fmt/format.h>

#include <memory>
#include <utility>

#include "harness/config/timing.hpp"

namespace preflight {
namespace {

const std::vector<std::pair<std::string, std::string>> kTimingFlags = {
    {"warmup", "-w,--warmup"}, {"min_iters", "--min-iters"},    {"max_iters", "-n,--iters"},
    {"budget", "--budget"},    {"precision", "--precision"},    {"batch_blocks", "--batch-blocks"},
    {"timeout", "--timeout"},  {"case_budget", "--case-budget"}};

// Help for the timing flags, with the defaults TimingOptions actually has.
std::string timing_help(const std::string& key) {
  const TimingOptions d;
  if (key == "warmup")
    return fmt::format("Untimed operations per size before timing ({})", d.warmup);
  if (key == "min_iters")
    return fmt::format("Timed iterations per size at least ({})", d.min_iterations);
  if (key == "max_iters")
    return fmt::format("Timed iterations per size at most ({})", d.max_iterations);
  if (key == "budget")
    return fmt::format("Time for the per-iteration phase of each size, e.g. 0.5s, 200ms ({:g}s)",
                       d.budget_s);
  if (key == "precision")
    return fmt::format(
        "Stop a size once the median's 95% CI is within +-this, e.g. 0.01; 0 is off ({:g})",
        d.precision);
  if (key == "batch_blocks")
    return fmt::format("Back-to-back timed blocks per size ({})", d.batch_blocks);
  if (key == "case_budget")
    return fmt::format(
        "Longest a case may run while still making progress, e.g. 30m; 0 is no limit ({:g}s)",
        d.case_budget_s);
  return fmt::format(
      "Watchdog: longest a case may go without any operation completing, e.g. 60s, 10m ({:g}s)",
      d.timeout_s);
}

std::string long_flag(const std::string& flags) {
  return flags.substr(flags.rfind(',') + 1);
}

}  // namespace

void add_family_options(CLI::App& cmd, const Family& family, FamilyFlags& f) {
  for (const auto& o : family.options()) {
    if (o.list)
      cmd.add_option(o.flags, f.lists[o.key], o.help)->delimiter(',');
    else
      cmd.add_option(o.flags, f.scalars[o.key], o.help);
  }
  for (const auto& [key, flags] : kTimingFlags)
    cmd.add_option(flags, f.timing[key], timing_help(key));
  cmd.add_option("--ranks-per-node", f.ranks_per_node,
                 "Group every N consecutive ranks into a virtual node; 0 groups by host (0)");
}

FamilyCampaign build_family_campaign(const CLI::App& cmd, const Family& family,
                                     const FamilyFlags& f) {
  auto flags = std::make_shared<std::map<std::string, std::string>>();
  YAML::Node entry;
  entry["name"] = family.name();
  entry["family"] = family.name();
  for (const auto& o : family.options()) {
    if (cmd.count(long_flag(o.flags)) == 0) continue;
    (*flags)["benchmarks[0]." + o.key] = long_flag(o.flags);
    if (o.list) {
      for (const auto& v : f.lists.at(o.key)) entry[o.key].push_back(v);
      if (f.lists.at(o.key).empty()) entry[o.key] = "";
    } else {
      entry[o.key] = f.scalars.at(o.key);
    }
  }
  YAML::Node root;
  for (const auto& [key, flag] : kTimingFlags) {
    if (cmd.count(long_flag(flag)) == 0) continue;
    root["timing"][key] = f.timing.at(key);
    (*flags)["timing." + key] = long_flag(flag);
  }
  if (cmd.count("--ranks-per-node")) {
    root["campaign"]["ranks_per_node"] = f.ranks_per_node;
    (*flags)["campaign.ranks_per_node"] = "--ranks-per-node";
  }
  root["benchmarks"].push_back(entry);
  return {root, flags};
}

}  // namespace preflight
