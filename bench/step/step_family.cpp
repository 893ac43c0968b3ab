#include "step/step_family.hpp"

#include <fmt/format.h>

#include "comm/topology.hpp"
#include "harness/usage_error.hpp"
#include "step/step_case.hpp"
#include "step/step_config.hpp"
#include "telemetry/rank_threads.hpp"

namespace preflight::step {
namespace {

// Groups of `nodes` consecutive nodes, every group at once.
comm::Layout groups_of_nodes(const RankContext& ctx, int nodes) {
  comm::Layout l;
  l.topology = comm::Topology::kLadder;
  l.label = fmt::format("{} nodes", nodes);
  l.nodes = nodes;
  for (int r = 0; r < ctx.size; ++r)
    l.group_of_rank.push_back(ctx.node_of_rank[static_cast<std::size_t>(r)] / nodes);
  return l;
}

int uniform_ranks_per_node(const RankContext& ctx) {
  if (ctx.size % ctx.node_count != 0)
    throw UsageError(fmt::format(
        "step: {} ranks on {} nodes are not the same number on every node: the step needs "
        "whole nodes of equal size (set campaign.ranks_per_node or launch evenly)",
        ctx.size, ctx.node_count));
  return ctx.size / ctx.node_count;
}

class StepFamily final : public Family {
 public:
  std::string name() const override { return "step"; }
  std::string summary() const override {
    return "a synthetic training step of a workload (GEMMs, bucketed gradient collectives), "
           "its time and each part's exposed time, for the report's projection";
  }
  std::vector<OptionSpec> options() const override { return step_options().specs(); }

  void configure(const ConfigNode& entry) override {
    StepConfig c;
    step_options().read(entry, c);
    workload_ = resolve_workload(c, entry, 1, 1);
    config_ = c;
  }
  nlohmann::json config() const override { return step_options().json(config_); }
  FamilyNeeds needs() const override {
    FamilyNeeds n;
    n.gpu = config_.gemm_backend == "cublaslt" || config_.comm_backend == "nccl";
    return n;
  }

  std::vector<std::unique_ptr<Case>> make_cases(const RankContext& ctx) override {
    auto w = workload_;
    w.ranks_per_node = uniform_ranks_per_node(ctx);
    if (config_.target_nodes == 0) w.target_nodes = ctx.node_count;
    StepRun run{w, gemm_backend(ctx), comm_backend(ctx), 1, ctx.rank};
    run.threads = run.gemm->on_gpu() ? 1 : telemetry::chosen_threads(ctx, config_.threads);
    std::vector<std::unique_ptr<Case>> cases;
    for (int nodes : node_counts(ctx)) {
      const auto layout = layout_at(w, nodes);
      if (!layout.problem.empty()) throw UsageError("step: " + layout.problem);
      auto groups = std::make_shared<comm::GroupSet>(groups_of_nodes(ctx, nodes), ctx, run.comm);
      cases.push_back(std::make_unique<StepCase>(run, std::move(groups), layout));
    }
    return cases;
  }

 private:
  std::vector<int> node_counts(const RankContext& ctx) const {
    if (config_.nodes.empty()) return comm::ladder_steps(ctx.node_count);
    for (int n : config_.nodes)
      if (ctx.node_count % n != 0)
        throw UsageError(fmt::format(
            "step: nodes: {} does not divide the run's {} nodes: give node counts that do", n,
            ctx.node_count));
    return config_.nodes;
  }

  std::shared_ptr<matmul::GemmBackend> gemm_backend(const RankContext& ctx) const {
    std::shared_ptr<matmul::GemmBackend> b =
        matmul::make_backend(config_.gemm_backend, ctx.local_rank);
    if (const auto why = b->unavailable(); !why.empty())
      throw UsageError(fmt::format("step: gemm_backend {}: {}; use openblas on a CPU",
                                   config_.gemm_backend, why));
    return b;
  }

  std::shared_ptr<comm::CommBackend> comm_backend(const RankContext& ctx) const {
    std::shared_ptr<comm::CommBackend> b =
        comm::make_backend(config_.comm_backend, comm::BackendSettings{.world = ctx.world});
    if (const auto why = b->unavailable(ctx.world); !why.empty())
      throw UsageError(fmt::format("step: comm_backend {}: {}; use mpi without GPUs",
                                   config_.comm_backend, why));
    return b;
  }

  StepConfig config_;
  Workload workload_;
};

}  // namespace

std::unique_ptr<Family> make_step_family() {
  return std::make_unique<StepFamily>();
}

}  // namespace preflight::step
