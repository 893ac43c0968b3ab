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

// MPI_SUCCESS, or the error code of the call that failed (MPI_T_ERR_INVALID: not one integer).
int write_cvar(int index, int value) {
  MPI_T_cvar_handle handle;
  int count = 0;
  if (const int e = MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count); e != MPI_SUCCESS)
    return e;
  const int e = count == 1 ? MPI_T_cvar_write(handle, &value) : MPI_T_ERR_INVALID;
  MPI_T_cvar_handle_free(&handle);
  return e;
}

std::string mpi_error(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return fmt::format("error {}", code);
  return fmt::format("{} (error {})", std::string_view(text, static_cast<std::size_t>(length)),
                     code);
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

std::string tuned_not_serving(const CollComponents& c) {
  // tuned's own default where its variable is absent (mpi_algorithms asks only where tuned is).
  const int tuned = c.tuned_priority.value_or(30);
  const auto above = [&](std::optional<int> priority, int fallback) {
    return priority.value_or(fallback) >= tuned;  // a tie: either may serve
  };
  const std::string tail = fmt::format(
      "so forcing coll_tuned's algorithms would change nothing and every forced case would run "
      "the same path (coll_tuned_priority={})",
      tuned);
  // hcoll: enabled by default, priority 90.
  if (c.hcoll_enable && *c.hcoll_enable != 0 && above(c.hcoll_priority, 90))
    return fmt::format(
        "coll/hcoll serves the collectives (coll_hcoll_enable={}, coll_hcoll_priority={}), {}; run "
        "with --mca coll ^hcoll or OMPI_MCA_coll_hcoll_enable=0",
        *c.hcoll_enable, c.hcoll_priority.value_or(90), tail);
  // ucc: serves only where enabled and its priority (default 10) is raised to tuned's or above.
  if (c.ucc_enable && *c.ucc_enable != 0 && above(c.ucc_priority, 10))
    return fmt::format(
        "coll/ucc serves the collectives (coll_ucc_enable={}, coll_ucc_priority={}), {}; run with "
        "--mca coll ^ucc or OMPI_MCA_coll_ucc_enable=0",
        *c.ucc_enable, c.ucc_priority.value_or(10), tail);
  // han: no enable variable; its priority (0 in Open MPI 4.1, 35 in 5.0) decides.
  if (c.han_priority && *c.han_priority >= tuned)
    return fmt::format(
        "coll/han serves the collectives (coll_han_priority={}), {}; run with "
        "OMPI_MCA_coll_han_priority=0 or --mca coll ^han",
        *c.han_priority, tail);
  return {};
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
  if (!on || *on == 0) {
    out.why_not_forced = "coll_tuned_use_dynamic_rules is false: " + fix;
    return out;
  }
  const auto value = [](const char* variable) {
    const auto i = cvar_index(variable);
    return i ? read_cvar(*i) : std::nullopt;
  };
  CollComponents components;
  components.tuned_priority = value("coll_tuned_priority");
  components.hcoll_enable = value("coll_hcoll_enable");
  components.hcoll_priority = value("coll_hcoll_priority");
  components.ucc_enable = value("coll_ucc_enable");
  components.ucc_priority = value("coll_ucc_priority");
  components.han_priority = value("coll_han_priority");
  out.why_not_forced = tuned_not_serving(components);
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
  struct Restore {
    std::string name;
    int index = 0, old = 0;
  };
  std::vector<Restore> restore;
  std::string failed;
  for (const auto& [name, value] : cvars) {
    const auto index = cvar_index(name);
    const auto old = index ? read_cvar(*index) : std::nullopt;
    if (!old) {
      failed = fmt::format("cannot read Open MPI's control variable {}", name);
      break;
    }
    if (const int e = write_cvar(*index, value); e != MPI_SUCCESS) {
      failed = fmt::format("cannot write Open MPI's control variable {}={}: {}", name, value,
                           mpi_error(e));
      break;
    }
    restore.push_back({name, *index, *old});
  }
  MPI_Comm dup = MPI_COMM_NULL;
  if (failed.empty()) MPI_Comm_dup(comm, &dup);
  // Every variable is put back, even after a failure: one left forced would force the
  // algorithm on every communicator made later (other families' too). Every rank takes the
  // same path (same library, same variables), so the ranks throw together.
  for (auto it = restore.rbegin(); it != restore.rend(); ++it)
    if (const int e = write_cvar(it->index, it->old); e != MPI_SUCCESS && failed.empty())
      failed = fmt::format(
          "cannot put Open MPI's control variable {} back to {}: {}; communicators made later "
          "would inherit the forced algorithm",
          it->name, it->old, mpi_error(e));
  if (!failed.empty()) {
    if (dup != MPI_COMM_NULL) MPI_Comm_free(&dup);
    throw std::runtime_error(failed);
  }
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
