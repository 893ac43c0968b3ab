// A benchmark family as the command line sees it: its options, its effective configuration,
// and the cases it makes. bench/families.cpp lists the families.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/case.hpp"
#include "harness/rank_context.hpp"

namespace CLI {
class App;
}

namespace preflight {

class Family {
 public:
  virtual ~Family() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;
  // Declares its options on the `preflight <name>` subcommand.
  virtual void add_options(CLI::App& command) = 0;
  // Checks what can be checked before MPI starts; throws UsageError naming the option.
  virtual void validate() const = 0;
  // The effective configuration, recorded in the results.
  virtual nlohmann::json config() const = 0;
  // Collective over ctx.world: every rank makes the same cases in the same order.
  virtual std::vector<std::unique_ptr<Case>> make_cases(const RankContext& ctx) = 0;
};

}  // namespace preflight
