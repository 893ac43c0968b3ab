#include "harness/env/env_checks.hpp"
#include "preflight/schema/layout.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

namespace preflight {
namespace {

constexpr std::uint64_t kLowFreeBytes = 1ull << 30;  // below this a results file may not fit
constexpr double kClockWarn_s = 5e-3;  // NTP-synchronised hosts agree to about a millisecond
constexpr double kClockFail_s = 1.0;   // no synchronisation at all

constexpr const char* kLimitsFix =
    "raise it where the job starts: `ulimit -l unlimited` in the job script, `* - memlock "
    "unlimited` in /etc/security/limits.conf (with Slurm: PropagateResourceLimits, or "
    "LimitMEMLOCK=infinity for slurmd), or `--ulimit memlock=-1` for a container";

std::string bytes_text(std::uint64_t b) {
  if (b == kUnlimited) return "unlimited";
  constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  return v == std::floor(v) ? fmt::format("{:.0f} {}", v, units[u])
                            : fmt::format("{:.1f} {}", v, units[u]);
}

std::string count_text(std::uint64_t n) {
  return n == kUnlimited ? "unlimited" : fmt::format("{}", n);
}

// The ranks in `ranks` as a reader names them: "every rank", whole nodes by name, or single
// ranks with their node.
std::string where_of(const std::vector<RankFacts>& facts, const std::vector<int>& ranks) {
  if (ranks.size() == facts.size()) return "every rank";
  std::map<std::string, std::vector<int>> by_node, all_by_node;
  for (const auto& f : facts) all_by_node[f.env.node_name].push_back(static_cast<int>(f.env.rank));
  for (int r : ranks) by_node[facts[static_cast<std::size_t>(r)].env.node_name].push_back(r);
  std::vector<std::string> parts;
  for (const auto& [node, rs] : by_node)
    parts.push_back(
        rs.size() == all_by_node[node].size()
            ? node
            : fmt::format("rank{} {} on {}", rs.size() == 1 ? "" : "s", fmt::join(rs, ","), node));
  return fmt::format("{}", fmt::join(parts, ", "));
}

// Ranks grouped by a text each gives, in order of first rank.
std::vector<std::pair<std::string, std::vector<int>>> group_ranks(
    const std::vector<RankFacts>& facts, const std::function<std::string(const RankFacts&)>& key) {
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (const auto& f : facts) {
    const std::string k = key(f);
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == k; });
    if (it == groups.end()) groups.push_back({k, {}}), it = groups.end() - 1;
    it->second.push_back(static_cast<int>(f.env.rank));
  }
  return groups;
}

// "8 MiB on every rank", or "64 KiB on vm/v1; 8 MiB on vm/v0".
std::string values_where(const std::vector<RankFacts>& facts,
                         const std::vector<std::pair<std::string, std::vector<int>>>& groups) {
  std::vector<std::string> parts;
  for (const auto& [value, ranks] : groups)
    parts.push_back(fmt::format("{} on {}", value, where_of(facts, ranks)));
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::vector<int> ranks_where(const std::vector<RankFacts>& facts,
                             const std::function<bool(const RankFacts&)>& pred) {
  std::vector<int> out;
  for (const auto& f : facts)
    if (pred(f)) out.push_back(static_cast<int>(f.env.rank));
  return out;
}

EnvCheck make(std::string check, EnvStatus status, std::string where, std::string detail,
              std::string fix = "") {
  return {std::move(check), status, std::move(where), std::move(detail), std::move(fix)};
}

// Per physical host (not virtual node): its ranks, in rank order.
std::map<std::string, std::vector<int>> ranks_by_host(const std::vector<RankFacts>& facts) {
  std::map<std::string, std::vector<int>> hosts;
  for (const auto& f : facts) hosts[f.env.host].push_back(static_cast<int>(f.env.rank));
  return hosts;
}

bool has_gpu(const RankFacts& f) {
  return f.env.gpu_count > 0;
}

}  // namespace

