// A family's option table drives everything about an option: its flag and help in the family
// command, its YAML key, its --set path, its validation and its record in config(). Every
// option of every family is fed the same bad value three ways and must be judged the same.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "comm/comm_family.hpp"
#include "harness/config/campaign.hpp"
#include "harness/config/family_cli.hpp"
#include "harness/config/options.hpp"
#include "matmul/matmul_family.hpp"
#include "memory/memory_family.hpp"
#include "preflight/common/usage_error.hpp"
#include "step/step_family.hpp"
#include "storage/storage_family.hpp"

namespace preflight {
namespace {

std::unique_ptr<Family> make_test_family(const std::string& name) {
  if (name == "comm") return comm::make_comm_family();
  if (name == "storage") return storage::make_storage_family();
  if (name == "matmul") return matmul::make_matmul_family();
  if (name == "memory") return memory::make_memory_family();
  if (name == "step") return step::make_step_family();
  return nullptr;
}
const std::vector<std::string> kFamilies = {"comm", "storage", "matmul", "memory", "step"};

std::string long_flag(const std::string& flags) {
  return flags.substr(flags.rfind(',') + 1);
}

// The message read_campaign gives for a campaign, or "" when it is accepted.
std::string verdict(const YAML::Node& root, const std::string& file,
                    ConfigNode::FlagNames flags = nullptr) {
  try {
    read_campaign(root, file, &make_test_family, kFamilies, std::move(flags));
    return "";
  } catch (const UsageError& e) {
    return e.what();
  }
}

// What follows the option's label in a message: the same whichever way the value came.
std::string after(const std::string& message, const std::string& label) {
  const auto at = message.find(label);
  return at == std::string::npos ? "(label '" + label + "' missing: " + message + ")"
                                 : message.substr(at + label.size());
}

std::string from_yaml(const std::string& family, const std::string& key, const std::string& value) {
  const std::string text =
      "benchmarks:\n  - family: " + family + "\n    " + key + ": " + value + "\n";
  const std::string message = verdict(parse_yaml(text, "t.yaml"), "t.yaml");
  return message.empty() ? ""
                         : after(message, "t.yaml:3:" + std::to_string(7 + key.size()) +
                                              ": benchmarks[0]." + key);
}

std::string from_set(const std::string& family, const std::string& key, const std::string& value) {
  YAML::Node root = parse_yaml("benchmarks:\n  - family: " + family + "\n", "t.yaml");
  std::map<std::string, std::string> labels;
  apply_overrides(root, {family + "." + key + "=" + value}, labels);
  const std::string message =
      verdict(root, "t.yaml", std::make_shared<std::map<std::string, std::string>>(labels));
  return message.empty() ? "" : after(message, "--set " + family + "." + key);
}

std::string from_flag(const Family& family, const OptionSpec& o, const std::string& value) {
  CLI::App app;
  CLI::App* cmd = app.add_subcommand(family.name());
  FamilyFlags flags;
  add_family_options(*cmd, family, flags);
  app.parse(family.name() + " " + long_flag(o.flags) + " " + value, false);
  const auto built = build_family_campaign(*cmd, family, flags);
  const std::string message = verdict(built.root, "command line", built.flags);
  return message.empty() ? "" : after(message, long_flag(o.flags));
}

TEST(Options, EveryOptionIsInTheHelpOfItsCommand) {
  for (const auto& name : kFamilies) {
    const auto family = make_test_family(name);
    CLI::App app;
    CLI::App* cmd = app.add_subcommand(name);
    FamilyFlags flags;
    add_family_options(*cmd, *family, flags);
    const std::string help = cmd->help();
    for (const auto& o : family->options()) {
      EXPECT_NE(help.find(long_flag(o.flags)), std::string::npos) << name << " " << o.key;
      EXPECT_NE(help.find(o.help.substr(0, 30)), std::string::npos) << name << " " << o.key;
    }
  }
}

TEST(Options, DefaultsAreValid) {
  for (const auto& name : kFamilies) {
    const std::string message =
        verdict(parse_yaml("benchmarks:\n  - family: " + name + "\n", "t.yaml"), "t.yaml");
    EXPECT_EQ(message, "") << name;
  }
}

TEST(Options, YamlSetAndFlagJudgeEveryOptionAlike) {
  for (const auto& name : kFamilies) {
    const auto family = make_test_family(name);
    int refused = 0;
    for (const auto& o : family->options()) {
      const std::string yaml = from_yaml(name, o.key, "bogus-value");
      EXPECT_EQ(yaml, from_set(name, o.key, "bogus-value")) << name << "." << o.key;
      EXPECT_EQ(yaml, from_flag(*family, o, "bogus-value")) << name << "." << o.key;
      refused += !yaml.empty();
    }
    // Only free text (a directory, a data set id) takes "bogus-value".
    if (name == "comm") {
      EXPECT_EQ(from_yaml(name, "redops", "bogus-value"),
                ": expected one of sum, max, min, prod, found 'bogus-value'");
    }
    EXPECT_GE(refused, static_cast<int>(family->options().size()) - 2) << name;
  }
}

// The table itself: a destination of each kind, read from YAML or its default, and written
// back under its record key.
struct Toy {
  std::string text;
  std::vector<int> counts;
  bool flag = false;
  double seconds = 0;
  std::vector<std::uint64_t> sizes;
  std::vector<bool> modes;
  std::int64_t limit = 0;
};
constexpr std::array kModes = {std::pair{false, std::string_view("slow")},
                               std::pair{true, std::string_view("fast")}};

OptionTable<Toy> toy_table() {
  return OptionTable<Toy>({
      opt::text({.key = "text", .flags = "--text", .help = "Text", .default_value = "x"},
                &Toy::text),
      opt::integers({.key = "counts", .flags = "--count", .help = "Counts", .default_value = "4,2"},
                    &Toy::counts, 1, 8),
      opt::boolean({.key = "flag", .flags = "--flag", .help = "Flag", .default_value = "no"},
                   &Toy::flag),
      opt::duration({.key = "wait",
                     .flags = "--wait",
                     .help = "Wait",
                     .default_value = "200ms",
                     .record = "wait_s"},
                    &Toy::seconds, 0.001, "at least 1ms"),
      opt::sizes({.key = "sizes", .flags = "--sizes", .help = "Sizes", .default_value = "1K:4K:x2"},
                 &Toy::sizes),
      opt::names({.key = "modes", .flags = "--mode", .help = "Modes", .default_value = "fast"},
                 &Toy::modes, NameTable<bool>{kModes}, "both"),
      opt::integer({.key = "limit", .flags = "--limit", .help = "Limit", .default_value = "3"},
                   &Toy::limit, 1, 10),
  });
}

TEST(Options, TableReadsDefaultsAndWritesRecords) {
  const auto table = toy_table();
  Toy t;
  const YAML::Node empty(YAML::NodeType::Map);
  table.read(ConfigNode(empty, "t.yaml", ""), t);
  EXPECT_EQ(table.json(t), nlohmann::json::parse(R"({"text": "x", "counts": [2, 4], "flag": false,
      "wait_s": 0.2, "sizes": [1024, 2048, 4096], "modes": ["fast"], "limit": 3})"));
  const YAML::Node given = YAML::Load("{counts: [3, 3, 1], flag: on, modes: both, wait: 1s}");
  table.read(ConfigNode(given, "t.yaml", ""), t);
  EXPECT_EQ(t.counts, (std::vector<int>{1, 3}));
  EXPECT_TRUE(t.flag);
  EXPECT_EQ(t.modes, (std::vector<bool>{false, true}));
  EXPECT_DOUBLE_EQ(t.seconds, 1.0);
}

TEST(Options, HelpCarriesAllowedValuesAndDefault) {
  const auto specs = toy_table().specs();
  EXPECT_EQ(specs[1].help, "Counts (4,2)");
  EXPECT_TRUE(specs[1].list);
  EXPECT_EQ(specs[2].help, "Flag: true or false (no)");
  EXPECT_EQ(specs[5].help, "Modes: slow, fast, or both (fast)");
}

TEST(Options, RefusalsNameTheKeyAndTheAllowedValues) {
  const auto table = toy_table();
  Toy t;
  auto refusal = [&](const std::string& yaml) {
    try {
      table.read(ConfigNode(YAML::Load(yaml), "t.yaml", "b"), t);
      return std::string();
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
  };
  EXPECT_NE(refusal("{modes: medium}")
                .find("b.modes: expected one of slow, fast, both, found "
                      "'medium'"),
            std::string::npos);
  EXPECT_NE(refusal("{counts: 9}").find("b.counts: expected whole numbers from 1 to 8"),
            std::string::npos);
  EXPECT_NE(refusal("{wait: 0s}").find("b.wait: expected at least 1ms"), std::string::npos);
  EXPECT_NE(refusal("{limit: 11}").find("b.limit: expected a whole number from 1 to 10"),
            std::string::npos);
  EXPECT_NE(refusal("{flag: maybe}").find("b.flag: expected true or false"), std::string::npos);
}

// `sizes` and every other list of sizes: a YAML list of integers and sizes with units as well
// as the string forms; a bad element is named by its position, at its own line and column.
std::vector<std::uint64_t> sizes_of(const std::string& yaml) {
  return ConfigNode(YAML::Load(yaml), "t.yaml", "benchmarks[0]").sizes("sizes");
}
std::string sizes_refusal(const std::string& yaml) {
  try {
    sizes_of(yaml);
    return "";
  } catch (const UsageError& e) {
    return e.what();
  }
}

TEST(ConfigSizes, AcceptsYamlListsAndTheStringForms) {
  using Sizes = std::vector<std::uint64_t>;
  EXPECT_EQ(sizes_of("sizes: [8, 64K, 1M]"), (Sizes{8, 64 << 10, 1 << 20}));
  EXPECT_EQ(sizes_of("sizes:\n  - 4096\n  - 2MiB\n"), (Sizes{4096, 2 << 20}));
  EXPECT_EQ(sizes_of("sizes: [8]"), (Sizes{8}));
  EXPECT_EQ(sizes_of("sizes: 8,1K"), (Sizes{8, 1024}));
  EXPECT_EQ(sizes_of("sizes: 8:32:x2"), (Sizes{8, 16, 32}));
  EXPECT_EQ(sizes_of("sizes: 64"), (Sizes{64}));
}

TEST(ConfigSizes, ABadElementIsNamedByItsPosition) {
  EXPECT_NE(sizes_refusal("sizes: [8, 64K, 1Q]")
                .find("t.yaml:1:17: benchmarks[0].sizes[2]: expected a size in bytes such as 8, "
                      "64K, 1M or 2GiB, found '1Q'"),
            std::string::npos)
      << sizes_refusal("sizes: [8, 64K, 1Q]");
  EXPECT_NE(sizes_refusal("sizes:\n  - 8\n  - lots\n").find("t.yaml:3:5: benchmarks[0].sizes[1]:"),
            std::string::npos);
  EXPECT_NE(sizes_refusal("sizes: [8, [16]]").find("benchmarks[0].sizes[1]: expected a size"),
            std::string::npos);
  EXPECT_NE(sizes_refusal("sizes: [8, 8:1M:x2]")
                .find("benchmarks[0].sizes[1]: expected one size such as 64K or 1M, found "
                      "'8:1M:x2'"),
            std::string::npos);
  EXPECT_NE(sizes_refusal("sizes: []").find("benchmarks[0].sizes: expected sizes such as"),
            std::string::npos);
  EXPECT_NE(sizes_refusal("sizes: {a: 1}").find("found a map"), std::string::npos);
}

// Through a family's option table and --set: both list-valued size keys (comm's sizes, storage's
// block_sizes) take a YAML list, and a --set list names the element after the override.
TEST(ConfigSizes, EveryFamilysSizeListTakesAYamlList) {
  EXPECT_EQ(
      verdict(parse_yaml("benchmarks:\n  - family: comm\n    sizes: [8, 64K, 1M]\n", "t.yaml"),
              "t.yaml"),
      "");
  EXPECT_EQ(
      verdict(parse_yaml("benchmarks:\n  - family: storage\n    block_sizes: [4K, 1M]\n", "t.yaml"),
              "t.yaml"),
      "");
  EXPECT_NE(
      verdict(parse_yaml("benchmarks:\n  - family: storage\n    block_sizes: [4K, 1Q]\n", "t.yaml"),
              "t.yaml")
          .find("t.yaml:3:23: benchmarks[0].block_sizes[1]: expected a size"),
      std::string::npos);
  YAML::Node root = parse_yaml("benchmarks:\n  - family: comm\n", "t.yaml");
  std::map<std::string, std::string> labels;
  apply_overrides(root, {"comm.sizes=[8, 1Q]"}, labels);
  const auto message =
      verdict(root, "t.yaml", std::make_shared<std::map<std::string, std::string>>(labels));
  EXPECT_NE(message.find("--set comm.sizes[1]: expected a size in bytes"), std::string::npos)
      << message;
}

TEST(NameTable, ParsesNamesAndLists) {
  constexpr NameTable<bool> table{kModes};
  EXPECT_EQ(table.parse("fast"), true);
  EXPECT_FALSE(table.parse("medium").has_value());
  EXPECT_EQ(table.name(false), "slow");
  EXPECT_EQ(table.list(), "slow, fast");
  EXPECT_EQ(table.values(), (std::vector<bool>{false, true}));
}

}  // namespace
}  // namespace preflight
