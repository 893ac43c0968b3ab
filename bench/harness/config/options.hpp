// A family's options, declared once: each is a key (in YAML and after --set), a command-line
// flag, help, a typed destination (a member of the family's config struct) and the values it
// allows. configure() reads the table (ConfigNode: errors at file:line:column, did-you-mean for
// unknown keys), config() writes it back as the JSON recorded in the results, and the family's
// command-line flags and their --help come from it. Nothing about an option is written twice.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/config/config_node.hpp"
#include "harness/config/name_table.hpp"
#include "harness/run/family.hpp"
#include "preflight/common/sizes.hpp"
#include "preflight/common/usage_error.hpp"

namespace preflight {

// The parts every option declares; the typed factories below add its destination.
struct OptionDecl {
  std::string key;
  std::string flags;
  std::string help;  // what it does; the factories append the allowed values and the default
  // The default as a user writes it ("1M", "allreduce", "100ms"), read like a written value;
  // "" leaves the destination's initial value.
  std::string default_value = "";
  std::optional<std::string> shown_default = {};  // in --help; unset: default_value
  std::string record = "=";  // its key in config(): "=" the same key, "" not recorded
};

template <class C>
struct Option {
  OptionSpec spec;
  std::string record;         // key in config(); empty: not recorded
  std::string default_value;  // as a user writes it; empty: the destination's initial value
  std::function<void(const ConfigNode& entry, C& c)> read;  // reads spec.key, which is present
  std::function<nlohmann::json(const C& c)> write;
};

template <class C>
class OptionTable {
 public:
  explicit OptionTable(std::vector<Option<C>> options) : options_(std::move(options)) {}

  const std::vector<Option<C>>& options() const { return options_; }
  std::vector<OptionSpec> specs() const {
    std::vector<OptionSpec> out;
    for (const auto& o : options_) out.push_back(o.spec);
    return out;
  }
  // Every option, from the entry or from its default. The entry's keys are checked elsewhere
  // (read_campaign refuses unknown ones with a did-you-mean).
  void read(const ConfigNode& entry, C& c) const {
    for (const auto& o : options_) try {
        if (entry.has(o.spec.key)) {
          o.read(entry, c);
        } else if (!o.default_value.empty()) {
          YAML::Node holder(YAML::NodeType::Map);
          holder[o.spec.key] = o.default_value;
          o.read(ConfigNode(holder, entry.file(), entry.path()), c);
        }
      } catch (const YAML::Exception& e) {
        throw UsageError(fmt::format("{}: {}", entry.where(o.spec.key), e.what()));
      }
  }
  nlohmann::json json(const C& c) const {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& o : options_)
      if (!o.record.empty()) out[o.record] = o.write(c);
    return out;
  }

 private:
  std::vector<Option<C>> options_;
};

namespace option_detail {

template <class C>
Option<C> make(const OptionDecl& d, std::string help, bool list) {
  const std::string shown = d.shown_default.value_or(d.default_value);
  Option<C> o;
  o.spec = {d.key, d.flags, shown.empty() ? help : fmt::format("{} ({})", help, shown), list};
  o.record = d.record == "=" ? d.key : d.record;
  o.default_value = d.default_value;
  return o;
}

template <class E>
using Choices = std::vector<std::pair<E, std::string>>;

template <class E>
Choices<E> choices_of(const NameTable<E>& table) {
  Choices<E> out;
  for (const auto& [v, n] : table.entries) out.emplace_back(v, std::string(n));
  return out;
}
inline Choices<std::string> choices_of(const std::vector<std::string>& names) {
  Choices<std::string> out;
  for (const auto& n : names) out.emplace_back(n, n);
  return out;
}

template <class E>
std::string choice_list(const Choices<E>& choices, const std::string& all, const char* last) {
  std::string out;
  for (const auto& [v, n] : choices) out += (out.empty() ? "" : ", ") + n;
  if (!all.empty()) out += last + all;
  return out;
}

// Names, each once, in the order first written; `all` (when not empty) stands for every one.
template <class E>
std::vector<E> read_choices(const ConfigNode& entry, const std::string& key, bool single,
                            const Choices<E>& choices, const std::string& all) {
  const auto items =
      single ? std::vector<std::string>{entry.string(key, "")} : entry.string_list(key, {});
  std::vector<E> out;
  auto add = [&](const E& v) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  };
  for (const auto& item : items) {
    if (!all.empty() && item == all) {
      for (const auto& [v, n] : choices) add(v);
      continue;
    }
    const auto it = std::find_if(choices.begin(), choices.end(),
                                 [&](const auto& c) { return c.second == item; });
    if (it == choices.end())
      entry.fail(key, "one of " + choice_list(choices, all, ", "), "'" + item + "'");
    add(it->first);
  }
  return out;
}

template <class E>
std::vector<std::string> names_of(const Choices<E>& choices, const std::vector<E>& values) {
  std::vector<std::string> out;
  for (const E& v : values)
    for (const auto& [c, n] : choices)
      if (c == v) out.push_back(n);
  return out;
}

template <class C, class E>
Option<C> choices(const OptionDecl& d, std::vector<E> C::*field, Choices<E> table,
                  const std::string& all, bool single) {
  auto o = make<C>(d, fmt::format("{}: {}", d.help, choice_list(table, all, ", or ")), !single);
  o.read = [=](const ConfigNode& e, C& c) {
    c.*field = read_choices(e, d.key, single, table, all);
  };
  o.write = [=](const C& c) { return nlohmann::json(names_of(table, c.*field)); };
  return o;
}

}  // namespace option_detail

