#include "pace_family.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "pace_schema.hpp"
#include "preflight/common/usage_error.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight::test {
namespace {

namespace s = schema;
using namespace pace;  // the family's declaration (pace_schema.hpp)

// One work unit is one microsecond of waiting: the operation sleeps until its deadline, so its
// time does not depend on how many ranks share a core (on 2 cores, 4 busy ranks would slow one
// another at random and make a healthy rank look slow).
constexpr double kSecondsPerUnit = 1e-6;
constexpr double kSlowFactor = 1.5;  // the planted slow rank's work per operation

// The operation's result, so that the correctness check has something rank-dependent to check.
std::uint64_t mix(std::uint64_t units, std::uint64_t seed) {
  return (seed * 6364136223846793005ULL + 1442695040888963407ULL) ^ units;
}

void wait_units(std::uint64_t units) {
  std::this_thread::sleep_for(
      std::chrono::duration<double>(static_cast<double>(units) * kSecondsPerUnit));
}

struct PaceConfig {
  std::vector<std::int64_t> units = {100, 1000};
  int slow_rank = -1;
  s::Scaling scaling = s::Scaling::kPerRank;
  bool node_ladder = true;
  // What the benchmark declares it needs (FamilyNeeds), so the environment checks can be tested
  // against needs a real family would have: a library loaded at run time, pinned memory.
  std::string needs_library;
  std::int64_t pins_bytes = 0;
};

class PaceOperation final : public Operation {
 public:
  PaceOperation(std::uint64_t units, std::uint64_t seed)
      : units_(units), seed_(seed), expected_(mix(units, seed)) {}
  void fill() override { result_ = 0; }
  void run() override {
    wait_units(units_);
    result_ = mix(units_, seed_);
  }
  std::uint64_t count_wrong() override { return result_ == expected_ ? 0 : 1; }
  void corrupt_result() override { result_ = result_ ^ 1U; }

 private:
  std::uint64_t units_, seed_, expected_;
  volatile std::uint64_t result_ = 0;
};

class PaceCase final : public Case {
 public:
  PaceCase(const PaceConfig& config, std::vector<int> group_of_rank, int nodes, int rank)
      : config_(config), group_of_rank_(std::move(group_of_rank)), nodes_(nodes), rank_(rank) {
    for (int g : group_of_rank_) ranks_ += g >= 0 ? 1 : 0;
  }
  std::string name() const override { return fmt::format("{} {}", subject(), label()); }
  std::string backend() const override { return "cpu"; }
  std::vector<Param> params() const override {
    return {attr(kSlowRank, config_.slow_rank), attr(kNodes, nodes_), attr(kRanks, ranks_),
            attr(kLayout, label())};
  }
  const s::FamilySchema& declaration() const override {
    return config_.scaling == s::Scaling::kAggregate ? kAggregateDeclaration : kPerRankDeclaration;
  }
  s::OwnMeaning own_meaning() const override { return {.subject = subject()}; }
  const std::vector<int>& group_of_rank() const override { return group_of_rank_; }
  std::size_t point_count() const override { return config_.units.size(); }
  std::vector<Param> point_columns(std::size_t point, int) const override {
    return {column_param(kWorkUnitsColumn, config_.units[point], true)};
  }
  std::vector<Metric> metrics(std::size_t point, int /*group*/, double seconds) const override {
    // per_rank: one rank's units per second; aggregate: all the group's ranks' together.
    const int ranks = ranks_;
    const double per_rank = static_cast<double>(config_.units[point]) / seconds;
    const double value = config_.scaling == s::Scaling::kAggregate ? per_rank * ranks : per_rank;
    return {metric(kUnitsPerSColumn, value, &kBatchedUnitsPerSColumn)};
  }
  std::unique_ptr<Operation> make_operation(std::size_t point) override {
    if (group_of_rank_[static_cast<std::size_t>(rank_)] < 0) return nullptr;
    auto units = static_cast<std::uint64_t>(config_.units[point]);
    if (rank_ == config_.slow_rank)
      units = static_cast<std::uint64_t>(static_cast<double>(units) * kSlowFactor);
    return std::make_unique<PaceOperation>(units, static_cast<std::uint64_t>(rank_) + 1);
  }