std::string_view status_name(EnvStatus s) {
  switch (s) {
    case EnvStatus::kPass:
      return schema::env_check_status::kPass;
    case EnvStatus::kWarn:
      return schema::env_check_status::kWarn;
    case EnvStatus::kFail:
      return schema::env_check_status::kFail;
    case EnvStatus::kSkipped:
      return schema::env_check_status::kSkipped;
  }
  return schema::env_check_status::kFail;
}

std::uint64_t open_files_needed(int world_size) {
  return 256 + 4 * static_cast<std::uint64_t>(std::max(world_size, 1));
}

int cuda_version_number(const std::string& text) {
  int major = 0, minor = 0;
  char dot = 0;
  if (std::sscanf(text.c_str(), "%d%c%d", &major, &dot, &minor) != 3 || dot != '.') return -1;
  return major * 1000 + minor * 10;
}

std::vector<EnvCheck> judge_gpus(const std::vector<RankFacts>& facts, const EnvNeeds& needs) {
  std::vector<EnvCheck> out;
  const auto without = ranks_where(facts, [](const RankFacts& f) { return !has_gpu(f); });
  const std::string note = facts.empty() ? "" : facts.front().env.gpu_note;
  if (without.size() == facts.size()) {
    if (needs.gpu)
      out.push_back(make("GPUs visible", EnvStatus::kFail, "every rank",
                         fmt::format("no GPU ({}); {} needs one on every rank", note, needs.gpu_by),
                         "run on GPU nodes; on a GPU node check the driver with nvidia-smi and "
                         "that the launcher passes the GPUs through (CUDA_VISIBLE_DEVICES, the "
                         "container's --gpus)"));
    else
      out.push_back(make("GPUs visible", EnvStatus::kSkipped, "every rank",
                         fmt::format("no GPU ({}): the GPU checks do not apply", note)));
    return out;
  }
  if (!without.empty())
    out.push_back(make("GPUs visible", EnvStatus::kFail, where_of(facts, without),
                       "no GPU on these ranks while the others have one",
                       "check the driver on those nodes (nvidia-smi) and that the launcher "
                       "gives every rank a GPU"));
  else
    out.push_back(make("GPUs visible", EnvStatus::kPass, "every rank",
                       values_where(facts, group_ranks(facts, [](const RankFacts& f) {
                                      return fmt::format("{} x {}", f.env.gpu_count,
                                                         f.env.gpu_model);
                                    }))));

  const auto old_driver = ranks_where(facts, [](const RankFacts& f) {
    return has_gpu(f) &&
           cuda_version_number(f.env.gpu_driver) < cuda_version_number(f.env.cuda_runtime);
  });
  const auto versions = group_ranks(facts, [](const RankFacts& f) {
    return has_gpu(f) ? fmt::format("driver supports CUDA {}, runtime CUDA {}", f.env.gpu_driver,
                                    f.env.cuda_runtime)
                      : std::string("no GPU");
  });
  if (!old_driver.empty())
    out.push_back(
        make("CUDA driver vs runtime", EnvStatus::kFail, where_of(facts, old_driver),
             values_where(facts, versions),
             fmt::format("install an NVIDIA driver that supports CUDA {} or newer, "
                         "or use a preflight built with the CUDA the driver supports",
                         facts[static_cast<std::size_t>(old_driver.front())].env.cuda_runtime)));
  else
    out.push_back(make("CUDA driver vs runtime", EnvStatus::kPass, "every rank",
                       values_where(facts, versions)));

  const auto no_nccl = ranks_where(
      facts, [](const RankFacts& f) { return has_gpu(f) && f.env.nccl_version.empty(); });
  if (!no_nccl.empty())
    out.push_back(make("NCCL", EnvStatus::kFail, where_of(facts, no_nccl),
                       "NCCL could not be loaded",
                       "install NCCL (libnccl2) or add its folder "
                       "to LD_LIBRARY_PATH"));
  else
    out.push_back(make("NCCL", EnvStatus::kPass, "every rank",
                       values_where(facts, group_ranks(facts, [](const RankFacts& f) {
                                      return "NCCL " + f.env.nccl_version;
                                    }))));

  std::vector<std::string> mixed, crowded, idle;
  std::vector<int> mixed_ranks, crowded_ranks, idle_ranks;
  for (const auto& [host, ranks] : ranks_by_host(facts)) {
    std::set<std::string> models, uuids;
    std::int64_t gpus = 0;
    bool every_uuid = true;  // each rank named the GPU it takes
    for (int r : ranks) {
      const auto& e = facts[static_cast<std::size_t>(r)].env;
      if (e.gpu_count > 0) models.insert(e.gpu_model);
      gpus = std::max(gpus, e.gpu_count);
      every_uuid = every_uuid && !e.gpu_uuid.empty();
      uuids.insert(e.gpu_uuid);
    }
    // Under per-rank binding (srun --gpus-per-task=1, --gpu-bind) each rank sees one GPU: the
    // host's GPUs are the distinct ones its ranks took, not what any one rank sees.
    if (every_uuid && gpus > 0) gpus = std::max(gpus, static_cast<std::int64_t>(uuids.size()));
    const bool shared = every_uuid && uuids.size() < ranks.size();
    if (models.size() > 1) {
      mixed.push_back(fmt::format("{}: {}", host, fmt::join(models, ", ")));
      mixed_ranks.insert(mixed_ranks.end(), ranks.begin(), ranks.end());
    }
    const auto n = static_cast<std::int64_t>(ranks.size());
    if (gpus > 0 && (every_uuid ? shared : n > gpus)) {
      crowded.push_back(fmt::format("{}: {} ranks share {} GPUs", host, n, gpus));
      crowded_ranks.insert(crowded_ranks.end(), ranks.begin(), ranks.end());
    } else if (gpus > 0 && n < gpus) {
      idle.push_back(fmt::format("{}: {} ranks for {} GPUs", host, n, gpus));
      idle_ranks.insert(idle_ranks.end(), ranks.begin(), ranks.end());
    }
  }
  out.push_back(mixed.empty()
                    ? make("same GPU model in a node", EnvStatus::kPass, "every rank",
                           "one model on each host")
                    : make("same GPU model in a node", EnvStatus::kFail,
                           where_of(facts, mixed_ranks), fmt::format("{}", fmt::join(mixed, "; ")),
                           "a mixed node paces every collective at its slowest GPU: "
                           "leave it out or restrict CUDA_VISIBLE_DEVICES to one model"));
  const std::string launch_fix =
      "launch one rank per GPU (srun --ntasks-per-node=GPUS --gpus-per-task=1, or mpirun "
      "-npernode GPUS)";
  if (!crowded.empty())
    out.push_back(make("one rank per GPU", EnvStatus::kFail, where_of(facts, crowded_ranks),
                       fmt::format("{}", fmt::join(crowded, "; ")), launch_fix));
  else if (!idle.empty())
    out.push_back(make("one rank per GPU", EnvStatus::kWarn, where_of(facts, idle_ranks),
                       fmt::format("{}: the others idle", fmt::join(idle, "; ")), launch_fix));
  else
    out.push_back(make("one rank per GPU", EnvStatus::kPass, "every rank", "one rank per GPU"));
  return out;
}