// Typed options. Each takes the declaration and a pointer to the member it fills.
namespace opt {

// Any text.
template <class C>
Option<C> text(const OptionDecl& d, std::string C::*field) {
  auto o = option_detail::make<C>(d, d.help, false);
  o.read = [=](const ConfigNode& e, C& c) { c.*field = e.string(d.key, ""); };
  o.write = [=](const C& c) { return nlohmann::json(c.*field); };
  return o;
}

// One name of `allowed` (a registry's names: backends, engines).
template <class C>
Option<C> one_of(const OptionDecl& d, std::string C::*field, std::vector<std::string> allowed) {
  const auto table = option_detail::choices_of(allowed);
  auto o = option_detail::make<C>(
      d, fmt::format("{}: {}", d.help, option_detail::choice_list(table, "", "")), false);
  o.read = [=](const ConfigNode& e, C& c) {
    c.*field = option_detail::read_choices(e, d.key, true, table, "").front();
  };
  o.write = [=](const C& c) { return nlohmann::json(c.*field); };
  return o;
}

// A list of names from a name table; `all`, when given, is a name for every value.
template <class C, class E>
Option<C> names(const OptionDecl& d, std::vector<E> C::*field, const NameTable<E>& table,
                const std::string& all = "") {
  return option_detail::choices(d, field, option_detail::choices_of(table), all, false);
}
// A list of names of `allowed` (a registry's names).
template <class C>
Option<C> names(const OptionDecl& d, std::vector<std::string> C::*field,
                std::vector<std::string> allowed) {
  return option_detail::choices(d, field, option_detail::choices_of(allowed), "", false);
}
// One name from a name table, or `all` for every value (placement: out-of-place, in-place or
// both), recorded as the list of values it stands for.
template <class C, class E>
Option<C> choice(const OptionDecl& d, std::vector<E> C::*field, const NameTable<E>& table,
                 const std::string& all) {
  return option_detail::choices(d, field, option_detail::choices_of(table), all, true);
}

template <class C, class T>
Option<C> integer(const OptionDecl& d, T C::*field, std::int64_t min, std::int64_t max) {
  auto o = option_detail::make<C>(d, d.help, false);
  o.read = [=](const ConfigNode& e, C& c) {
    c.*field = static_cast<T>(e.integer(d.key, 0, min, max));
  };
  o.write = [=](const C& c) { return nlohmann::json(c.*field); };
  return o;
}

// Whole numbers, sorted, each once.
template <class C>
Option<C> integers(const OptionDecl& d, std::vector<int> C::*field, int min, int max) {
  auto o = option_detail::make<C>(d, d.help, true);
  o.read = [=](const ConfigNode& e, C& c) { c.*field = e.integer_list(d.key, min, max); };
  o.write = [=](const C& c) { return nlohmann::json(c.*field); };
  return o;
}

template <class C>
Option<C> number(const OptionDecl& d, double C::*field, double min, double max) {
  auto o = option_detail::make<C>(d, d.help, false);
  o.read = [=](const ConfigNode& e, C& c) { c.*field = e.number(d.key, 0, min, max); };
  o.write = [=](const C& c) { return nlohmann::json(c.*field); };
  return o;
}

template <class C>
Option<C> boolean(const OptionDecl& d, bool C::*field) {
  auto o = option_detail::make<C>(d, d.help + ": true or false", false);
  o.read = [=](const ConfigNode& e, C& c) { c.*field = e.boolean(d.key, false); };
  o.write = [=](const C& c) { return nlohmann::json(c.*field); };
  return o;
}

// A size in bytes: 8, 64K, 1M (K/M/G are powers of 1024).
template <class C>
Option<C> size(const OptionDecl& d, std::uint64_t C::*field) {
  auto o = option_detail::make<C>(d, d.help, false);
  o.read = [=](const ConfigNode& e, C& c) {
    c.*field = parse_size(e.string(d.key, ""), e.where(d.key));
  };
  o.write = [=](const C& c) { return nlohmann::json(c.*field); };
  return o;
}

// Sizes: a sweep 8:1M:x2 or 0:64K:+8K, a list 8,1K,1M, or a YAML list [8, 64K, 1M].
template <class C>
Option<C> sizes(const OptionDecl& d, std::vector<std::uint64_t> C::*field) {
  auto o = option_detail::make<C>(d, d.help, false);
  o.read = [=](const ConfigNode& e, C& c) { c.*field = e.sizes(d.key); };
  o.write = [=](const C& c) { return nlohmann::json(c.*field); };
  return o;
}

// A duration in seconds ("200ms", "2m", 0.5) of at least min_s; `expected` says what is
// allowed when it is shorter.
template <class C>
Option<C> duration(const OptionDecl& d, double C::*field, double min_s,
                   const std::string& expected) {
  auto o = option_detail::make<C>(d, d.help, false);
  o.read = [=](const ConfigNode& e, C& c) {
    c.*field = e.duration(d.key, 0);
    if (!(c.*field >= min_s)) e.fail(d.key, expected, "'" + e.string(d.key, "") + "'");
  };
  o.write = [=](const C& c) { return nlohmann::json(c.*field); };
  return o;
}

}  // namespace opt
}  // namespace preflight
