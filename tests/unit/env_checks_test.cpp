// The environment checks' judgement, from facts made by hand: each planted problem gives its
// fail (or warn) line naming where, and a clean, alike set of ranks passes everything.
#include "harness/env/env_checks.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "harness/env/scheduler.hpp"

namespace preflight {
namespace {

// `n` ranks, `per_node` to a node, all alike: no GPU, limits high, the results path writable.
std::vector<RankFacts> alike(int n, int per_node, const std::string& host_prefix = "") {
  std::vector<RankFacts> facts(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    auto& f = facts[static_cast<std::size_t>(r)];
    f.env.rank = r;
    f.env.node = r / per_node;
    f.env.host = host_prefix.empty() ? "vm" : host_prefix + std::to_string(r / per_node);
    f.env.node_name = host_prefix.empty() ? "vm/v" + std::to_string(r / per_node) : f.env.host;
    f.env.local_rank = r % per_node;
    f.env.kernel = "Linux 6.1.0";
    f.env.cpu_model = "EPYC";
    f.env.mpi_library = "Open MPI v4.1.4";
    f.env.gpu_note = "driver insufficient";
    f.memlock_bytes = 8 << 20;
    f.open_files = 65536;
    if (r == 0) f.paths.push_back({"/results", "results file", true, "", 100ull << 30});
  }
  return facts;
}

// A copy: the checks are often a temporary.
EnvCheck find(const std::vector<EnvCheck>& checks, const std::string& name) {
  const auto it = std::find_if(checks.begin(), checks.end(),
                               [&](const EnvCheck& c) { return c.check == name; });
  if (it == checks.end()) throw std::runtime_error("no check " + name);
  return *it;
}

void give_gpus(std::vector<RankFacts>& facts, int gpus, const std::string& driver) {
  for (auto& f : facts) {
    f.env.gpu_count = gpus;
    f.env.gpu_model = "NVIDIA H200";
    f.env.gpu_driver = driver;
    f.env.cuda_runtime = "13.0";
    f.env.nccl_version = "2.28.9";
  }
}

TEST(EnvChecks, AlikeRanksWithoutGpuPassAndSayNoGpu) {
  const auto checks = judge_environment(alike(4, 2), {}, {});
  EXPECT_FALSE(any_failed(checks));
  EXPECT_EQ(find(checks, "GPUs visible").status, EnvStatus::kSkipped);
  EXPECT_NE(find(checks, "GPUs visible").detail.find("no GPU"), std::string::npos);
  for (const auto& c : checks) EXPECT_NE(c.status, EnvStatus::kWarn) << format_check(c);
}

TEST(EnvChecks, NoGpuFailsOnlyWhenABenchmarkNeedsOne) {
  EnvNeeds needs;
  needs.gpu = true;
  needs.gpu_by = "benchmark gemm";
  const auto& c = find(judge_gpus(alike(2, 1), needs), "GPUs visible");
  EXPECT_EQ(c.status, EnvStatus::kFail);
  EXPECT_NE(c.detail.find("benchmark gemm"), std::string::npos);
}

TEST(EnvChecks, DriverOlderThanRuntimeFails) {
  auto facts = alike(2, 1, "gpu");
  give_gpus(facts, 1, "13.0");
  facts[1].env.gpu_driver = "12.2";
  const auto& c = find(judge_gpus(facts, {}), "CUDA driver vs runtime");
  EXPECT_EQ(c.status, EnvStatus::kFail);
  EXPECT_EQ(c.where, "gpu1");
  EXPECT_NE(c.fix.find("CUDA 13.0"), std::string::npos);
}

TEST(EnvChecks, TwoRanksOnOneGpuFailAndIdleGpusWarn) {
  auto facts = alike(4, 2, "gpu");
  give_gpus(facts, 1, "13.0");
  EXPECT_EQ(find(judge_gpus(facts, {}), "one rank per GPU").status, EnvStatus::kFail);
  give_gpus(facts, 8, "13.0");
  EXPECT_EQ(find(judge_gpus(facts, {}), "one rank per GPU").status, EnvStatus::kWarn);
  give_gpus(facts, 2, "13.0");
  EXPECT_EQ(find(judge_gpus(facts, {}), "one rank per GPU").status, EnvStatus::kPass);
}

TEST(EnvChecks, MemlockBelowWhatABenchmarkPinsFails) {
  auto facts = alike(2, 1);
  for (auto& f : facts) f.memlock_bytes = 64 << 10;
  EnvNeeds needs;
  needs.pinned_bytes = 16 << 20;
  needs.pinned_by = "benchmark pace";
  const auto& c = find(judge_limits(facts, needs), "memlock limit");
  EXPECT_EQ(c.status, EnvStatus::kFail);
  EXPECT_EQ(c.where, "every rank");
  EXPECT_NE(c.detail.find("64 KiB"), std::string::npos);
  EXPECT_NE(c.detail.find("16 MiB"), std::string::npos);
  EXPECT_NE(c.fix.find("ulimit -l unlimited"), std::string::npos);
  // Enough for the benchmark: a pass.
  for (auto& f : facts) f.memlock_bytes = 32 << 20;
  EXPECT_EQ(find(judge_limits(facts, needs), "memlock limit").status, EnvStatus::kPass);
}

TEST(EnvChecks, LimitedMemlockWithAnRdmaDeviceWarns) {
  auto facts = alike(2, 1, "n");
  for (auto& f : facts) f.rdma.push_back({"mlx5_0", "mlx5_core", {}});
  EXPECT_EQ(find(judge_limits(facts, {}), "memlock limit").status, EnvStatus::kWarn);
  for (auto& f : facts) f.memlock_bytes = kUnlimited;
  EXPECT_EQ(find(judge_limits(facts, {}), "memlock limit").status, EnvStatus::kPass);
}

TEST(EnvChecks, OpenFilesScaleWithTheJob) {
  EXPECT_EQ(open_files_needed(1000), 256u + 4000u);
  auto facts = alike(2, 1);
  facts[1].open_files = 100;
  const auto& c = find(judge_limits(facts, {}), "open-file limit");
  EXPECT_EQ(c.status, EnvStatus::kFail);
  EXPECT_EQ(c.where, "vm/v1");
}

TEST(EnvChecks, PortDownFailsNamingHostDeviceAndPort) {
  auto facts = alike(2, 1, "n");
  for (auto& f : facts) f.rdma.push_back({"mlx5_0", "mlx5_core", {}});
  facts[1].rdma[0].ports_down.push_back("1 (1: DOWN)");
  const auto& c = find(judge_rdma(facts), "RDMA devices");
  EXPECT_EQ(c.status, EnvStatus::kFail);
  EXPECT_NE(c.detail.find("n1 mlx5_0 port 1"), std::string::npos);
  EXPECT_EQ(c.where, "n1");
}

TEST(EnvChecks, NoRdmaBetweenHostsWarnsButOneHostPasses) {
  EXPECT_EQ(find(judge_rdma(alike(2, 1, "n")), "RDMA devices").status, EnvStatus::kWarn);
  EXPECT_EQ(find(judge_rdma(alike(4, 2)), "RDMA devices").status, EnvStatus::kPass);
}

TEST(EnvChecks, UnwritablePathFailsWithItsError) {
  auto facts = alike(2, 1);
  facts[0].paths[0] = {"/ro", "results file", false, "Read-only file system", 0};
  const auto checks = judge_paths(facts);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].status, EnvStatus::kFail);
  EXPECT_EQ(checks[0].check, "writable /ro (results file)");
  EXPECT_NE(checks[0].detail.find("Read-only file system"), std::string::npos);
}