std::vector<EnvCheck> judge_limits(const std::vector<RankFacts>& facts, const EnvNeeds& needs) {
  std::vector<EnvCheck> out;
  const auto memlock =
      group_ranks(facts, [](const RankFacts& f) { return bytes_text(f.memlock_bytes); });
  const auto too_low = ranks_where(facts, [&](const RankFacts& f) {
    return needs.pinned_bytes > 0 && f.memlock_bytes < needs.pinned_bytes;
  });
  const auto pins = ranks_where(facts, [](const RankFacts& f) {
    return f.memlock_bytes != kUnlimited && (has_gpu(f) || !f.rdma.empty());
  });
  if (!too_low.empty())
    out.push_back(make("memlock limit", EnvStatus::kFail, where_of(facts, too_low),
                       fmt::format("{}; {} pins {} per rank", values_where(facts, memlock),
                                   needs.pinned_by, bytes_text(needs.pinned_bytes)),
                       kLimitsFix));
  else if (!pins.empty())
    out.push_back(make("memlock limit", EnvStatus::kWarn, where_of(facts, pins),
                       fmt::format("{}; with a GPU or an RDMA device NCCL and libfabric register "
                                   "buffers that need an unlimited limit",
                                   values_where(facts, memlock)),
                       kLimitsFix));
  else
    out.push_back(make(
        "memlock limit", EnvStatus::kPass, "every rank",
        fmt::format("{}{}", values_where(facts, memlock),
                    needs.pinned_bytes > 0 ? fmt::format("; {} pins {} per rank", needs.pinned_by,
                                                         bytes_text(needs.pinned_bytes))
                                           : std::string("; nothing here pins memory"))));

  const std::uint64_t files = open_files_needed(static_cast<int>(facts.size()));
  const auto nofile =
      group_ranks(facts, [](const RankFacts& f) { return count_text(f.open_files); });
  const auto few = ranks_where(facts, [&](const RankFacts& f) { return f.open_files < files; });
  out.push_back(
      few.empty()
          ? make("open-file limit", EnvStatus::kPass, "every rank",
                 fmt::format("{}; this job needs about {}", values_where(facts, nofile), files))
          : make("open-file limit", EnvStatus::kFail, where_of(facts, few),
                 fmt::format("{}; this job of {} ranks needs about {} (sockets to its peers)",
                             values_where(facts, nofile), facts.size(), files),
                 "raise it: `ulimit -n 65536` in the job script or `* - nofile 65536` in "
                 "/etc/security/limits.conf"));

  const auto efa = ranks_where(facts, [](const RankFacts& f) {
    return std::any_of(f.rdma.begin(), f.rdma.end(),
                       [](const RdmaDevice& d) { return d.driver == "efa"; });
  });
  const auto no_huge = ranks_where(facts, [&](const RankFacts& f) {
    return std::find(efa.begin(), efa.end(), f.env.rank) != efa.end() && f.hugepages_total == 0;
  });
  if (efa.empty())
    out.push_back(make("huge pages", EnvStatus::kSkipped, "every rank",
                       "no EFA device: nothing here needs huge pages"));
  else if (!no_huge.empty())
    out.push_back(make("huge pages", EnvStatus::kWarn, where_of(facts, no_huge),
                       "EFA devices but no huge pages reserved: libfabric's EFA provider uses "
                       "them for its buffers",
                       "reserve huge pages (sysctl vm.nr_hugepages; AWS's EFA installer sets "
                       "it) or set FI_EFA_USE_HUGE_PAGE=0"));
  else
    out.push_back(make("huge pages", EnvStatus::kPass, where_of(facts, efa),
                       "huge pages reserved for the EFA devices"));
  return out;
}

