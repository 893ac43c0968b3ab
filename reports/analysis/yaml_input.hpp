// Reading a YAML input of the report (rules, price catalogue): every problem becomes an `Error`
// naming the file, line and column, never a yaml-cpp exception that escapes to main().
#pragma once

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <string>

namespace preflight::report {

// Throws `Error` at `node`'s position in `path`.
template <typename Error>
[[noreturn]] void fail_at(const std::string& path, const YAML::Node& node,
                          const std::string& what) {
  const auto mark = node.Mark();
  throw Error(mark.is_null()
                  ? fmt::format("{}: {}", path, what)
                  : fmt::format("{}:{}:{}: {}", path, mark.line + 1, mark.column + 1, what));
}

// Loads `path` and hands its root to `parse(path, root)`; a file that cannot be read, is not
// YAML, or has a key or value of the wrong shape throws `Error` (pointing at `example`).
template <typename Error, typename Parse>
auto load_yaml(const std::string& path, const std::string& what, const std::string& example,
               Parse parse) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw Error(fmt::format("{}: cannot read the {}", path, what));
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("{}:{}:{}: not valid YAML: {}", path, e.mark.line + 1,
                            e.mark.column + 1, e.msg));
  }
  try {
    return parse(path, root);
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("{}:{}:{}: {} (see {})", path, e.mark.line + 1, e.mark.column + 1,
                            e.msg, example));
  }
}

}  // namespace preflight::report
