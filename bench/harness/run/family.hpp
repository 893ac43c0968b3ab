// A benchmark family: the keys it reads from a benchmark entry of a campaign (or from the
// command line), and the cases it makes. bench/families.cpp lists the families.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/config/config_node.hpp"
#include "harness/run/case.hpp"
#include "harness/run/rank_context.hpp"

namespace preflight {

// One key of a family's benchmark entry and the command-line flag that sets it: what the
// command line and the campaign reader need to know of an option. A family declares its
// options once, as an OptionTable (harness/config/options.hpp), and options() returns its specs.
struct OptionSpec {
  std::string key;    // in YAML: benchmarks[i].<key>
  std::string flags;  // for CLI11, e.g. "-d,--dtype"
  std::string help;   // the whole --help text, allowed values and default included
  bool list = false;  // a list (comma-separated on the command line)
};

// What a configured benchmark asks of the environment, so that `preflight run` can check it
// before measuring anything (harness/env/env_checks.hpp): the directories it writes, the shared
// libraries it loads at run time, the memory it pins, and whether it needs a GPU.
struct FamilyNeeds {
  std::vector<std::string> directories;  // written by every rank
  std::vector<std::string> libraries;    // sonames it loads with dlopen
  std::uint64_t pinned_bytes = 0;        // page-locked per rank (registered buffers)
  bool gpu = false;                      // cannot run without a GPU on every rank
};

class Family {
 public:
  virtual ~Family() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;
  virtual std::vector<OptionSpec> options() const = 0;
  // Reads and checks the family's keys of one benchmark entry (the keys every entry has,
  // name, family and timing, are the harness's); throws UsageError at the key's position.
  // With an OptionTable: table.read(entry, config), then the rules between keys.
  virtual void configure(const ConfigNode& entry) = 0;
  // Checks a variant's environment map (variants[i].env) for the variables this family's
  // libraries read; throws UsageError at the variable's key. The default checks nothing.
  virtual void check_environment(const ConfigNode& env) const { (void)env; }
  // Checks the variants together (the campaign's `variants` list, each a map with name and maybe
  // env): what a library reads once per process cannot differ between them. Throws UsageError
  // at the offending key. The default checks nothing.
  virtual void check_variants(const std::vector<ConfigNode>& variants) const { (void)variants; }
  // The effective configuration, recorded in the results (table.json(config)).
  virtual nlohmann::json config() const = 0;
  // Collective over ctx.world: every rank makes the same cases in the same order. May be
  // called more than once (variants, repetitions); each call makes fresh cases.
  virtual std::vector<std::unique_ptr<Case>> make_cases(const RankContext& ctx) = 0;
  // What make_cases left out because the job's layout makes it meaningless (a collective
  // topology whose every group has one rank), one line each with the reason and the fix; the
  // run records them (attribute `skipped`) and prints them, so that nothing is dropped silently.
  virtual std::vector<std::string> skipped(const RankContext& ctx) const {
    (void)ctx;
    return {};
  }
  // What the configured benchmark needs of the environment (none by default).
  virtual FamilyNeeds needs() const { return {}; }
};

}  // namespace preflight