std::vector<EnvCheck> judge_rdma(const std::vector<RankFacts>& facts) {
  std::vector<EnvCheck> out;
  const auto devices = group_ranks(facts, [](const RankFacts& f) {
    std::vector<std::string> names;
    for (const auto& d : f.rdma) names.push_back(fmt::format("{} ({})", d.name, d.driver));
    return names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "));
  });
  const bool several_hosts = ranks_by_host(facts).size() > 1;
  std::vector<std::string> down;
  std::vector<int> down_ranks;
  for (const auto& f : facts)
    for (const auto& d : f.rdma)
      for (const auto& p : d.ports_down) {
        const std::string line = fmt::format("{} {} port {}", f.env.host, d.name, p);
        if (std::find(down.begin(), down.end(), line) == down.end()) down.push_back(line);
        down_ranks.push_back(static_cast<int>(f.env.rank));
      }
  std::sort(down_ranks.begin(), down_ranks.end());
  down_ranks.erase(std::unique(down_ranks.begin(), down_ranks.end()), down_ranks.end());
  if (!down.empty())
    out.push_back(make("RDMA devices", EnvStatus::kFail, where_of(facts, down_ranks),
                       fmt::format("ports not active: {}", fmt::join(down, "; ")),
                       "check the cable and the switch port of each (ibstat, ibv_devinfo)"));
  else if (devices.size() == 1 && devices.front().first == "none")
    out.push_back(several_hosts
                      ? make("RDMA devices", EnvStatus::kWarn, "every rank",
                             "no RDMA device on any node: traffic between nodes goes over TCP",
                             "if the nodes have InfiniBand, RoCE or EFA adapters, load their "
                             "drivers (rdma-core and the adapter's kernel module)")
                      : make("RDMA devices", EnvStatus::kPass, "every rank",
                             "none; one host, so nothing travels between nodes"));
  else
    out.push_back(
        make("RDMA devices", EnvStatus::kPass, "every rank", values_where(facts, devices)));
  return out;
}

