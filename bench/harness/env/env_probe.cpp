#include "harness/env/env_probe.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/env/rdma_devices.hpp"
#include "harness/env/scheduler.hpp"
#include "harness/run/clock_sync.hpp"
#include "harness/run/mpi_strings.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;

std::uint64_t soft_limit(int resource) {
  rlimit l{};
  if (getrlimit(resource, &l) != 0 || l.rlim_cur == RLIM_INFINITY) return kUnlimited;
  return static_cast<std::uint64_t>(l.rlim_cur);
}

std::int64_t hugepages_total() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::int64_t value = 0;
  while (in >> key >> value) {
    if (key == "HugePages_Total:") return value;
    in.ignore(256, '\n');
  }
  return -1;
}

// Writes and removes a small file in `dir`: as root, access() says yes to read-only mounts and
// immutable directories; only a write says whether the job can write.
PathProbe probe_path(const WantedPath& wanted) {
  PathProbe p{wanted.path, wanted.purpose};
  std::string name = (fs::path(wanted.path) / ".preflight-env-check-XXXXXX").string();
  const int fd = mkstemp(name.data());
  if (fd < 0) {
    p.error = std::strerror(errno);
    return p;
  }
  const char block[4096] = {};
  const bool wrote = write(fd, block, sizeof block) == static_cast<ssize_t>(sizeof block);
  const int write_errno = errno;
  close(fd);
  unlink(name.c_str());
  if (!wrote) {
    p.error = std::strerror(write_errno);
    return p;
  }
  struct statvfs s {};
  if (statvfs(wanted.path.c_str(), &s) == 0)
    p.free_bytes = static_cast<std::uint64_t>(s.f_bavail) * s.f_frsize;
  p.writable = true;
  return p;
}

LibraryProbe probe_library(const WantedLibrary& wanted) {
  LibraryProbe l{wanted.soname, wanted.needed_by};
  dlerror();
  void* handle = dlopen(wanted.soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    l.error = why ? why : "not found";
    return l;
  }
  dlclose(handle);
  l.loaded = true;
  return l;
}

nlohmann::json facts_json(const RankFacts& f) {
  nlohmann::json rdma = nlohmann::json::array();
  for (const auto& d : f.rdma)
    rdma.push_back({{"name", d.name}, {"driver", d.driver}, {"ports_down", d.ports_down}});
  nlohmann::json paths = nlohmann::json::array();
  for (const auto& p : f.paths)
    paths.push_back({{"path", p.path},
                     {"purpose", p.purpose},
                     {"writable", p.writable},
                     {"error", p.error},
                     {"free_bytes", p.free_bytes}});
  nlohmann::json libs = nlohmann::json::array();
  for (const auto& l : f.libraries)
    libs.push_back({{"soname", l.soname},
                    {"needed_by", l.needed_by},
                    {"loaded", l.loaded},
                    {"error", l.error}});
  return {{"memlock", f.memlock_bytes},
          {"open_files", f.open_files},
          {"hugepages", f.hugepages_total},
          {"rdma", rdma},
          {"paths", paths},
          {"libraries", libs},
          {"tasks_here", f.scheduler_tasks_here},
          {"tasks_source", f.scheduler_source},
          {"tasks_launched", f.scheduler_launched}};
}

RankFacts facts_from_json(const nlohmann::json& j, const RankEnvironment& env) {
  RankFacts f;
  f.env = env;
  j.at("memlock").get_to(f.memlock_bytes);
  j.at("open_files").get_to(f.open_files);
  j.at("hugepages").get_to(f.hugepages_total);
  for (const auto& d : j.at("rdma"))
    f.rdma.push_back({d.at("name"), d.at("driver"), d.at("ports_down"), {}});
  for (const auto& p : j.at("paths"))
    f.paths.push_back(
        {p.at("path"), p.at("purpose"), p.at("writable"), p.at("error"), p.at("free_bytes")});
  for (const auto& l : j.at("libraries"))
    f.libraries.push_back({l.at("soname"), l.at("needed_by"), l.at("loaded"), l.at("error")});
  j.at("tasks_here").get_to(f.scheduler_tasks_here);
  j.at("tasks_source").get_to(f.scheduler_source);
  j.at("tasks_launched").get_to(f.scheduler_launched);
  return f;
}

double realtime_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

EnvCheckRequest env_check_request(const Campaign& campaign, const std::string& results_dir) {
  EnvCheckRequest r;
  if (!results_dir.empty()) r.paths.push_back({results_dir, "results file", true});
  for (const auto& b : campaign.benchmarks) {
    const FamilyNeeds n = b.family->needs();
    const std::string who = "benchmark " + b.name;
    for (const auto& d : n.directories) {
      const bool seen = std::any_of(r.paths.begin(), r.paths.end(), [&](const WantedPath& p) {
        return p.path == d && !p.root_only;
      });
      if (!seen) r.paths.push_back({d, who, false});
    }
    for (const auto& l : n.libraries) r.libraries.push_back({l, who});
    if (n.pinned_bytes > r.needs.pinned_bytes) {
      r.needs.pinned_bytes = n.pinned_bytes;
      r.needs.pinned_by = who;
    }
    if (n.gpu && !r.needs.gpu) {
      r.needs.gpu = true;
      r.needs.gpu_by = who;
    }
  }
  return r;
}

RankFacts probe_rank(const RankContext& ctx, const EnvCheckRequest& request) {
  RankFacts f;
  f.memlock_bytes = soft_limit(RLIMIT_MEMLOCK);
  f.open_files = soft_limit(RLIMIT_NOFILE);
  f.hugepages_total = hugepages_total();
  f.rdma = rdma_devices();
  for (const auto& p : request.paths)
    if (!p.root_only || ctx.is_root()) f.paths.push_back(probe_path(p));
  for (const auto& l : request.libraries) f.libraries.push_back(probe_library(l));
  const auto placement = scheduler_tasks_here(process_environment(), ctx.size);
  f.scheduler_tasks_here = placement.tasks;
  f.scheduler_source = placement.source;
  f.scheduler_launched = placement.launched_by_scheduler;
  return f;
}

std::vector<EnvCheck> run_env_checks(const RankContext& ctx, const EnvCheckRequest& request) {
  const RankFacts mine = probe_rank(ctx, request);
  const auto environments = gather_environment(ctx);
  // The environment travels with gather_environment; the rest as JSON of its own.
  const auto texts = gather_strings(ctx.world, facts_json(mine).dump(), 0);
  // Wall clocks: only ranks on other hosts than rank 0's can differ.
  const auto offsets = measure_clock_offsets(ctx.world, 8, &realtime_seconds);
  if (!ctx.is_root()) return {};
  std::vector<RankFacts> facts;
  for (std::size_t r = 0; r < texts.size(); ++r) {
    RankFacts f = facts_from_json(nlohmann::json::parse(texts[r]), environments[r]);
    if (!request.planted_kernel.empty()) {
      const auto eq = request.planted_kernel.find('=');
      if (eq != std::string::npos &&
          std::to_string(f.env.node) == request.planted_kernel.substr(0, eq))
        f.env.kernel = request.planted_kernel.substr(eq + 1);
    }
    facts.push_back(std::move(f));
  }
  std::vector<WallClockOffset> clocks;
  for (std::size_t r = 1; r < offsets.size(); ++r)
    if (ctx.host_of_rank[r] != ctx.host)
      clocks.push_back({static_cast<int>(r), offsets[r].offset_s, offsets[r].round_trip_s});
  return judge_environment(facts, request.needs, clocks);
}

}  // namespace preflight
