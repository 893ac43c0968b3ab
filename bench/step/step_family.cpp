#include "step/step_family.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "comm/nccl_env.hpp"
#include "comm/topology.hpp"
#include "dataloader/image_set.hpp"
#include "preflight/common/usage_error.hpp"
#include "preflight/schema/family_names.hpp"
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
  std::string name() const override { return std::string(schema::kStepFamily); }
  std::string summary() const override {
    return "a synthetic training step of a workload (GEMMs, bucketed gradient collectives), "
           "its time and each part's exposed time, for the report's projection";
  }
  std::vector<OptionSpec> options() const override { return step_options().specs(); }

  void configure(const ConfigNode& entry) override {
    StepConfig c;
    step_options().read(entry, c);
    workload_ = resolve_workload(c, entry, 1, 1);
    if (!c.data_dir.empty() && workload_.model.kind != ModelKind::kResNet50)
      entry.fail("data_dir", "no data_dir: the feed loads images, for an image model (resnet50)",
                 "a data feed for a transformer");
    if (!c.data_dir.empty())
      c.data_dir = std::filesystem::absolute(c.data_dir).lexically_normal().string();
    // OpenBLAS has float32 and float64 GEMMs only: said before anything runs, dry runs too.
    if (c.gemm_backend == "openblas" && c.gemm_dtype != "auto" && c.gemm_dtype != "float32")
      entry.fail("gemm_dtype",
                 "auto or float32 with gemm_backend openblas (bfloat16 and float16 "
                 "need cublaslt, on a GPU)",
                 c.gemm_dtype);
    config_ = c;
  }
  nlohmann::json config() const override { return step_options().json(config_); }
  // The step's buckets may run on NCCL: its variables obey NCCL's rules here too.
  void check_variants(const std::vector<ConfigNode>& variants) const override {
    comm::check_nccl_variants(variants);
  }
  FamilyNeeds needs() const override {
    FamilyNeeds n;
    n.gpu = config_.gemm_backend == "cublaslt" || config_.comm_backend == "nccl";
    return n;
  }

  std::vector<std::unique_ptr<Case>> make_cases(const RankContext& ctx) override {
    auto w = workload_;
    w.ranks_per_node = uniform_ranks_per_node(ctx);
    if (config_.target_nodes == 0) w.target_nodes = ctx.node_count;
    StepRun run;
    run.workload = w;
    run.gemm = gemm_backend(ctx);
    run.comm = comm_backend(ctx);
    run.rank = ctx.rank;
    run.gemm_dtype = gemm_dtype(*run.gemm);
    run.threads = run.gemm->on_gpu() ? 1 : telemetry::chosen_threads(ctx, config_.threads);
    if (!config_.data_dir.empty()) plan_feed(ctx, w, run);
    std::vector<std::unique_ptr<Case>> cases;
    for (int nodes : node_counts(ctx)) {
      const auto layout = layout_at(w, nodes);
      if (!layout.problem.empty()) throw UsageError("step: " + layout.problem);
      if (run.data.images)
        require_images(*run.data.images, layout, w.micro_batch, ctx.size,
                       run.data.cache == storage::CacheState::kEvicted);
      auto groups = std::make_shared<comm::GroupSet>(groups_of_nodes(ctx, nodes), ctx, run.comm);
      cases.push_back(std::make_unique<StepCase>(run, std::move(groups), layout));
    }
    return cases;
  }

 private:
  // The feed's images (indexed once, collective) and its pipeline: the dataloader's, batches
  // of micro_batch images cropped to the model's image size.
  void plan_feed(const RankContext& ctx, const Workload& w, StepRun& run) {
    if (!images_ || images_->dir != config_.data_dir)
      images_ =
          std::make_shared<dataloader::ImageSet>(dataloader::index_images(config_.data_dir, ctx));
    auto& d = run.data;
    d.images = images_;
    d.pipeline.engine = config_.data_engine;
    d.pipeline.workers = config_.data_workers;
    d.pipeline.prefetch = config_.data_prefetch;
    d.pipeline.batch_size = w.micro_batch;
    d.pipeline.crop = w.model.image_size;
    d.pipeline.seed = 1;
    d.cache = config_.data_cache == "evicted" ? storage::CacheState::kEvicted
                                              : storage::CacheState::kWarm;
    d.index = ctx.rank;
    d.ranks = ctx.size;
    run.data_dir = config_.data_dir;
    run.data_cache = config_.data_cache;
  }

  // Each rank reads its own share; where images are evicted, the next step's are evicted while
  // this one's are read, so the share must hold two steps' apart.
  static void require_images(const dataloader::ImageSet& set, const StepLayout& l, int micro,
                             int ranks, bool evicted) {
    const std::size_t steps = evicted ? 2 : 1;
    const std::size_t per_rank = steps * static_cast<std::size_t>(l.accumulation * micro);
    if (set.images.size() / static_cast<std::size_t>(ranks) >= per_rank) return;
    throw UsageError(fmt::format(
        "step: data_dir: {} images in {} give each of {} ranks {}, fewer than the {} {} at {} "
        "nodes: use a larger data set (preflight dataset make --images {})",
        set.images.size(), set.dir, ranks, set.images.size() / static_cast<std::size_t>(ranks),
        per_rank, evicted ? "two steps take (data_cache evicted)" : "a step takes", l.nodes,
        per_rank * static_cast<std::size_t>(ranks)));
  }

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

  matmul::DType gemm_dtype(const matmul::GemmBackend& b) const {
    const auto dtype = resolve_gemm_dtype(config_.gemm_dtype, b.on_gpu());
    if (!b.supports(dtype))
      throw UsageError(fmt::format("step: gemm_dtype {}: gemm_backend {} has no {} GEMM; use {}",
                                   config_.gemm_dtype, b.name(), matmul::kDTypeNames.name(dtype),
                                   b.on_gpu() ? "bfloat16" : "float32 (or auto) on a CPU"));
    return dtype;
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
  std::shared_ptr<dataloader::ImageSet> images_;
};

}  // namespace

std::unique_ptr<Family> make_step_family() {
  return std::make_unique<StepFamily>();
}

}  // namespace preflight::step