 private:
  std::string subject() const { return fmt::format("{} {}", kFamily, name_of(config_.scaling)); }
  std::string label() const { return fmt::format("{} node{}", nodes_, nodes_ == 1 ? "" : "s"); }

  PaceConfig config_;
  std::vector<int> group_of_rank_;
  int nodes_ = 0, ranks_ = 0, rank_ = 0;
};

class PaceFamily final : public Family {
 public:
  std::string name() const override { return std::string(kFamily); }
  std::string summary() const override {
    return "test only: an operation that waits N microseconds";
  }
  std::vector<OptionSpec> options() const override {
    return {
        {.key = "units",
         .flags = "--units",
         .help = "Work units per operation, one point each (100,1000)",
         .list = true},
        {.key = "slow_rank",
         .flags = "--slow-rank",
         .help = "This rank does 1.5x the work of each operation (-1: none)"},
        {.key = "scaling",
         .flags = "--scaling",
         .help = "units_per_s per rank (per_rank) or summed (aggregate)"},
        {.key = "node_ladder",
         .flags = "--node-ladder",
         .help = "One case per 1, 2, 4 ... nodes, then all (true)"},
        {.key = "needs_library",
         .flags = "--needs-library",
         .help = "A library it declares it loads at run time"},
        {.key = "pins_bytes",
         .flags = "--pins-bytes",
         .help = "Page-locked bytes per rank it declares it needs"},
    };
  }
  void configure(const ConfigNode& entry) override {
    PaceConfig c;
    if (entry.has("units")) {
      c.units.clear();
      for (const auto& u : entry.string_list("units", {})) {
        std::size_t used = 0;
        long long v = -1;
        try {
          v = std::stoll(u, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != u.size() || v < 1 || v > 100000000)
          entry.fail("units", "whole numbers from 1 to 100000000", "'" + u + "'");
        c.units.push_back(v);
      }
      if (c.units.empty()) entry.fail("units", "at least one number of work units", "none");
    }
    c.slow_rank = static_cast<int>(entry.integer("slow_rank", -1, -1, 1 << 20));
    const std::string scaling = entry.string("scaling", "per_rank");
    const auto parsed = s::parse(scaling, s::kScalingNames);
    if (!parsed || *parsed == s::Scaling::kNone)
      entry.fail("scaling", "per_rank or aggregate", "'" + scaling + "'");
    c.scaling = *parsed;
    const std::string ladder = entry.string("node_ladder", "true");
    if (ladder != "true" && ladder != "false") entry.fail("node_ladder", "true or false", ladder);
    c.node_ladder = ladder == "true";
    c.needs_library = entry.string("needs_library", "");
    c.pins_bytes = entry.integer("pins_bytes", 0, 0, std::int64_t{1} << 50);
    config_ = c;
  }
  nlohmann::json config() const override {
    return {{"units", config_.units},
            {"slow_rank", config_.slow_rank},
            {"scaling", std::string(name_of(config_.scaling))},
            {"node_ladder", config_.node_ladder}};
  }
  FamilyNeeds needs() const override {
    FamilyNeeds n;
    if (!config_.needs_library.empty()) n.libraries.push_back(config_.needs_library);
    n.pinned_bytes = static_cast<std::uint64_t>(config_.pins_bytes);
    return n;
  }
  std::vector<std::unique_ptr<Case>> make_cases(const RankContext& ctx) override {
    std::vector<int> steps;
    if (config_.node_ladder)
      for (int k = 1; k < ctx.node_count; k *= 2) steps.push_back(k);
    steps.push_back(ctx.node_count);
    std::vector<std::unique_ptr<Case>> out;
    for (int k : steps) {
      std::vector<int> groups(static_cast<std::size_t>(ctx.size), -1);
      for (std::size_t r = 0; r < groups.size(); ++r) groups[r] = ctx.node_of_rank[r] < k ? 0 : -1;
      out.push_back(std::make_unique<PaceCase>(config_, std::move(groups), k, ctx.rank));
    }
    return out;
  }

 private:
  PaceConfig config_;
};

}  // namespace

std::unique_ptr<Family> make_pace_family() {
  return std::make_unique<PaceFamily>();
}

}  // namespace preflight::test