std::vector<EnvCheck> judge_paths(const std::vector<RankFacts>& facts) {
  // Per directory and purpose: the ranks that could not write it, and the least free space.
  struct Seen {
    std::vector<int> all, failed;
    std::string error;
    std::uint64_t least_free = kUnlimited;
  };
  std::vector<std::pair<std::string, Seen>> seen;
  for (const auto& f : facts)
    for (const auto& p : f.paths) {
      const std::string key = fmt::format("{} ({})", p.path, p.purpose);
      auto it =
          std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == key; });
      if (it == seen.end()) seen.push_back({key, {}}), it = seen.end() - 1;
      it->second.all.push_back(static_cast<int>(f.env.rank));
      if (!p.writable) {
        it->second.failed.push_back(static_cast<int>(f.env.rank));
        if (it->second.error.empty()) it->second.error = p.error;
      } else {
        it->second.least_free = std::min(it->second.least_free, p.free_bytes);
      }
    }
  std::vector<EnvCheck> out;
  for (const auto& [key, s] : seen) {
    const std::string check = "writable " + key;
    if (!s.failed.empty())
      out.push_back(make(check, EnvStatus::kFail, where_of(facts, s.failed),
                         fmt::format("cannot write there: {}", s.error),
                         "choose a directory the job can write (-o for the results, the "
                         "benchmark's dir for storage), or fix its permissions and mount"));
    else if (s.least_free < kLowFreeBytes)
      out.push_back(make(check, EnvStatus::kWarn, where_of(facts, s.all),
                         fmt::format("writable, but only {} free", bytes_text(s.least_free)),
                         "free some space or choose another directory"));
    else
      out.push_back(make(check, EnvStatus::kPass, where_of(facts, s.all),
                         fmt::format("writable, {} free", bytes_text(s.least_free))));
  }
  return out;
}

std::vector<EnvCheck> judge_libraries(const std::vector<RankFacts>& facts) {
  std::vector<std::pair<std::string, std::pair<std::vector<int>, std::string>>> missing;
  std::vector<std::string> loaded;
  for (const auto& f : facts)
    for (const auto& l : f.libraries) {
      const std::string key = fmt::format("{} (needed by {})", l.soname, l.needed_by);
      if (l.loaded) {
        if (std::find(loaded.begin(), loaded.end(), key) == loaded.end()) loaded.push_back(key);
        continue;
      }
      auto it = std::find_if(missing.begin(), missing.end(),
                             [&](const auto& m) { return m.first == key; });
      if (it == missing.end()) missing.push_back({key, {{}, l.error}}), it = missing.end() - 1;
      it->second.first.push_back(static_cast<int>(f.env.rank));
    }
  std::vector<EnvCheck> out;
  for (const auto& [key, m] : missing)
    out.push_back(make("library " + key, EnvStatus::kFail, where_of(facts, m.first),
                       fmt::format("cannot be loaded: {}", m.second),
                       "install the package that has it, or add its folder to LD_LIBRARY_PATH "
                       "on every node"));
  for (const auto& key : loaded) {
    const bool also_missing =
        std::any_of(missing.begin(), missing.end(), [&](const auto& m) { return m.first == key; });
    if (!also_missing)
      out.push_back(make("library " + key, EnvStatus::kPass, "every rank", "loads"));
  }
  return out;
}

