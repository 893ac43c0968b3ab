#include "harness/config/config_node.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "harness/config/duration.hpp"
#include "preflight/common/sizes.hpp"
#include "preflight/common/usage_error.hpp"

namespace preflight {
namespace {

std::string join_path(const std::string& path, const std::string& key) {
  if (key.empty()) return path.empty() ? std::string("(top level)") : path;
  return path.empty() ? key : path + "." + key;
}

}  // namespace

std::string describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsMap()) return "a map";
  if (node.IsSequence()) return "a list";
  return "'" + node.Scalar() + "'";
}

std::string ConfigNode::label_without_position(const std::string& path) const {
  if (flags_) {
    const auto it = flags_->find(path);
    if (it != flags_->end()) return it->second;
  }
  return fmt::format("--set {}", path);
}

std::string ConfigNode::where(const std::string& key) const {
  const YAML::Node at = !key.empty() && node_.IsMap() && node_[key] ? node_[key] : node_;
  const YAML::Mark mark = at.Mark();
  const std::string path = join_path(path_, key);
  if (mark.is_null() || (flags_ && flags_->count(path))) return label_without_position(path);
  return fmt::format("{}:{}:{}: {}", file_, mark.line + 1, mark.column + 1, path);
}

// Element `index` of the list at `key`: "file:12:5: path.key[2]", or the flag's label with
// "[2]" for a list given on the command line.
std::string ConfigNode::element_where(const std::string& key, std::size_t index) const {
  const std::string path = join_path(path_, key);
  const YAML::Mark mark = node_[key][index].Mark();
  if (mark.is_null() || (flags_ && flags_->count(path)))
    return fmt::format("{}[{}]", label_without_position(path), index);
  return fmt::format("{}:{}:{}: {}[{}]", file_, mark.line + 1, mark.column + 1, path, index);
}

void ConfigNode::fail(const std::string& key, const std::string& expected,
                      const std::string& found) const {
  throw UsageError(fmt::format("{}: expected {}, found {}", where(key), expected, found));
}

void ConfigNode::expect_map(const std::vector<std::string>& allowed) const {
  if (!node_.IsMap())
    fail("", fmt::format("a map with keys {}", fmt::join(allowed, ", ")), describe(node_));
  for (const auto& entry : node_) {
    const std::string key = entry.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    const std::string hint = closest_key(key, allowed);
    const YAML::Mark mark = entry.first.Mark();
    const std::string at = mark.is_null() || (flags_ && flags_->count(join_path(path_, key)))
                               ? label_without_position(join_path(path_, key))
                               : fmt::format("{}:{}:{}: {}", file_, mark.line + 1, mark.column + 1,
                                             join_path(path_, key));
    throw UsageError(fmt::format("{}: unknown key '{}'{}; expected one of {}", at, key,
                                 hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                                 fmt::join(allowed, ", ")));
  }
}

bool ConfigNode::has(const std::string& key) const {
  return node_.IsMap() && node_[key].IsDefined();
}

ConfigNode ConfigNode::child(const std::string& key) const {
  if (!has(key)) fail(key, "this key", "nothing (it is required)");
  return {node_[key], file_, join_path(path_, key), flags_};
}

std::vector<ConfigNode> ConfigNode::sequence(const std::string& key) const {
  std::vector<ConfigNode> out;
  if (!has(key)) return out;
  const YAML::Node list = node_[key];
  if (!list.IsSequence()) fail(key, "a list", describe(list));
  for (std::size_t i = 0; i < list.size(); ++i)
    out.emplace_back(list[i], file_, fmt::format("{}[{}]", join_path(path_, key), i), flags_);
  return out;
}

std::string ConfigNode::scalar(const std::string& key, const std::string& expected) const {
  const YAML::Node v = node_[key];
  if (!v.IsScalar()) fail(key, expected, describe(v));
  return v.Scalar();
}

std::string ConfigNode::string(const std::string& key, const std::string& fallback) const {
  return has(key) ? scalar(key, "a string") : fallback;
}

std::optional<std::string> ConfigNode::optional_string(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return scalar(key, "a string");
}

