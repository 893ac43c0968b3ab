// The environment checks' probes: what each rank finds of its own limits, devices, paths and
// libraries, gathered to rank 0 and judged there (env_checks.hpp).
#pragma once

#include <string>
#include <vector>

#include "harness/config/campaign.hpp"
#include "harness/env/env_checks.hpp"
#include "harness/run/rank_context.hpp"

namespace preflight {

// A directory to probe, on rank 0 alone (the results file) or on every rank (a benchmark's).
struct WantedPath {
  std::string path;
  std::string purpose;
  bool root_only = false;
};

struct WantedLibrary {
  std::string soname;
  std::string needed_by;
};

struct EnvCheckRequest {
  EnvNeeds needs;
  std::vector<WantedPath> paths;
  std::vector<WantedLibrary> libraries;
  // Test only: "NODE=RELEASE" makes the ranks of node NODE report that kernel, so that a node
  // set up unlike the others can be planted on virtual nodes.
  std::string planted_kernel;
};

// What a campaign needs checked: its benchmarks' declared needs and the results directory
// (empty: none is written).
EnvCheckRequest env_check_request(const Campaign& campaign, const std::string& results_dir);

// This rank's facts, its environment aside (gather_environment brings that); no MPI.
RankFacts probe_rank(const RankContext& ctx, const EnvCheckRequest& request);

// Collective over ctx.world: every rank probes, rank 0 judges; rank 0 gets the checks, the
// others an empty list.
std::vector<EnvCheck> run_env_checks(const RankContext& ctx, const EnvCheckRequest& request);

}  // namespace preflight
