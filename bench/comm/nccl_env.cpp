#include "comm/nccl_env.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <string_view>

#include "preflight/common/closest_name.hpp"

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
    Variable{"NCCL_CGA_CLUSTER_SIZE", Form::kCount},
    Variable{"NCCL_NVLS_NCHANNELS", Form::kCount},
    Variable{"NCCL_NCHANNELS_PER_NET_PEER", Form::kCount},
    Variable{"NCCL_CTA_POLICY", Form::kTriState},
    Variable{"NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE", Form::kSwitch},
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
constexpr std::array<std::string_view, 5> kNcclCollectiveNames = {
    "allreduce", "broadcast", "reduce", "allgather", "reducescatter"};
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
    return colon != std::string_view::npos && one_of(kNcclCollectiveNames, part.substr(0, colon)) &&
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

// Read with ncclGetEnv at each communicator's init in NCCL 2.28.9 (src/graph/tuning.cc: ALGO and
// PROTO; src/graph/topo.cc: TOPO_FILE; src/init.cc: NET, TOPO_DUMP_FILE).
constexpr std::array<std::string_view, 5> kPerCommunicator = {
    "NCCL_ALGO", "NCCL_PROTO", "NCCL_TOPO_FILE", "NCCL_NET", "NCCL_TOPO_DUMP_FILE"};

std::string shown(const std::optional<std::string>& v) {
  return v ? fmt::format("'{}'", *v) : std::string("unset");
}

}  // namespace

const std::vector<NcclConfigField>& nccl_config_fields() {
  // src/init.cc envConfigOverride: each of these overrides its field when set, from a value
  // cached at the first communicator (COLLNET_ENABLE is re-read per communicator from 2.28 only).
  static const std::vector<NcclConfigField> fields = {
      {"NCCL_MIN_CTAS", "minCTAs"},
      {"NCCL_MAX_CTAS", "maxCTAs"},
      {"NCCL_CGA_CLUSTER_SIZE", "cgaClusterSize"},
      {"NCCL_NVLS_NCHANNELS", "nvlsCTAs"},
      {"NCCL_NCHANNELS_PER_NET_PEER", "nChannelsPerNetPeer"},
      {"NCCL_CTA_POLICY", "CTAPolicy"},
      {"NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE", "nvlinkCentricSched"},
      {"NCCL_COLLNET_ENABLE", "collnetEnable"},
  };
  return fields;
}

NcclScope nccl_scope(std::string_view name) {
  if (std::find(kPerCommunicator.begin(), kPerCommunicator.end(), name) != kPerCommunicator.end())
    return NcclScope::kPerCommunicator;
  const auto& fields = nccl_config_fields();
  if (std::any_of(fields.begin(), fields.end(),
                  [&](const NcclConfigField& f) { return f.variable == name; }))
    return NcclScope::kConfigField;
  return NcclScope::kPerProcess;
}

std::optional<VariantConflict> per_process_conflict(
    const std::vector<std::map<std::string, std::string>>& variant_envs) {
  std::set<std::string> names;
  for (const auto& env : variant_envs)
    for (const auto& [name, value] : env)
      if (name.rfind("NCCL_", 0) == 0 && nccl_scope(name) == NcclScope::kPerProcess)
        names.insert(name);
  auto value_in = [&](std::size_t v, const std::string& name) -> std::optional<std::string> {
    const auto it = variant_envs[v].find(name);
    if (it == variant_envs[v].end()) return std::nullopt;
    return it->second;
  };
  for (const auto& name : names) {
    const auto first = value_in(0, name);
    for (std::size_t v = 1; v < variant_envs.size(); ++v)
      if (const auto value = value_in(v, name); value != first)
        return VariantConflict{name, v, value, first};
  }
  return std::nullopt;
}

EnvProblem describe_conflict(const VariantConflict& c, const std::vector<std::string>& names) {
  return EnvProblem{
      fmt::format("the same {} in every variant: NCCL reads it once per process, at the first "
                  "communicator, so a later variant would run with the first one's value; set it "
                  "where the job starts, or run one campaign per value",
                  c.variable),
      fmt::format("{} in variant {}, {} in variant {}", shown(c.value), names[c.variant],
                  shown(c.first_value), names[0])};
}

void check_nccl_variants(const std::vector<ConfigNode>& variants) {
  std::vector<std::map<std::string, std::string>> envs;
  std::vector<std::string> names;
  for (const auto& v : variants) {
    envs.push_back(v.string_map("env"));
    names.push_back(fmt::format("'{}'", v.string("name", "")));
  }
  const auto conflict = per_process_conflict(envs);
  if (!conflict) return;
  const EnvProblem problem = describe_conflict(*conflict, names);
  const ConfigNode& variant = variants[conflict->variant];
  if (conflict->value)
    variant.child("env").fail(conflict->variable, problem.expected, problem.found);
  variant.fail("env", problem.expected, problem.found);
}

std::string window_registration_problem(int version) {
  constexpr int kWindowVersion = 22700;  // NCCL_VERSION(2, 27, 0): ncclCommWindowRegister
  if (version >= kWindowVersion) return "";
  return fmt::format(
      "registration window needs NCCL 2.27 or later (ncclCommWindowRegister), this job runs NCCL "
      "{}.{}.{}; use registration local or off",
      version / 10000, version / 100 % 100, version % 100);
}

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
