#include "checkpoint/checkpoint_family.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>

#include "checkpoint/model_presets.hpp"
#include "checkpoint/save_case.hpp"
#include "harness/config/options.hpp"
#include "preflight/common/sizes.hpp"
#include "preflight/common/usage_error.hpp"
#include "preflight/schema/checkpoint.hpp"
#include "preflight/schema/family_names.hpp"
#include "storage/cache_state.hpp"
#include "storage/dataset.hpp"
#include "storage/dataset_options.hpp"
#include "storage/engine.hpp"
#include "storage/storage_case.hpp"

namespace preflight::checkpoint {
namespace {

using storage::CacheState;

// Per-node mean time between failures when the config gives none: Llama 3 405B's pre-training
// saw 419 unexpected interruptions in 54 days on 16,384 GPUs, 2,048 nodes of 8 (Dubey et al.,
// "The Llama 3 Herd of Models", 2024, section 3.3.4): 54 x 24 h x 2048 / 419.
constexpr double kDefaultNodeMtbfS = 54.0 * 24 * 3600 * 2048 / 419;
constexpr const char* kDefaultMtbfSource =
    "default: 54 days x 24 h x 2048 nodes / 419 unexpected interruptions (Llama 3 405B "
    "pre-training, Dubey et al. 2024, sec. 3.3.4)";

struct CheckpointConfig {
  std::string dir;
  std::string dataset_id;
  std::vector<std::string> engines;
  std::vector<bool> shared;
  std::vector<bool> durable;
  std::vector<std::string> phases;
  std::vector<CacheState> restore;
  std::vector<std::uint64_t> block_sizes;
  std::uint64_t size = 0;  // bytes per rank; 0: from the model
  std::string model;
  double parameters = 0;
  double bytes_per_param = kDefaultBytesPerParam;
  int tensor_parallel = 1, pipeline_parallel = 1, data_parallel = 0;  // 0: ranks / (tp x pp)
  std::vector<int> queue_depths;
  std::vector<int> scale_ranks_per_node;
  bool node_ladder = false;
  bool verify = true;
  bool keep = false;
  double node_mtbf_s = 0;  // 0: the default above
  int job_nodes = 0;       // 0: the run's nodes
  double planned_interval_s = 0;
};

constexpr std::array kDurability = {
    std::pair{true, std::string_view("durable")},
    std::pair{false, std::string_view("handed-off")},
};

std::vector<std::string> model_names() {
  std::vector<std::string> out;
  for (const auto& p : model_presets()) out.emplace_back(p.name);
  return out;
}

std::vector<std::string> write_engines() {
  std::vector<std::string> out;
  for (const auto& e : storage::engine_names())
    if (storage::engine_supports_write(e)) out.push_back(e);
  return out;
}

const OptionTable<CheckpointConfig>& options_table() {
  using C = CheckpointConfig;
  static const OptionTable<C> table({
      storage::dataset_opt::dir(&C::dir,
                                "Directory on the storage checkpoints go to; the "
                                "checkpoint goes in <dir>/preflight-<id>/"),
      storage::dataset_opt::dataset(&C::dataset_id, "Checkpoint id: <dir>/preflight-<id>/",
                                    "ckpt-<ranks>r-<shard bytes>"),
      opt::names(
          {.key = "engines", .flags = "--engine", .help = "I/O engines", .default_value = "psync"},
          &C::engines, write_engines()),
      storage::dataset_opt::file_layout(&C::shared),
      opt::names({.key = "durability",
                  .flags = "--durability",
                  .help = "When a save ends: durable (after fdatasync of every file and fsync of "
                          "the directory) or handed-off (when the last write returns)",
                  .default_value = "durable"},
                 &C::durable, NameTable<bool>{kDurability}, "both"),
      opt::names({.key = "phases",
                  .flags = "--phases",
                  .help = "What to run, in this order",
                  .default_value = "save,restore"},
                 &C::phases, std::vector<std::string>{"save", "restore"}),
      opt::names({.key = "restore",
                  .flags = "--restore",
                  .help = "Cache states a restore reads in (as storage's cache)",
                  .default_value = "evicted"},
                 &C::restore, storage::cache_state_names()),
      opt::sizes({.key = "block_sizes",
                  .flags = "--block-sizes",
                  .help = "Bytes per write and read, multiples of 4K: 1M, 4K:1M:x4",
                  .default_value = "1M"},
                 &C::block_sizes),
      opt::size({.key = "size",
                 .flags = "--size",
                 .help = "Bytes of each rank's shard; 0: from model or parameters",
                 .default_value = "0"},
                &C::size),
      opt::text({.key = "model",
                 .flags = "--model",
                 .help = fmt::format("Model preset whose checkpoint to save: {}",
                                     fmt::join(model_names(), ", ")),
                 .shown_default = "none"},
                &C::model),
      opt::number({.key = "parameters",
                   .flags = "--parameters",
                   .help = "Model parameters (instead of a preset), e.g. 1e6",
                   .default_value = "0"},
                  &C::parameters, 0, 1e16),
      opt::number({.key = "bytes_per_param",
                   .flags = "--bytes-per-param",
                   .help = "Checkpoint bytes per parameter: bf16 weights 2 + fp32 master 4 + "
                           "fp32 Adam moments 8",
                   .default_value = "14"},
                  &C::bytes_per_param, 0.125, 1024),
      opt::integer({.key = "tensor_parallel",
                    .flags = "--tensor-parallel",
                    .help = "Tensor-parallel ranks the checkpoint is split over",
                    .default_value = "1"},
                   &C::tensor_parallel, 1, 1 << 20),
      opt::integer({.key = "pipeline_parallel",
                    .flags = "--pipeline-parallel",
                    .help = "Pipeline-parallel ranks the checkpoint is split over",
                    .default_value = "1"},
                   &C::pipeline_parallel, 1, 1 << 20),
      opt::integer({.key = "data_parallel",
                    .flags = "--data-parallel",
                    .help = "Data-parallel ranks the checkpoint is split over (sharded "
                            "optimizer state); 0: ranks / (tensor x pipeline)",
                    .default_value = "0"},
                   &C::data_parallel, 0, 1 << 20),
      opt::integers({.key = "queue_depths",
                     .flags = "--queue-depth",
                     .help = "Writes and reads in flight, io_uring only",
                     .default_value = "1"},
                    &C::queue_depths, 1, 4096),
      storage::dataset_opt::scale_ranks_per_node(&C::scale_ranks_per_node),
      storage::dataset_opt::node_ladder(&C::node_ladder),
      opt::boolean({.key = "verify",
                    .flags = "--verify",
                    .help = "Read back every save and check every restored block before timing",
                    .default_value = "true"},
                   &C::verify),
      storage::dataset_opt::keep(&C::keep, "Keep the checkpoint files for later runs"),
      opt::duration({.key = "node_mtbf",
                     .flags = "--node-mtbf",
                     .help = "Mean time between failures of one node, e.g. 6000h",
                     .default_value = "0",
                     .shown_default = "6335h (Llama 3 405B pre-training)",
                     .record = "node_mtbf_s"},
                    &C::node_mtbf_s, 0, "a duration, e.g. 6000h"),
      opt::integer({.key = "job_nodes",
                    .flags = "--job-nodes",
                    .help = "Nodes of the training job the checkpoint interval is for; 0: this "
                            "run's nodes",
                    .default_value = "0"},
                   &C::job_nodes, 0, 1 << 24),
      opt::duration({.key = "planned_interval",
                     .flags = "--planned-interval",
                     .help = "Checkpoint interval you plan, e.g. 30m; 0: none",
                     .default_value = "0",
                     .record = "planned_interval_s"},
                    &C::planned_interval_s, 0, "a duration, e.g. 30m"),
  });
  return table;
}

bool has(const std::vector<std::string>& v, std::string_view x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

class CheckpointFamily final : public Family {
 public:
  std::string name() const override { return std::string(schema::kCheckpointFamily); }
  std::string summary() const override {
    return "checkpoint save (handed off, durable) and restore (evicted, other-node) throughput "
           "and the checkpoint interval it allows";
  }
  std::vector<OptionSpec> options() const override { return options_table().specs(); }

  void configure(const ConfigNode& entry) override {
    CheckpointConfig c;
    options_table().read(entry, c);
    storage::check_dir_and_id(entry, c.dir, c.dataset_id);
    if (!c.model.empty() && find_preset(c.model) == nullptr)
      entry.fail("model", fmt::format("one of {}", fmt::join(model_names(), ", ")),
                 "'" + c.model + "'");
    const int sources = (c.size > 0) + !c.model.empty() + (c.parameters > 0);
    if (sources != 1)
      entry.fail(c.size > 0 ? "size" : "model",
                 "exactly one of size (bytes per rank), model (a preset) or parameters",
                 sources == 0 ? std::string("none") : fmt::format("{} of them", sources));
    storage::check_block_sizes(entry, c.block_sizes, c.size);
    storage::check_queue_depths(entry, c.queue_depths, c.engines);
    config_ = c;
  }

  nlohmann::json config() const override { return options_table().json(config_); }

  FamilyNeeds needs() const override {
    FamilyNeeds n;
    n.directories.push_back(config_.dir);
    return n;
  }

  std::vector<std::unique_ptr<Case>> make_cases(const RankContext& ctx) override {
    const auto& c = config_;
    const bool restore = has(c.phases, "restore"), save = has(c.phases, "save");
    const bool other_node = restore && std::find(c.restore.begin(), c.restore.end(),
                                                 CacheState::kOtherNode) != c.restore.end();
    if (other_node) storage::require_other_node_layout(ctx, "checkpoint: restore");
    const int dp = data_parallel(ctx);
    const std::uint64_t align = *std::max_element(c.block_sizes.begin(), c.block_sizes.end());
    const std::uint64_t total = checkpoint_total(ctx);
    const std::uint64_t shard =
        c.size > 0 ? c.size : shard_bytes(total, c.tensor_parallel, c.pipeline_parallel, dp, align);
    for (std::uint64_t b : c.block_sizes)
      if (shard % b != 0)
        throw UsageError(fmt::format(
            "checkpoint: block_sizes: each must divide the shard of {} bytes ({}); the largest "
            "sets the rounding: list block sizes that divide one another (4K,64K,1M)",
            shard, format_bytes(shard)));

    storage::DatasetSpec spec;
    spec.dir = c.dir;
    spec.id = c.dataset_id.empty() ? fmt::format("ckpt-{}r-{}", ctx.size, shard) : c.dataset_id;
    spec.bytes_per_rank = shard;
    spec.per_rank_files = std::find(c.shared.begin(), c.shared.end(), false) != c.shared.end();
    spec.shared_file = std::find(c.shared.begin(), c.shared.end(), true) != c.shared.end();
    spec.keep = c.keep;
    if (!dataset_ || dataset_->spec().dir != spec.dir || dataset_->spec().id != spec.id)
      dataset_ = std::make_shared<storage::Dataset>(spec, ctx);
    const bool cold = save || std::any_of(c.restore.begin(), c.restore.end(), storage::evicts);
    const bool direct = restore && std::find(c.restore.begin(), c.restore.end(),
                                             CacheState::kDirect) != c.restore.end();
    dataset_->check(cold, direct);
    if (other_node) storage::warn_other_node_on_one_host(ctx, schema::kCheckpointFamily);

    const auto params = checkpoint_params(ctx, dp, total > 0 ? total : shard * ctx.size);
    const auto layouts = storage::make_rank_layouts(c.scale_ranks_per_node, c.node_ladder, ctx);
    std::vector<std::unique_ptr<Case>> cases;
    for (const auto& phase : c.phases)
      for (const auto& engine : c.engines)
        for (bool shared : c.shared)
          for (int qd :
               storage::engine_supports_queue_depth(engine) ? c.queue_depths : std::vector<int>{1})
            for (const auto& layout : layouts) {
              if (phase == "save") {
                for (bool durable : c.durable)
                  cases.push_back(
                      std::make_unique<SaveCase>(SaveSpec{engine, shared, durable, qd, c.verify},
                                                 layout, c.block_sizes, dataset_, ctx, params));
                continue;
              }
              for (CacheState cache : c.restore) {
                storage::ReadSpec r;
                r.engine = engine;
                r.cache = cache;
                r.shared = shared;
                r.queue_depth = qd;
                r.verify = c.verify;
                auto restore_params = params;
                restore_params.push_back(
                    attr(schema::checkpoint::kPhase, schema::kCheckpointRestore));
                cases.push_back(std::make_unique<storage::StorageCase>(
                    r, layout, c.block_sizes, dataset_, ctx,
                    storage::ReadIdentity{&schema::checkpoint::kRestoreDeclaration, "restore ",
                                          std::move(restore_params)}));
              }
            }
    return cases;
  }

 private:
  int data_parallel(const RankContext& ctx) const {
    const auto& c = config_;
    if (c.data_parallel > 0) return c.data_parallel;
    return std::max(1, ctx.size / (c.tensor_parallel * c.pipeline_parallel));
  }

  std::uint64_t checkpoint_total(const RankContext&) const {
    const auto& c = config_;
    if (const auto* p = find_preset(c.model))
      return checkpoint_bytes(p->parameters, c.bytes_per_param);
    if (c.parameters > 0)
      return checkpoint_bytes(static_cast<std::uint64_t>(c.parameters), c.bytes_per_param);
    return 0;
  }

  // What every case of the checkpoint records: the checkpoint, its split and the interval's
  // inputs (schema checkpoint.hpp).
  std::vector<Param> checkpoint_params(const RankContext& ctx, int dp, std::uint64_t total) const {
    const auto& c = config_;
    const auto* preset = find_preset(c.model);
    const std::uint64_t parameters =
        preset != nullptr ? preset->parameters : static_cast<std::uint64_t>(c.parameters);
    const bool default_mtbf = c.node_mtbf_s <= 0;
    return {
        attr(schema::checkpoint::kModelPreset, c.model.empty() ? std::string("custom") : c.model),
        attr(schema::checkpoint::kParameters, static_cast<std::int64_t>(parameters)),
        attr(schema::checkpoint::kBytesPerParam, c.bytes_per_param),
        attr(schema::checkpoint::kTensorParallel, std::int64_t{c.tensor_parallel}),
        attr(schema::checkpoint::kPipelineParallel, std::int64_t{c.pipeline_parallel}),
        attr(schema::checkpoint::kDataParallel, std::int64_t{dp}),
        attr(schema::checkpoint::kCheckpointBytes, static_cast<std::int64_t>(total)),
        attr(schema::checkpoint::kNodeMtbfS, default_mtbf ? kDefaultNodeMtbfS : c.node_mtbf_s),
        attr(schema::checkpoint::kNodeMtbfSource,
             std::string(default_mtbf ? kDefaultMtbfSource : "config: node_mtbf")),
        attr(schema::checkpoint::kJobNodes,
             std::int64_t{c.job_nodes > 0 ? c.job_nodes : ctx.node_count}),
        attr(schema::checkpoint::kPlannedIntervalS, c.planned_interval_s),
    };
  }

  CheckpointConfig config_;
  std::shared_ptr<storage::Dataset> dataset_;
};

}  // namespace

std::unique_ptr<Family> make_checkpoint_family() {
  return std::make_unique<CheckpointFamily>();
}

}  // namespace preflight::checkpoint
