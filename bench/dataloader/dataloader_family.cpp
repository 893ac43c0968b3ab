#include "dataloader/dataloader_family.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <filesystem>

#include "dataloader/gpu_decoder.hpp"
#include "dataloader/image_set.hpp"
#include "dataloader/loader_case.hpp"
#include "dataloader/pinned_memory.hpp"
#include "harness/config/options.hpp"
#include "preflight/common/usage_error.hpp"
#include "preflight/schema/family_names.hpp"
#include "storage/dataset_options.hpp"
#include "storage/engine.hpp"

namespace preflight::dataloader {
namespace {

using storage::CacheState;

// ResNet-50's training FLOPs per 224x224 image: 4.1 GFLOP forward, about twice that backward.
constexpr double kResNet50TrainFlops = 3 * 4.1e9;

struct DataloaderConfig {
  std::string data_dir;
  std::vector<std::string> engines;
  std::vector<CacheState> cache;
  std::vector<int> workers;
  int batch_size = 64;
  int crop = 224;
  std::string element_type;
  std::string decoder;
  int prefetch = 2;
  int batches_per_iteration = 0;
  double compute_per_batch_s = 0;
  double accelerator_flops = 0;
  double flops_per_sample = kResNet50TrainFlops;
  double au_target = 0.9;
  int seed = 1;
  int synthetic_images = 0;
  std::vector<int> scale_ranks_per_node;
  bool node_ladder = false;
};

const NameTable<CacheState>& loader_cache_states() {
  static const NameTable<CacheState> t{std::array{
      std::pair{CacheState::kEvicted, std::string_view("evicted")},
      std::pair{CacheState::kWarm, std::string_view("warm")},
  }};
  return t;
}

std::vector<std::string> read_engines() {
  return {"psync", "io_uring"};  // one read per image into memory: what a loader does
}

const OptionTable<DataloaderConfig>& options_table() {
  using C = DataloaderConfig;
  static const OptionTable<C> table({
      opt::text({.key = "data_dir",
                 .flags = "--data-dir",
                 .help = "Directory of JPEG/PNG files or tar shards (preflight dataset make)",
                 .shown_default = "required"},
                &C::data_dir),
      opt::names(
          {.key = "engines", .flags = "--engine", .help = "I/O engines", .default_value = "psync"},
          &C::engines, read_engines()),
      opt::names({.key = "cache",
                  .flags = "--cache",
                  .help = "Page cache before each pass: evicted (storage) or warm (memory)",
                  .default_value = "evicted"},
                 &C::cache, loader_cache_states()),
      opt::integers({.key = "workers",
                     .flags = "--workers",
                     .help = "Worker threads per rank, swept",
                     .default_value = "1,2"},
                    &C::workers, 1, 1024),
      opt::integer({.key = "batch_size",
                    .flags = "--batch-size",
                    .help = "Images per batch (per GPU)",
                    .default_value = "64"},
                   &C::batch_size, 1, 1 << 16),
      opt::integer({.key = "crop",
                    .flags = "--crop",
                    .help = "Side of the square crop",
                    .default_value = "224"},
                   &C::crop, 8, 4096),
      opt::one_of({.key = "element_type",
                   .flags = "--element-type",
                   .help = "Batch element type",
                   .default_value = "float32"},
                  &C::element_type, std::vector<std::string>{"float32", "uint8"}),
      opt::one_of({.key = "decoder",
                   .flags = "--decoder",
                   .help = "JPEG decoder: cpu (libjpeg-turbo) or nvjpeg (the GPU, loaded at run "
                           "time); PNG is always libpng",
                   .default_value = "cpu"},
                  &C::decoder, std::vector<std::string>{"cpu", "nvjpeg"}),
      opt::integer({.key = "prefetch",
                    .flags = "--prefetch",
                    .help = "Batches each worker may have ready ahead",
                    .default_value = "2"},
                   &C::prefetch, 1, 1024),
      opt::integer({.key = "batches_per_iteration",
                    .flags = "--batches-per-iteration",
                    .help = "Batches each rank loads per timed iteration; 0: its whole share",
                    .default_value = "0"},
                   &C::batches_per_iteration, 0, 1 << 24),
      opt::duration({.key = "compute_per_batch",
                     .flags = "--compute-per-batch",
                     .help = "Emulated accelerator time per batch, e.g. 50ms; 0: from "
                             "accelerator_flops, or none",
                     .default_value = "0",
                     .record = "compute_per_batch_s"},
                    &C::compute_per_batch_s, 0, "a duration, e.g. 50ms"),
      opt::number({.key = "accelerator_flops",
                   .flags = "--accelerator-flops",
                   .help = "The accelerator's training rate in FLOP/s (e.g. the matmul "
                           "family's measured rate); with flops_per_sample gives the compute "
                           "per batch",
                   .default_value = "0"},
                  &C::accelerator_flops, 0, 1e20),
      opt::number({.key = "flops_per_sample",
                   .flags = "--flops-per-sample",
                   .help = "Training FLOPs per image (ResNet-50: 1.23e10)",
                   .default_value = "1.23e10"},
                  &C::flops_per_sample, 1, 1e18),
      opt::number({.key = "au_target",
                   .flags = "--au-target",
                   .help = "Accelerator utilisation the pipeline must allow, 0..1",
                   .default_value = "0.9"},
                  &C::au_target, 0.01, 1),
      opt::integer({.key = "seed",
                    .flags = "--seed",
                    .help = "Shuffle and augmentation seed",
                    .default_value = "1"},
                   &C::seed, 0, 1 << 30),
      opt::integer({.key = "synthetic_images",
                    .flags = "--synthetic-images",
                    .help = "When data_dir does not exist: make this many synthetic images there "
                            "first (as preflight dataset make; kept for later runs); 0: never",
                    .default_value = "0"},
                   &C::synthetic_images, 0, 1 << 28),
      storage::dataset_opt::scale_ranks_per_node(&C::scale_ranks_per_node),
      storage::dataset_opt::node_ladder(&C::node_ladder),
  });
  return table;
}

// Collective: every rank can decode on its GPU, or every rank refuses (UsageError) together.
void require_gpu_decode(const RankContext& ctx) {
  const GpuJpegDecoder probe(ctx.local_rank);
  int ok = probe.why_not().empty() ? 1 : 0, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, ctx.world);
  if (all == 0)
    throw UsageError(fmt::format(
        "dataloader: decoder: nvjpeg cannot decode on every rank ({}): use decoder: cpu, or "
        "run where each rank has a GPU and libnvjpeg",
        ok ? "this rank can; another cannot" : probe.why_not()));
}

// Collective: the batch buffers are pinned where every rank has a GPU to copy them to; else
// pageable on every rank, with the first reason why not (a rank's own, else "another rank").
std::string why_batches_pageable(const RankContext& ctx) {
  const std::string why = why_batches_not_pinned();
  int ok = why.empty() ? 1 : 0, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, ctx.world);
  if (all == 1) return "";
  return ok ? "another rank has no GPU" : why;
}

