// The checks people do by hand before a cluster's first run (docs/environment-checks.md): limits,
// GPUs, driver against runtime, NCCL, RDMA devices, clocks, paths, and whether every node is set
// up alike. Each is judged here from facts every rank probed (env_probe.hpp), so that the
// judgement is a pure function the unit tests drive with facts made by hand.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "harness/env/environment.hpp"
#include "harness/env/rdma_devices.hpp"

namespace preflight {

enum class EnvStatus { kPass, kWarn, kFail, kSkipped };

std::string_view status_name(EnvStatus s);

struct EnvCheck {
  std::string check;  // e.g. "memlock limit"
  EnvStatus status = EnvStatus::kPass;
  std::string where;   // "every rank", or the nodes or ranks it concerns
  std::string detail;  // what was found, with the figures
  std::string fix;     // what to do; empty on pass and skipped
};

inline constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();

// A directory a rank must be able to write: the results file's (rank 0 alone) or a benchmark's.
struct PathProbe {
  std::string path;
  std::string purpose;  // "results file", "benchmark storage"
  bool writable = false;
  std::string error = {};  // why not, when not
  std::uint64_t free_bytes = 0;
};

// A shared library something loads at run time, and whether this rank could load it.
struct LibraryProbe {
  std::string soname;
  std::string needed_by;  // "benchmark pace"
  bool loaded = false;
  std::string error = {};  // dlerror(), when not loaded
};

// What one rank found of its own environment.
struct RankFacts {
  RankEnvironment env;
  std::uint64_t memlock_bytes = kUnlimited;  // RLIMIT_MEMLOCK soft limit
  std::uint64_t open_files = kUnlimited;     // RLIMIT_NOFILE soft limit
  std::int64_t hugepages_total = -1;         // HugePages_Total; -1 unknown
  std::vector<RdmaDevice> rdma;
  std::vector<PathProbe> paths;
  std::vector<LibraryProbe> libraries;
  // The ranks the scheduler launched on this rank's host, when it says (Slurm's tasks per node
  // for the step, at this node's index); 0: no scheduler or it does not say.
  int scheduler_tasks_here = 0;
  std::string scheduler_source;     // e.g. "SLURM_STEP_TASKS_PER_NODE=2(x2) at SLURM_NODEID=0"
  bool scheduler_launched = false;  // srun launched the ranks (else: the job's request)
};

// What the campaign asks of the environment (the families' declared needs, summed).
struct EnvNeeds {
  std::uint64_t pinned_bytes = 0;  // page-locked memory a rank needs, largest of the benchmarks
  std::string pinned_by;           // which benchmark needs the most
  bool gpu = false;                // a benchmark needs a GPU on every rank
  std::string gpu_by;
};

// A rank's wall clock against rank 0's (the ping-pong with the shortest round trip).
struct WallClockOffset {
  int rank = 0;
  double offset_s = 0;
  double round_trip_s = 0;
};

// Open files a rank needs: a few per peer (sockets of MPI's and NCCL's TCP paths) and some of
// its own; below this a large job fails to connect.
std::uint64_t open_files_needed(int world_size);

// Every check from every rank's facts (in rank order) and the wall-clock offsets of the ranks
// on other hosts than rank 0's.
std::vector<EnvCheck> judge_environment(const std::vector<RankFacts>& facts, const EnvNeeds& needs,
                                        const std::vector<WallClockOffset>& clocks);

// The groups of checks, each a pure function of the facts (judge_environment runs them all).
std::vector<EnvCheck> judge_gpus(const std::vector<RankFacts>& facts, const EnvNeeds& needs);
std::vector<EnvCheck> judge_limits(const std::vector<RankFacts>& facts, const EnvNeeds& needs);
std::vector<EnvCheck> judge_rdma(const std::vector<RankFacts>& facts);
std::vector<EnvCheck> judge_paths(const std::vector<RankFacts>& facts);
std::vector<EnvCheck> judge_libraries(const std::vector<RankFacts>& facts);
std::vector<EnvCheck> judge_ranks_per_node(const std::vector<RankFacts>& facts);
std::vector<EnvCheck> judge_sameness(const std::vector<RankFacts>& facts);
EnvCheck judge_clocks(const std::vector<RankFacts>& facts,
                      const std::vector<WallClockOffset>& clocks);

// "13.0" -> 13000 (CUDA's integer encoding: major * 1000 + minor * 10); -1 when not a version.
int cuda_version_number(const std::string& text);

// One line per check, as `preflight env --check` prints it.
std::string format_check(const EnvCheck& c);

bool any_failed(const std::vector<EnvCheck>& checks);

}  // namespace preflight
