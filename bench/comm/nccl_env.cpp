#include "comm/nccl_env.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "harness/closest_name.hpp"

namespace preflight::comm {
namespace {

// The forms NCCL's variables take (NCCL's environment variable documentation).
enum class Form {
  kAlgorithms,  // NCCL_ALGO: [^]name[,name...], or per collective "allreduce:tree;broadcast:ring"
  kProtocols,   // NCCL_PROTO: the same with protocol names
  kSwitch,      // 0 or 1
  kTriState,    // 0, 1 or 2
  kCount,       // a whole number >= 0
  kInteger,     // a whole number, maybe negative
  kLevel,       // a path level name (LOC, NVL, PIX, PXB, PHB, SYS) or a number
  kDebug,       // VERSION, WARN, INFO, TRACE, ABORT
  kText,        // anything not empty (interface names, HCA lists, paths)
};

struct Variable {
  std::string_view name;
  Form form;
};

constexpr std::array kVariables = {
    Variable{"NCCL_ALGO", Form::kAlgorithms},
    Variable{"NCCL_PROTO", Form::kProtocols},
    Variable{"NCCL_NVLS_ENABLE", Form::kTriState},
    Variable{"NCCL_NVLSTREE_MAX_CHUNKSIZE", Form::kCount},
    Variable{"NCCL_COLLNET_ENABLE", Form::kSwitch},
    Variable{"NCCL_IB_DISABLE", Form::kSwitch},
    Variable{"NCCL_P2P_DISABLE", Form::kSwitch},
    Variable{"NCCL_SHM_DISABLE", Form::kSwitch},
    Variable{"NCCL_NET_GDR_READ", Form::kSwitch},
    Variable{"NCCL_CUMEM_ENABLE", Form::kSwitch},
    Variable{"NCCL_LOCAL_REGISTER", Form::kSwitch},
    Variable{"NCCL_GRAPH_REGISTER", Form::kSwitch},
    Variable{"NCCL_PXN_DISABLE", Form::kSwitch},
    Variable{"NCCL_CROSS_NIC", Form::kTriState},
    Variable{"NCCL_IB_PCI_RELAXED_ORDERING", Form::kTriState},
    Variable{"NCCL_MIN_NCHANNELS", Form::kCount},
    Variable{"NCCL_MAX_NCHANNELS", Form::kCount},
    Variable{"NCCL_MIN_CTAS", Form::kCount},
    Variable{"NCCL_MAX_CTAS", Form::kCount},
    Variable{"NCCL_NTHREADS", Form::kCount},
    Variable{"NCCL_BUFFSIZE", Form::kCount},
    Variable{"NCCL_IB_QPS_PER_CONNECTION", Form::kCount},
    Variable{"NCCL_IB_TIMEOUT", Form::kCount},
    Variable{"NCCL_IB_RETRY_CNT", Form::kCount},
    Variable{"NCCL_IB_SL", Form::kCount},
    Variable{"NCCL_IB_TC", Form::kCount},
    Variable{"NCCL_NSOCKS_PERTHREAD", Form::kCount},
    Variable{"NCCL_SOCKET_NTHREADS", Form::kCount},
    Variable{"NCCL_IB_GID_INDEX", Form::kInteger},
    Variable{"NCCL_P2P_LEVEL", Form::kLevel},
    Variable{"NCCL_NET_GDR_LEVEL", Form::kLevel},
    Variable{"NCCL_DEBUG", Form::kDebug},
    Variable{"NCCL_IB_HCA", Form::kText},
    Variable{"NCCL_SOCKET_IFNAME", Form::kText},
    Variable{"NCCL_DEBUG_SUBSYS", Form::kText},
    Variable{"NCCL_DEBUG_FILE", Form::kText},
    Variable{"NCCL_NET", Form::kText},
    Variable{"NCCL_NET_PLUGIN", Form::kText},
    Variable{"NCCL_TUNER_PLUGIN", Form::kText},
    Variable{"NCCL_TOPO_FILE", Form::kText},
    Variable{"NCCL_TOPO_DUMP_FILE", Form::kText},
};

constexpr std::array<std::string_view, 7> kAlgorithms = {
    "ring", "tree", "collnetdirect", "collnetchain", "nvls", "nvlstree", "pat"};
constexpr std::array<std::string_view, 3> kProtocols = {"ll", "ll128", "simple"};
constexpr std::array<std::string_view, 5> kCollectives = {"allreduce", "broadcast", "reduce",
                                                          "allgather", "reducescatter"};
constexpr std::array<std::string_view, 6> kLevels = {"loc", "nvl", "pix", "pxb", "phb", "sys"};
constexpr std::array<std::string_view, 5> kDebugLevels = {"version", "warn", "info", "trace",
                                                          "abort"};

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return std::string(s.substr(first, s.find_last_not_of(" \t") - first + 1));
}

template <std::size_t N>
bool one_of(const std::array<std::string_view, N>& names, std::string_view word) {
  const std::string w = lower(trimmed(word));
  return std::find(names.begin(), names.end(), w) != names.end();
}

std::vector<std::string_view> split(std::string_view s, char by) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    const auto end = s.find(by, start);
    parts.push_back(s.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

bool whole_number(std::string_view s, bool negative_ok) {
  if (!s.empty() && s.front() == '-' && negative_ok) s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "[^]a,b" of names, each from `names`.
template <std::size_t N>
bool name_list(const std::array<std::string_view, N>& names, std::string_view list) {
  std::string l = trimmed(list);
  if (!l.empty() && l.front() == '^') l.erase(0, 1);
  if (l.empty()) return false;
  const auto parts = split(l, ',');
  return std::all_of(parts.begin(), parts.end(), [&](auto p) { return one_of(names, p); });
}

// A name list, or per collective: "allreduce:tree,ring;broadcast:^ring".
template <std::size_t N>
bool selection(const std::array<std::string_view, N>& names, std::string_view value) {
  if (value.find(':') == std::string_view::npos) return name_list(names, value);
  const auto parts = split(value, ';');
  return std::all_of(parts.begin(), parts.end(), [&](std::string_view part) {
    const auto colon = part.find(':');
    return colon != std::string_view::npos && one_of(kCollectives, part.substr(0, colon)) &&
           name_list(names, part.substr(colon + 1));
  });
}

template <std::size_t N>
std::string listed(const std::array<std::string_view, N>& names) {
  return fmt::format("{}", fmt::join(names, ", "));
}

std::optional<std::string> expected_form(Form form, const std::string& value) {
  switch (form) {
    case Form::kAlgorithms:
      if (selection(kAlgorithms, value)) return std::nullopt;
      return fmt::format(
          "algorithms from {} (any case), comma-separated, ^ to exclude, or per collective as "
          "allreduce:tree;broadcast:ring",
          listed(kAlgorithms));
    case Form::kProtocols:
      if (selection(kProtocols, value)) return std::nullopt;
      return fmt::format("protocols from {} (any case), comma-separated, ^ to exclude",
                         listed(kProtocols));
    case Form::kSwitch:
      if (value == "0" || value == "1") return std::nullopt;
      return "0 or 1";
    case Form::kTriState:
      if (value == "0" || value == "1" || value == "2") return std::nullopt;
      return "0, 1 or 2";
    case Form::kCount:
      if (whole_number(value, false)) return std::nullopt;
      return "a whole number (0 or more)";
    case Form::kInteger:
      if (whole_number(value, true)) return std::nullopt;
      return "a whole number";
    case Form::kLevel:
      if (one_of(kLevels, value) || whole_number(value, false)) return std::nullopt;
      return fmt::format("one of {} (any case), or a number", listed(kLevels));
    case Form::kDebug:
      if (one_of(kDebugLevels, value)) return std::nullopt;
      return fmt::format("one of {} (any case)", listed(kDebugLevels));
    case Form::kText:
      if (!trimmed(value).empty()) return std::nullopt;
      return "a value (not empty)";
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> known_nccl_variables() {
  std::vector<std::string> names;
  for (const auto& v : kVariables) names.emplace_back(v.name);
  return names;
}

std::optional<EnvProblem> check_nccl_variable(const std::string& name, const std::string& value) {
  const auto known = std::find_if(kVariables.begin(), kVariables.end(),
                                  [&](const Variable& v) { return v.name == name; });
  if (known == kVariables.end()) {
    const auto names = known_nccl_variables();
    const auto close = std::find_if(names.begin(), names.end(), [&](const std::string& n) {
      return edit_distance(n, name) <= 2;
    });
    if (close == names.end()) return std::nullopt;  // not ours to judge: NCCL reads it as written
    return EnvProblem{fmt::format("a known NCCL variable (did you mean {}?)", *close), name};
  }
  if (auto expected = expected_form(known->form, value))
    return EnvProblem{fmt::format("{} for {}", *expected, name), "'" + value + "'"};
  return std::nullopt;
}

}  // namespace preflight::comm