class DataloaderFamily final : public Family {
 public:
  std::string name() const override { return std::string(schema::kDataloaderFamily); }
  std::string summary() const override {
    return "data pipeline read -> decode -> augment -> batch, stage by stage, and the "
           "accelerator utilisation it allows";
  }
  std::vector<OptionSpec> options() const override { return options_table().specs(); }

  void configure(const ConfigNode& entry) override {
    DataloaderConfig c;
    options_table().read(entry, c);
    if (c.data_dir.empty())
      entry.fail("data_dir", "a directory of images (make one with: preflight dataset make)",
                 "none");
    if (c.compute_per_batch_s > 0 && c.accelerator_flops > 0)
      entry.fail("compute_per_batch", "compute_per_batch or accelerator_flops, not both", "both");
    c.data_dir = std::filesystem::absolute(c.data_dir).lexically_normal().string();
    config_ = c;
  }

  nlohmann::json config() const override { return options_table().json(config_); }

  FamilyNeeds needs() const override {
    FamilyNeeds n;
    n.gpu = config_.decoder == "nvjpeg";
    return n;
  }

  std::vector<std::unique_ptr<Case>> make_cases(const RankContext& ctx) override {
    const auto& c = config_;
    if (!images_ || images_->set.dir != c.data_dir) {
      images_ = std::make_shared<ImageSource>();
      std::error_code ec;
      if (c.synthetic_images > 0 && !std::filesystem::exists(c.data_dir, ec)) {
        images_->set.dir = c.data_dir;
        images_->make_images = static_cast<std::size_t>(c.synthetic_images);
      } else {
        images_->set = index_images(c.data_dir, ctx);
      }
    }
    const std::size_t usable = images_->images();
    const auto layouts = storage::make_rank_layouts(c.scale_ranks_per_node, c.node_ladder, ctx);
    int most_ranks = 1;
    for (const auto& l : layouts) most_ranks = std::max(most_ranks, l.ranks);
    const std::size_t share = usable / static_cast<std::size_t>(most_ranks);
    const std::size_t whole = share / static_cast<std::size_t>(c.batch_size);
    if (whole == 0)
      throw UsageError(fmt::format(
          "dataloader: batch_size: {} images in {} ({} bad) give each of {} ranks {}, fewer "
          "than one batch of {}: lower batch_size or use a larger data set",
          usable, c.data_dir, images_->set.bad.size(), most_ranks, share, c.batch_size));
    if (static_cast<std::size_t>(c.batches_per_iteration) > whole)
      throw UsageError(fmt::format(
          "dataloader: batches_per_iteration: {} batches of {} need {} images per rank; each of "
          "{} ranks has {}: at most {}",
          c.batches_per_iteration, c.batch_size,
          static_cast<std::size_t>(c.batches_per_iteration) *
              static_cast<std::size_t>(c.batch_size),
          most_ranks, share, whole));
    if (c.decoder == "nvjpeg") require_gpu_decode(ctx);
    LoaderSpec spec;
    spec.batches =
        c.batches_per_iteration > 0 ? static_cast<std::size_t>(c.batches_per_iteration) : whole;
    spec.au_target = c.au_target;
    auto& p = spec.pipeline;
    p.batch_size = c.batch_size;
    p.crop = c.crop;
    p.float_output = c.element_type == "float32";
    p.prefetch = c.prefetch;
    p.seed = static_cast<std::uint64_t>(c.seed);
    p.gpu_decode = c.decoder == "nvjpeg";
    p.local_rank = ctx.local_rank;
    spec.batches_pageable_why = why_batches_pageable(ctx);
    p.pin_batches = spec.batches_pageable_why.empty();
    if (c.accelerator_flops > 0) {
      p.compute_per_batch_s = c.batch_size * c.flops_per_sample / c.accelerator_flops;
      spec.compute_source =
          fmt::format("batch_size x flops_per_sample {:g} / accelerator_flops {:g}",
                      c.flops_per_sample, c.accelerator_flops);
    } else {
      p.compute_per_batch_s = c.compute_per_batch_s;
      spec.compute_source = c.compute_per_batch_s > 0 ? "config: compute_per_batch" : "none";
    }
    std::vector<std::unique_ptr<Case>> cases;
    for (const auto& engine : c.engines)
      for (CacheState cache : c.cache)
        for (const auto& layout : layouts) {
          LoaderSpec s = spec;
          s.pipeline.engine = engine;
          s.cache = cache;
          cases.push_back(std::make_unique<LoaderCase>(s, layout, c.workers, images_, ctx));
        }
    return cases;
  }

 private:
  DataloaderConfig config_;
  std::shared_ptr<ImageSource> images_;
};

}  // namespace

std::unique_ptr<Family> make_dataloader_family() {
  return std::make_unique<DataloaderFamily>();
}

}  // namespace preflight::dataloader
