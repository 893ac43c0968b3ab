// The sweep's algorithms: Open MPI's read through MPI_T, NCCL's by version, and how each is
// forced (algorithms.hpp).
#include "correctness/algorithms.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace preflight::correctness {
namespace {

constexpr std::string_view kDynamicRulesVariable = "OMPI_MCA_coll_tuned_use_dynamic_rules";
constexpr std::string_view kDynamicRulesCvar = "coll_tuned_use_dynamic_rules";

// MPI_T open for the life of the object (MPI_T counts its initialisations).
class MpiT {
 public:
  MpiT() {
    int provided = 0;
    ok_ = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS;
  }
  ~MpiT() {
    if (ok_) MPI_T_finalize();
  }
  MpiT(const MpiT&) = delete;
  MpiT& operator=(const MpiT&) = delete;
  explicit operator bool() const { return ok_; }

 private:
  bool ok_ = false;
};

std::optional<int> cvar_index(const std::string& name) {
  int index = -1;
  if (MPI_T_cvar_get_index(name.c_str(), &index) != MPI_SUCCESS) return std::nullopt;
  return index;
}

// One integer (or boolean) control variable's value; nullopt where it cannot be read.
std::optional<int> read_cvar(int index) {
  MPI_T_cvar_handle handle;
  int count = 0;
  if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) != MPI_SUCCESS) return std::nullopt;
  int value = 0;
  const bool ok = count == 1 && MPI_T_cvar_read(handle, &value) == MPI_SUCCESS;
  MPI_T_cvar_handle_free(&handle);
  return ok ? std::optional<int>(value) : std::nullopt;
}

bool write_cvar(int index, int value) {
  MPI_T_cvar_handle handle;
  int count = 0;
  if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) != MPI_SUCCESS) return false;
  const bool ok = count == 1 && MPI_T_cvar_write(handle, &value) == MPI_SUCCESS;
  MPI_T_cvar_handle_free(&handle);
  return ok;
}

std::string tuned_cvar(comm::Collective c) {
  using comm::Collective;
  switch (c) {
    case Collective::kAllReduce:
      return "coll_tuned_allreduce_algorithm";
    case Collective::kAllGather:
      return "coll_tuned_allgather_algorithm";
    case Collective::kReduceScatter:
      return "coll_tuned_reduce_scatter_block_algorithm";
    case Collective::kAllToAll:
      return "coll_tuned_alltoall_algorithm";
    case Collective::kBroadcast:
      return "coll_tuned_bcast_algorithm";
    case Collective::kReduce:
      return "coll_tuned_reduce_algorithm";
    default:
      return {};  // send/recv: point to point, no collective algorithm
  }
}

std::string underscored(std::string name) {
  std::replace(name.begin(), name.end(), ' ', '_');
  return name;
}

std::uint64_t largest_power_of_two_at_most(std::uint64_t n) {
  std::uint64_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

}  // namespace

void set_dynamic_rules_default() {
  setenv(std::string(kDynamicRulesVariable).c_str(), "1", 0);
}

Selection select_algorithms(std::string_view text, const std::vector<std::string>& offered) {
  Selection s;
  if (text == "all") {
    s.default_too = true;
    s.chosen = offered;
    return s;
  }
  std::vector<std::string> asked;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    std::string name(text.substr(begin, end - begin));
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (!name.empty()) asked.push_back(name);
    begin = end + 1;
  }
  for (const auto& name : asked) {
    if (name == kDefaultAlgorithm) {
      s.default_too = true;
      continue;
    }
    if (std::find(offered.begin(), offered.end(), name) == offered.end()) s.unknown.push_back(name);
  }
  for (const auto& name : offered)
    if (std::find(asked.begin(), asked.end(), name) != asked.end()) s.chosen.push_back(name);
  return s;
}