std::vector<EnvCheck> judge_ranks_per_node(const std::vector<RankFacts>& facts) {
  std::vector<std::string> wrong, counts;
  std::vector<int> wrong_ranks;
  std::set<std::size_t> sizes;
  bool launched = true;
  for (const auto& [host, ranks] : ranks_by_host(facts)) {
    const auto& first = facts[static_cast<std::size_t>(ranks.front())];
    counts.push_back(fmt::format("{}: {}", host, ranks.size()));
    sizes.insert(ranks.size());
    if (first.scheduler_tasks_here > 0 &&
        static_cast<int>(ranks.size()) != first.scheduler_tasks_here) {
      wrong.push_back(fmt::format("{}: {} ranks, the scheduler placed {} ({})", host, ranks.size(),
                                  first.scheduler_tasks_here, first.scheduler_source));
      wrong_ranks.insert(wrong_ranks.end(), ranks.begin(), ranks.end());
      launched = launched && first.scheduler_launched;
    }
  }
  // Against the step srun launched, a difference is a launch gone wrong; against the job's
  // request (mpirun inside the allocation) it may be what the user meant (-npernode).
  if (!wrong.empty())
    return {make("ranks per node", launched ? EnvStatus::kFail : EnvStatus::kWarn,
                 where_of(facts, wrong_ranks), fmt::format("{}", fmt::join(wrong, "; ")),
                 "launch the ranks with the scheduler's own launcher (srun --mpi=pmix) and "
                 "--ntasks-per-node equal to the GPUs per node, or make mpirun's -npernode match "
                 "the allocation")};
  if (sizes.size() > 1)
    return {make("ranks per node", EnvStatus::kWarn, "every rank",
                 fmt::format("uneven: {}", fmt::join(counts, ", ")),
                 "launch the same number of ranks on every node; per-node figures compare "
                 "only then")};
  const auto& f = facts.front();
  return {make("ranks per node", EnvStatus::kPass, "every rank",
               fmt::format("{} on each of {} host{}{}", *sizes.begin(), counts.size(),
                           counts.size() == 1 ? "" : "s",
                           f.scheduler_tasks_here > 0
                               ? ", as the scheduler placed them (" + f.scheduler_source + ")"
                               : std::string()))};
}