TEST(EnvChecks, LittleFreeSpaceWarns) {
  auto facts = alike(1, 1);
  facts[0].paths[0].free_bytes = 10 << 20;
  EXPECT_EQ(judge_paths(facts)[0].status, EnvStatus::kWarn);
}

TEST(EnvChecks, MissingLibraryFailsNamingWhoNeedsIt) {
  auto facts = alike(2, 1);
  for (auto& f : facts)
    f.libraries.push_back(
        {"libmissing.so.1", "benchmark pace", false, "libmissing.so.1: cannot open"});
  const auto checks = judge_libraries(facts);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].status, EnvStatus::kFail);
  EXPECT_EQ(checks[0].check, "library libmissing.so.1 (needed by benchmark pace)");
  EXPECT_NE(checks[0].fix.find("LD_LIBRARY_PATH"), std::string::npos);
}

TEST(EnvChecks, NodeUnlikeTheMajorityIsNamedAndNoOther) {
  auto facts = alike(6, 2);
  for (auto& f : facts)
    if (f.env.node == 1) f.env.kernel = "Linux 5.10.0";
  const auto checks = judge_sameness(facts);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].status, EnvStatus::kFail);
  EXPECT_EQ(checks[0].where, "vm/v1");
  EXPECT_NE(checks[0].detail.find("kernel: vm/v1 has 'Linux 5.10.0' where the other 2 nodes have "
                                  "'Linux 6.1.0'"),
            std::string::npos)
      << checks[0].detail;
}

