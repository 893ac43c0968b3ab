// Strict reading of a YAML config: every value is checked for its type and range, unknown keys
// are refused, and every error names file:line:column, the key's path, what was expected and
// what was found. Values set with --set carry no position and say so instead.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "preflight/common/closest_name.hpp"

namespace preflight {

class ConfigNode {
 public:
  // Names for values that came from command-line flags (path -> flag), shared by all nodes.
  using FlagNames = std::shared_ptr<const std::map<std::string, std::string>>;

  ConfigNode(YAML::Node node, std::string file, std::string path, FlagNames flags = nullptr)
      : node_(std::move(node)),
        file_(std::move(file)),
        path_(std::move(path)),
        flags_(std::move(flags)) {}

  const YAML::Node& yaml() const { return node_; }
  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }

  // Throws unless this is a map whose keys are all in `allowed`.
  void expect_map(const std::vector<std::string>& allowed) const;
  bool has(const std::string& key) const;
  ConfigNode child(const std::string& key) const;                  // must exist
  std::vector<ConfigNode> sequence(const std::string& key) const;  // a list of nodes, maybe empty

  std::string string(const std::string& key, const std::string& fallback) const;
  std::optional<std::string> optional_string(const std::string& key) const;
  std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t min,
                       std::int64_t max) const;
  double number(const std::string& key, double fallback, double min, double max) const;
  double duration(const std::string& key, double fallback_s) const;  // "200ms", "2m", 0.5
  bool boolean(const std::string& key, bool fallback) const;  // true/false, yes/no, on/off, 1/0
  // Whole numbers from min to max, written as a list or comma-separated; sorted, each once.
  std::vector<int> integer_list(const std::string& key, int min, int max) const;
  // A list of strings, written as a YAML list or as one comma-separated string.
  std::vector<std::string> string_list(const std::string& key,
                                       const std::vector<std::string>& fallback) const;
  std::map<std::string, std::string> string_map(const std::string& key) const;
  // Sizes in bytes (8, 64K, 1M): a YAML list of sizes, each an integer or a size with a unit
  // ([8, 64K, 1M]), or one string: a sweep (8:1M:x2, 0:64K:+8K), a list (8,1K,1M) or one size.
  // A bad element is named by its position (sizes[2]).
  std::vector<std::uint64_t> sizes(const std::string& key) const;

  // "file:12:5: path.key" (1-based), or "--set path.key" for a value from the command line.
  std::string where(const std::string& key = "") const;
  [[noreturn]] void fail(const std::string& key, const std::string& expected,
                         const std::string& found) const;

 private:
  std::string label_without_position(const std::string& path) const;
  std::string element_where(const std::string& key, std::size_t index) const;
  std::string scalar(const std::string& key, const std::string& expected) const;

  YAML::Node node_;
  std::string file_;
  std::string path_;
  FlagNames flags_;
};

// How a YAML value reads in a message: its text, or its kind for maps and lists.
std::string describe(const YAML::Node& node);

}  // namespace preflight