std::vector<EnvCheck> judge_sameness(const std::vector<RankFacts>& facts) {
  using Field = std::pair<const char*, std::function<std::string(const RankEnvironment&)>>;
  const std::vector<Field> fields = {
      {"kernel", [](const RankEnvironment& e) { return e.kernel; }},
      {"CPU model", [](const RankEnvironment& e) { return e.cpu_model; }},
      {"GPU count", [](const RankEnvironment& e) { return std::to_string(e.gpu_count); }},
      {"GPU model", [](const RankEnvironment& e) { return e.gpu_model; }},
      {"driver", [](const RankEnvironment& e) { return e.gpu_driver; }},
      {"CUDA runtime", [](const RankEnvironment& e) { return e.cuda_runtime; }},
      {"NCCL", [](const RankEnvironment& e) { return e.nccl_version; }},
      {"MPI library", [](const RankEnvironment& e) { return e.mpi_library; }},
  };
  // One value per node: its first rank's.
  std::map<std::int64_t, const RankEnvironment*> nodes;
  for (const auto& f : facts) nodes.emplace(f.env.node, &f.env);
  if (nodes.size() < 2)
    return {make("same configuration on every node", EnvStatus::kPass, "every rank",
                 "one node: nothing to compare")};
  std::vector<std::string> differences;
  std::set<std::string> named;  // nodes that differ
  for (const auto& [label, value_of] : fields) {
    std::map<std::string, std::vector<std::string>> by_value;  // value -> node names
    for (const auto& [node, env] : nodes) by_value[value_of(*env)].push_back(env->node_name);
    if (by_value.size() < 2) continue;
    auto majority = std::max_element(
        by_value.begin(), by_value.end(),
        [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
    const bool has_majority = majority->second.size() * 2 > nodes.size();
    std::vector<std::string> parts;
    for (const auto& [value, names] : by_value) {
      if (has_majority && value == majority->first) continue;
      parts.push_back(fmt::format("{} has {}", fmt::join(names, ", "),
                                  value.empty() ? std::string("none") : "'" + value + "'"));
      named.insert(names.begin(), names.end());
    }
    differences.push_back(
        has_majority ? fmt::format("{}: {} where the other {} node{} have '{}'", label,
                                   fmt::join(parts, "; "), majority->second.size(),
                                   majority->second.size() == 1 ? "" : "s", majority->first)
                     : fmt::format("{}: no majority: {}", label, fmt::join(parts, "; ")));
  }
  if (differences.empty())
    return {make("same configuration on every node", EnvStatus::kPass, "every rank",
                 fmt::format("{} nodes alike in kernel, CPU, GPUs, driver, CUDA, NCCL and MPI",
                             nodes.size()))};
  std::vector<int> ranks;
  for (const auto& f : facts)
    if (named.count(f.env.node_name)) ranks.push_back(static_cast<int>(f.env.rank));
  return {make("same configuration on every node", EnvStatus::kFail, where_of(facts, ranks),
               fmt::format("{}", fmt::join(differences, "; ")),
               "bring the named nodes in line with the others (the same image, driver and "
               "libraries) or leave them out of the job; with no majority preflight cannot tell "
               "which node is the odd one")};
}

EnvCheck judge_clocks(const std::vector<RankFacts>& facts,
                      const std::vector<WallClockOffset>& clocks) {
  if (clocks.empty())
    return make("clock offset between nodes", EnvStatus::kPass, "every rank",
                "every rank is on rank 0's host and reads its clock");
  const auto worst = std::max_element(
      clocks.begin(), clocks.end(),
      [](const auto& a, const auto& b) { return std::abs(a.offset_s) < std::abs(b.offset_s); });
  const auto& host = facts[static_cast<std::size_t>(worst->rank)].env.host;
  const std::string detail = fmt::format(
      "largest wall-clock offset from rank 0's host: {:.3f} ms on {} (measured to within "
      "{:.3f} ms)",
      worst->offset_s * 1e3, host, worst->round_trip_s / 2 * 1e3);
  const double size = std::abs(worst->offset_s) - worst->round_trip_s / 2;
  const std::string fix =
      "synchronise the clocks of every node (chrony or ntpd against the same servers, or the "
      "cloud's time service); preflight's own spans correct for the offset, logs and other tools "
      "do not";
  if (size > kClockFail_s)
    return make("clock offset between nodes", EnvStatus::kFail, host, detail, fix);
  if (size > kClockWarn_s)
    return make("clock offset between nodes", EnvStatus::kWarn, host, detail, fix);
  return make("clock offset between nodes", EnvStatus::kPass, "every rank", detail);
}

std::vector<EnvCheck> judge_environment(const std::vector<RankFacts>& facts, const EnvNeeds& needs,
                                        const std::vector<WallClockOffset>& clocks) {
  std::vector<EnvCheck> out;
  auto add = [&](std::vector<EnvCheck> more) {
    out.insert(out.end(), std::make_move_iterator(more.begin()),
               std::make_move_iterator(more.end()));
  };
  add(judge_gpus(facts, needs));
  add(judge_limits(facts, needs));
  add(judge_rdma(facts));
  out.push_back(judge_clocks(facts, clocks));
  add(judge_paths(facts));
  add(judge_libraries(facts));
  add(judge_ranks_per_node(facts));
  add(judge_sameness(facts));
  return out;
}

std::string format_check(const EnvCheck& c) {
  std::string line =
      fmt::format("[{}] {} ({}): {}", status_name(c.status), c.check, c.where, c.detail);
  if (!c.fix.empty()) line += fmt::format("\n       fix: {}", c.fix);
  return line;
}

bool any_failed(const std::vector<EnvCheck>& checks) {
  return std::any_of(checks.begin(), checks.end(),
                     [](const EnvCheck& c) { return c.status == EnvStatus::kFail; });
}

}  // namespace preflight