TEST(EnvChecks, TwoNodesThatDifferHaveNoMajority) {
  auto facts = alike(4, 2);
  facts[2].env.kernel = facts[3].env.kernel = "Linux 5.10.0";
  const auto checks = judge_sameness(facts);
  EXPECT_EQ(checks[0].status, EnvStatus::kFail);
  EXPECT_NE(checks[0].detail.find("no majority"), std::string::npos);
  EXPECT_EQ(checks[0].where, "every rank");
}

TEST(EnvChecks, RanksPerNodeAgainstTheScheduler) {
  auto facts = alike(3, 3, "n");
  for (auto& f : facts)
    f.scheduler_tasks_here = 2, f.scheduler_source = "SLURM_STEP_TASKS_PER_NODE=2",
    f.scheduler_launched = true;
  const auto checks = judge_ranks_per_node(facts);
  EXPECT_EQ(checks[0].status, EnvStatus::kFail);
  EXPECT_NE(checks[0].detail.find("3 ranks, the scheduler placed 2"), std::string::npos);
  // mpirun inside an allocation: what the job asked for, which -npernode may rightly change.
  for (auto& f : facts) f.scheduler_launched = false;
  EXPECT_EQ(judge_ranks_per_node(facts)[0].status, EnvStatus::kWarn);
  for (auto& f : facts) f.scheduler_tasks_here = 3;
  EXPECT_EQ(judge_ranks_per_node(facts)[0].status, EnvStatus::kPass);
}

TEST(EnvChecks, ClockOffsetsAreJudgedBeyondTheirError) {
  const auto facts = alike(2, 1, "n");
  EXPECT_EQ(judge_clocks(facts, {{1, 0.0004, 0.0002}}).status, EnvStatus::kPass);
  EXPECT_EQ(judge_clocks(facts, {{1, 0.020, 0.0002}}).status, EnvStatus::kWarn);
  EXPECT_EQ(judge_clocks(facts, {{1, -3.0, 0.0002}}).status, EnvStatus::kFail);
  // An offset within its own measurement error is no offset.
  EXPECT_EQ(judge_clocks(facts, {{1, 0.008, 0.012}}).status, EnvStatus::kPass);
  EXPECT_EQ(judge_clocks(facts, {}).status, EnvStatus::kPass);
}

TEST(EnvChecks, CudaVersionNumbers) {
  EXPECT_EQ(cuda_version_number("13.0"), 13000);
  EXPECT_EQ(cuda_version_number("12.4"), 12040);
  EXPECT_EQ(cuda_version_number(""), -1);
  EXPECT_EQ(cuda_version_number("thirteen"), -1);
}

TEST(Scheduler, TasksPerNodeExpand) {
  EXPECT_EQ(expand_tasks_per_node("2(x3),1"), (std::vector<int>{2, 2, 2, 1}));
  EXPECT_EQ(expand_tasks_per_node("8"), (std::vector<int>{8}));
  EXPECT_TRUE(expand_tasks_per_node("2(3)").empty());
  EXPECT_TRUE(expand_tasks_per_node("x").empty());
}

TEST(Scheduler, SlurmFactsAndTasksHere) {
  const std::map<std::string, std::string> vars = {
      {"SLURM_JOB_ID", "42"},           {"SLURM_JOB_NODELIST", "gpu[01-02]"},
      {"SLURM_JOB_PARTITION", "batch"}, {"SLURM_NODEID", "1"},
      {"SLURM_STEP_NUM_TASKS", "12"},   {"SLURM_STEP_TASKS_PER_NODE", "8,4"},
      {"SLURM_TASKS_PER_NODE", "1(x2)"}};
  const EnvLookup env = [&](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
  const auto facts = scheduler_facts(env);
  EXPECT_EQ(facts["kind"], "slurm");
  EXPECT_EQ(facts["job_id"], "42");
  EXPECT_EQ(facts["node_list"], "gpu[01-02]");
  EXPECT_FALSE(facts.contains("cluster"));
  const auto step = scheduler_tasks_here(env, 12);
  EXPECT_EQ(step.tasks, 4);
  EXPECT_EQ(step.source, "SLURM_STEP_TASKS_PER_NODE=8,4 at SLURM_NODEID=1");
  EXPECT_TRUE(step.launched_by_scheduler);
  // 16 ranks but a step of 12 tasks: mpirun launched them; the job's request is the reference.
  const auto job = scheduler_tasks_here(env, 16);
  EXPECT_EQ(job.tasks, 1);
  EXPECT_FALSE(job.launched_by_scheduler);
  EXPECT_TRUE(scheduler_facts([](const char*) -> const char* { return nullptr; }).is_null());
}

}  // namespace
}  // namespace preflight