MpiAlgorithms mpi_algorithms(comm::Collective c) {
  MpiAlgorithms out;
  const MpiT session;
  const std::string fix =
      fmt::format("run with {}=1 (preflight sets it where it is unset; here it was set false)",
                  kDynamicRulesVariable);
  if (!session) {
    out.why_not_forced = "MPI_T does not start in this MPI library: no algorithm can be forced";
    return out;
  }
  const auto dynamic = cvar_index(std::string(kDynamicRulesCvar));
  if (!dynamic) {
    out.why_not_forced = fmt::format(
        "{} has no coll_tuned_use_dynamic_rules (not Open MPI, or no coll tuned component): "
        "no algorithm can be forced",
        mpi_library());
    return out;
  }
  const std::string cvar = tuned_cvar(c);
  const auto index = cvar.empty() ? std::nullopt : cvar_index(cvar);
  if (!index) return out;  // the collective has no tuned algorithms: only the default runs
  out.cvar = cvar;
  char name[256];
  int name_length = sizeof(name), verbosity = 0, bind = 0, scope = 0;
  MPI_Datatype type;
  MPI_T_enum enumtype = MPI_T_ENUM_NULL;
  if (MPI_T_cvar_get_info(*index, name, &name_length, &verbosity, &type, &enumtype, nullptr,
                          nullptr, &bind, &scope) != MPI_SUCCESS ||
      enumtype == MPI_T_ENUM_NULL) {
    out.why_not_forced = fmt::format("{} has no list of values in MPI_T", cvar);
    return out;
  }
  int items = 0;
  name_length = sizeof(name);
  MPI_T_enum_get_info(enumtype, &items, name, &name_length);
  for (int i = 0; i < items; ++i) {
    int value = 0;
    name_length = sizeof(name);
    if (MPI_T_enum_get_item(enumtype, i, &value, name, &name_length) != MPI_SUCCESS) continue;
    if (value == 0) continue;  // "ignore": tuned's own decision, the sweep's default case
    out.list.push_back({value, underscored(name)});
  }
  out.current = read_cvar(*index).value_or(0);
  const auto on = read_cvar(*dynamic);
  if (!on || *on == 0) out.why_not_forced = "coll_tuned_use_dynamic_rules is false: " + fix;
  return out;
}

std::string mpi_library() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string s(text, static_cast<std::size_t>(length));
  s = s.substr(0, s.find_first_of(",\n"));
  return s;
}

MPI_Comm forced_duplicate(MPI_Comm comm, const std::vector<std::pair<std::string, int>>& cvars) {
  const MpiT session;
  std::vector<std::pair<int, int>> restore;  // index, old value
  std::string failed;
  for (const auto& [name, value] : cvars) {
    const auto index = cvar_index(name);
    const auto old = index ? read_cvar(*index) : std::nullopt;
    if (!old || !write_cvar(*index, value)) {
      failed = name;
      break;
    }
    restore.emplace_back(*index, *old);
  }
  MPI_Comm dup = MPI_COMM_NULL;
  if (failed.empty()) MPI_Comm_dup(comm, &dup);
  for (auto it = restore.rbegin(); it != restore.rend(); ++it) write_cvar(it->first, it->second);
  if (!failed.empty())
    throw std::runtime_error(fmt::format("cannot write Open MPI's control variable {}", failed));
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  return dup;
}

std::optional<std::string> ompi_runs_instead(comm::Collective c, std::string_view algorithm,
                                             int ranks, std::uint64_t count, int element_bytes,
                                             int segment_bytes) {
  const auto n = static_cast<std::uint64_t>(ranks);
  if (c == comm::Collective::kAllReduce) {
    if (algorithm == "ring" && count < n) return "recursive_doubling";
    if (algorithm == "segmented_ring") {
      std::uint64_t segment = count;
      if (segment_bytes >= element_bytes && static_cast<std::uint64_t>(segment_bytes) <
                                                static_cast<std::uint64_t>(element_bytes) * count)
        segment = static_cast<std::uint64_t>(segment_bytes / element_bytes);
      if (count < n * segment) return count < n ? "recursive_doubling" : "ring";
    }
    if (algorithm == "rabenseifner" && count < largest_power_of_two_at_most(n))
      return "basic_linear";
  }
  if (c == comm::Collective::kAllGather) {
    if (algorithm == "recursive_doubling" && largest_power_of_two_at_most(n) != n) return "bruck";
    if (algorithm == "neighbor" && n % 2 != 0) return "ring";
    if (algorithm == "two_proc" && n != 2)
      return "nothing (the call fails with MPI_ERR_UNSUPPORTED_OPERATION: two_proc takes 2 ranks)";
  }
  return std::nullopt;
}

std::vector<std::string> nccl_algorithms(int version) {
  std::vector<std::string> out = {"Ring", "Tree"};
  if (version >= 21400) {
    out.emplace_back("CollnetDirect");
    out.emplace_back("CollnetChain");
  }
  if (version >= 21700) out.emplace_back("NVLS");
  if (version >= 21800) out.emplace_back("NVLSTree");
  if (version >= 22300) out.emplace_back("PAT");
  return out;
}

std::vector<std::string> nccl_protocols(int /*version*/) {
  return {"LL", "LL128", "Simple"};
}

int nccl_version_code(std::string_view library) {
  int major = 0, minor = 0, patch = 0;
  const std::string text(library);
  if (std::sscanf(text.c_str(), "NCCL %d.%d.%d", &major, &minor, &patch) != 3) return 0;
  return major * 10000 + minor * 100 + patch;
}

}  // namespace preflight::correctness