std::int64_t ConfigNode::integer(const std::string& key, std::int64_t fallback, std::int64_t min,
                                 std::int64_t max) const {
  if (!has(key)) return fallback;
  const std::string expected = fmt::format("a whole number from {} to {}", min, max);
  const std::string text = scalar(key, expected);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
    fail(key, expected, "'" + text + "'");
  return value;
}

double ConfigNode::number(const std::string& key, double fallback, double min, double max) const {
  if (!has(key)) return fallback;
  const std::string expected = fmt::format("a number from {} to {}", min, max);
  const std::string text = scalar(key, expected);
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value) ||
      value < min || value > max)
    fail(key, expected, "'" + text + "'");
  return value;
}

double ConfigNode::duration(const std::string& key, double fallback_s) const {
  if (!has(key)) return fallback_s;
  const std::string text = scalar(key, "a duration such as 0.5s, 200ms or 2m");
  try {
    return parse_duration(text, key);
  } catch (const UsageError&) {
    fail(key, "a duration such as 0.5s, 200ms or 2m", "'" + text + "'");
  }
}

bool ConfigNode::boolean(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  const std::string v = scalar(key, "true or false");
  if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
  if (v == "false" || v == "no" || v == "off" || v == "0") return false;
  fail(key, "true or false", "'" + v + "'");
}

std::vector<int> ConfigNode::integer_list(const std::string& key, int min, int max) const {
  std::vector<int> out;
  if (!has(key)) return out;
  for (const auto& text : string_list(key, {})) {
    int v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < min || v > max)
      fail(key, fmt::format("whole numbers from {} to {}", min, max), "'" + text + "'");
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> ConfigNode::string_list(const std::string& key,
                                                 const std::vector<std::string>& fallback) const {
  if (!has(key)) return fallback;
  const YAML::Node v = node_[key];
  std::vector<std::string> out;
  if (v.IsScalar()) {
    std::string text = v.Scalar();
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t comma = std::min(text.find(',', start), text.size());
      std::string item = text.substr(start, comma - start);
      item.erase(0, item.find_first_not_of(' '));
      item.erase(item.find_last_not_of(' ') + 1);
      out.push_back(item);
      start = comma + 1;
    }
  } else if (v.IsSequence()) {
    for (const auto& item : v) {
      if (!item.IsScalar()) fail(key, "a list of names", "a list holding " + describe(item));
      out.push_back(item.Scalar());
    }
  } else {
    fail(key, "a list of names", describe(v));
  }
  for (const auto& item : out)
    if (item.empty()) fail(key, "a list of names", "an empty name");
  return out;
}

std::vector<std::uint64_t> ConfigNode::sizes(const std::string& key) const {
  const YAML::Node v = node_[key];
  if (v.IsScalar()) return parse_sweep(v.Scalar(), where(key));
  const std::string expected = "sizes such as [8, 64K, 1M], 8,1K,1M or 8:1M:x2";
  if (!v.IsSequence()) fail(key, expected, describe(v));
  if (v.size() == 0) fail(key, expected, "an empty list");
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string at = element_where(key, i);
    const YAML::Node item = v[i];
    if (!item.IsScalar())
      throw UsageError(
          fmt::format("{}: expected a size such as 64K or 1M, found {}", at, describe(item)));
    const std::string& text = item.Scalar();
    if (text.find_first_of(":,") != std::string::npos)
      throw UsageError(fmt::format(
          "{}: expected one size such as 64K or 1M, found '{}' (a list holds one size per "
          "element; write a sweep as one string, e.g. sizes: 8:1M:x2)",
          at, text));
    out.push_back(parse_size(text, at));
  }
  return out;
}

std::map<std::string, std::string> ConfigNode::string_map(const std::string& key) const {
  std::map<std::string, std::string> out;
  if (!has(key)) return out;
  const YAML::Node v = node_[key];
  if (v.IsNull()) return out;
  if (!v.IsMap()) fail(key, "a map of NAME: value", describe(v));
  for (const auto& entry : v) {
    if (!entry.second.IsScalar())
      fail(key, "a plain value for " + entry.first.Scalar(), describe(entry.second));
    out[entry.first.Scalar()] = entry.second.Scalar();
  }
  return out;
}

}  // namespace preflight
