#include "harness/config/campaign.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "preflight/common/usage_error.hpp"

namespace preflight {
namespace {

const std::vector<std::string> kTopKeys = {kCampaignSection, kSoakSection, "timing", "variants",
                                           "benchmarks"};
const std::vector<std::string> kSoakKeys = {kSoakDurationKey, "textfile", kSoakSamplesKey};
const std::vector<std::string> kCampaignKeys = {"name", kTimeBudgetKey, "ranks_per_node",
                                                "repetitions"};
const std::vector<std::string> kVariantKeys = {"name", "env"};
const std::vector<std::string> kEntryKeys = {"name", "family", "timing"};

nlohmann::json yaml_to_json(const YAML::Node& node) {
  if (node.IsMap()) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& e : node) j[e.first.Scalar()] = yaml_to_json(e.second);
    return j;
  }
  if (node.IsSequence()) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& e : node) j.push_back(yaml_to_json(e));
    return j;
  }
  if (node.IsScalar()) return node.Scalar();
  return nullptr;
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t dot = std::min(path.find('.', start), path.size());
    parts.push_back(path.substr(start, dot - start));
    start = dot + 1;
  }
  return parts;
}

void set_path(YAML::Node node, const std::vector<std::string>& parts, std::size_t from,
              const YAML::Node& value) {
  // yaml-cpp: `node = child` would overwrite node's content with the child's; reset() rebinds.
  for (std::size_t i = from; i + 1 < parts.size(); ++i) {
    if (!node[parts[i]] || !node[parts[i]].IsMap())
      node[parts[i]] = YAML::Node(YAML::NodeType::Map);
    YAML::Node child = node[parts[i]];
    node.reset(child);
  }
  node[parts.back()] = value;
}

// The value of an override, parsed as YAML so lists ([a, b]) work; positions dropped so
// messages point at --set instead of a line.
YAML::Node override_value(const std::string& text, const std::string& path) {
  try {
    return YAML::Clone(YAML::Load(text));
  } catch (const YAML::Exception& e) {
    throw UsageError(fmt::format("--set {}: cannot read '{}' ({})", path, text, e.msg));
  }
}

std::vector<Variant> read_variants(const ConfigNode& root) {
  std::vector<Variant> variants;
  std::set<std::string> names;
  for (const auto& v : root.sequence("variants")) {
    v.expect_map(kVariantKeys);
    Variant variant{v.string("name", ""), v.string_map("env")};
    if (variant.name.empty()) v.fail("name", "a name for the variant", "nothing");
    if (!names.insert(variant.name).second)
      v.fail("name", "a name no other variant has", "'" + variant.name + "' again");
    variants.push_back(std::move(variant));
  }
  if (variants.empty()) variants.push_back({"default", {}});
  return variants;
}

// The soak section: a duration to spend in rounds of the whole campaign, which are then the
// campaign's repetitions (so a soak sets no repetitions of its own).
void read_soak(const ConfigNode& root, Campaign& c) {
  const ConfigNode soak = root.child(kSoakSection);
  soak.expect_map(kSoakKeys);
  if (!soak.has(kSoakDurationKey))
    soak.fail(kSoakDurationKey, "a duration such as 10m or 24h (how long to repeat the campaign)",
              "nothing");
  c.soak_s = soak.duration(kSoakDurationKey, 0);
  if (c.soak_s <= 0 || c.soak_s > 365.0 * 24 * 3600)
    soak.fail(kSoakDurationKey, "a duration above 0 and at most a year, such as 10m or 24h",
              soak.string(kSoakDurationKey, ""));
  c.soak_textfile = soak.string("textfile", "");
  const std::string samples = soak.string(kSoakSamplesKey, "summary");
  if (samples != "summary" && samples != "full")
    soak.fail(kSoakSamplesKey,
              "summary (each point's per-rank and per-iteration figures the report reads) or full "
              "(every rank's time of every iteration)",
              "'" + samples + "'");
  c.soak_summary_points = samples == "summary";
  if (c.repetitions > 1)
    root.child(kCampaignSection)
        .fail("repetitions",
              "no repetitions with a soak (its rounds are the repetitions; leave repetitions out)",
              std::to_string(c.repetitions));
}

}  // namespace

YAML::Node parse_yaml(const std::string& text, const std::string& file) {
  try {
    YAML::Node root = YAML::Load(text);
    if (!root.IsDefined() || root.IsNull())
      throw UsageError(fmt::format("{}: the config is empty", file));
    return root;
  } catch (const YAML::Exception& e) {
    throw UsageError(fmt::format("{}:{}:{}: not valid YAML: {}", file, e.mark.line + 1,
                                 e.mark.column + 1, e.msg));
  }
}

void apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides,
                     std::map<std::string, std::string>& labels) {
  for (const auto& o : overrides) {
    const auto equals = o.find('=');
    if (equals == std::string::npos || equals == 0)
      throw UsageError(
          fmt::format("--set: expected PATH=VALUE such as comm.sizes=8:1M:x4, found '{}'", o));
    const std::string path = o.substr(0, equals);
    const auto parts = split_path(path);
    if (parts.size() < 2 ||
        std::any_of(parts.begin(), parts.end(), [](const auto& p) { return p.empty(); }))
      throw UsageError(
          fmt::format("--set {}: expected TARGET.KEY, where TARGET is campaign, soak, timing, or "
                      "a benchmark's name or family",
                      path));
    const YAML::Node value = override_value(o.substr(equals + 1), path);
    if (parts[0] == kCampaignSection || parts[0] == kSoakSection || parts[0] == "timing") {
      if (!root.IsMap()) throw UsageError("--set: the config is not a map");
      set_path(root, parts, 0, value);
      labels[path] = "--set " + path;
      continue;
    }
    bool matched = false;
    if (root.IsMap() && root["benchmarks"].IsSequence())
      for (std::size_t i = 0; i < root["benchmarks"].size(); ++i) {
        YAML::Node entry = root["benchmarks"][i];
        if (!entry.IsMap()) continue;
        const bool by_name = entry["name"] && entry["name"].Scalar() == parts[0];
        const bool by_family = entry["family"] && entry["family"].Scalar() == parts[0];
        if (!by_name && !by_family) continue;
        set_path(entry, parts, 1, value);
        labels[fmt::format("benchmarks[{}].{}", i, path.substr(parts[0].size() + 1))] =
            "--set " + path;
        matched = true;
      }
    if (!matched)
      throw UsageError(
          fmt::format("--set {}: no benchmark is named '{}' or of family '{}'; expected campaign, "
                      "soak, timing, or a benchmark's name or family",
                      path, parts[0], parts[0]));
  }
}

Campaign read_campaign(const YAML::Node& yaml, const std::string& file, FamilyMaker make_family,
                       const std::vector<std::string>& family_names, ConfigNode::FlagNames flags) {
  const ConfigNode root(yaml, file, "", flags);
  root.expect_map(kTopKeys);
  Campaign c;
  if (root.has(kCampaignSection)) {
    const ConfigNode meta = root.child(kCampaignSection);
    meta.expect_map(kCampaignKeys);
    c.name = meta.string("name", "");
    c.time_budget_s = meta.duration(kTimeBudgetKey, 0);
    if (c.time_budget_s > 365.0 * 24 * 3600)
      meta.fail(kTimeBudgetKey, "at most a year (or none)", meta.string(kTimeBudgetKey, ""));
    c.ranks_per_node = static_cast<int>(meta.integer("ranks_per_node", 0, 0, 1 << 20));
    c.repetitions = static_cast<int>(meta.integer("repetitions", 1, 1, 10000));
  }
  if (root.has(kSoakSection)) read_soak(root, c);
  const TimingOptions defaults =
      root.has("timing") ? read_timing(root.child("timing"), TimingOptions{}) : TimingOptions{};
  c.variants = read_variants(root);
  const auto entries = root.sequence("benchmarks");
  if (entries.empty())
    root.fail("benchmarks", "a list of at least one benchmark", describe(yaml["benchmarks"]));
  std::set<std::string> names;
  for (const auto& entry : entries) {
    if (!entry.yaml().IsMap())
      entry.fail("", "a benchmark (a map with name, family, ...)", describe(entry.yaml()));
    const std::string family_name = entry.string("family", "");
    auto family = make_family(family_name);
    if (!family)
      entry.fail("family", fmt::format("one of {}", fmt::join(family_names, ", ")),
                 family_name.empty() ? std::string("nothing") : "'" + family_name + "'");
    std::vector<std::string> allowed = kEntryKeys;
    for (const auto& o : family->options()) allowed.push_back(o.key);
    entry.expect_map(allowed);
    Benchmark b;
    b.name = entry.string("name", family_name);
    if (!names.insert(b.name).second)
      entry.fail("name", "a name no other benchmark has (it labels results)",
                 "'" + b.name + "' again");
    b.timing = entry.has("timing") ? read_timing(entry.child("timing"), defaults) : defaults;
    family->configure(entry);
    b.family = std::move(family);
    c.benchmarks.push_back(std::move(b));
  }
  // A variant's environment is checked by the families that read it, so that a misspelt
  // library setting fails here, before anything runs, not in the library hours later.
  for (const auto& v : root.sequence("variants"))
    if (v.has("env"))
      for (const auto& b : c.benchmarks) b.family->check_environment(v.child("env"));
  if (const auto variants = root.sequence("variants"); variants.size() > 1)
    for (const auto& b : c.benchmarks) b.family->check_variants(variants);
  c.effective = yaml_to_json(yaml);
  nlohmann::json resolved = nlohmann::json::array();
  for (const auto& b : c.benchmarks)
    resolved.push_back(
        {{"name", b.name}, {"family", b.family->name()}, {"config", b.family->config()}});
  c.effective["resolved"] = resolved;
  return c;
}

}  // namespace preflight
