#include "dataloader/loader_case.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>

#include <mpi.h>

#include <filesystem>
#include <thread>

#include "dataloader/dataset_make.hpp"
#include "dataloader/image_cache.hpp"
#include "harness/run/idle_wait.hpp"
#include "preflight/common/stats.hpp"
#include "preflight/common/usage_error.hpp"
#include "preflight/schema/dataloader.hpp"
#include "storage/dataset.hpp"

namespace preflight::dataloader {
namespace {

namespace s = schema;

// Where each counter sits among an operation's counters: its place in the declared table.
constexpr std::size_t counter(const s::Column& c) {
  return s::index_in(s::kDataloaderCounters, c);
}
// The pipeline stages' time counters, in the order of s::dataloader::kStages.
constexpr std::array kStageCounters = {
    counter(s::dataloader::kReadSCounter), counter(s::dataloader::kDecodeSCounter),
    counter(s::dataloader::kAugmentSCounter), counter(s::dataloader::kBatchSCounter)};
static_assert(kStageCounters.size() == s::dataloader::kStages.size());
constexpr std::size_t kNamedBadImages = 10;

class LoaderOperation final : public Operation {
 public:
  LoaderOperation(const LoaderSpec& spec, PipelineSpec pipeline,
                  std::shared_ptr<const ImageSet> images, int index, int ranks, int rank)
      : spec_(spec),
        pipeline_(std::move(pipeline)),
        images_(std::move(images)),
        loader_(*images_, pipeline_),
        index_(index),
        ranks_(ranks),
        rank_(rank) {}

  void fill() override { checking_ = true; }

  // Untimed: the next pass's images, evicted from the page cache unless warm, and how much of
  // them is cached now (the cache-state proof, as the storage family's).
  void before_iteration() override {
    prepare(epoch_);
    resident_ = set_cache_state(*images_, order_, spec_.cache);
  }

  void run() override {
    if (prepared_for_ != epoch_) prepare(epoch_);
    result_ = loader_.run_pass(order_, epoch_, checking_);
    checked_epoch_ = epoch_;
    ++epoch_;
    if (!result_.errors.empty() && !named_errors_) {
      for (const auto& e : result_.errors)
        std::fprintf(stderr,
                     "preflight: rank %d: dataloader: %s failed to decode: %s (left out of its "
                     "batch; counted in decode_errors)\n",
                     rank_, e.name.c_str(), e.reason.c_str());
      named_errors_ = true;
    }
  }

  // After the check pass: batch 0 built again, alone and serially, must be the same bytes the
  // pipeline delivered (the right images, crops and flips in the right slots).
  std::uint64_t count_wrong() override {
    if (!checking_) return 0;
    checking_ = false;
    std::vector<unsigned char> expected;
    const std::vector<std::size_t> order = epoch_order(
        images_->images.size(), pipeline_.seed, checked_epoch_, index_, ranks_, order_.size());
    build_reference(*images_, order.data(), pipeline_, checked_epoch_, expected);
    auto& got = result_.first_batch;
    if (corrupt_ && !got.empty()) got[0] = static_cast<unsigned char>(got[0] ^ 0x5A);
    const std::size_t element = pipeline_.float_output ? sizeof(float) : 1;
    std::uint64_t wrong = 0;
    if (got.size() != expected.size())
      wrong = expected.size() / element;
    else
      for (std::size_t at = 0; at < got.size(); at += element)
        if (std::memcmp(got.data() + at, expected.data() + at, element) != 0) ++wrong;
    if (wrong > 0)
      std::fprintf(stderr,
                   "preflight: rank %d: dataloader: batch 0 of the check pass differs from the "
                   "same batch built serially in %llu elements\n",
                   rank_, static_cast<unsigned long long>(wrong));
    return wrong;
  }

  void corrupt_result() override { corrupt_ = true; }

  std::vector<double> iteration_counters() override {
    std::vector<double> v(s::kDataloaderCounters.size(), kNaN);
    const PassResult& r = result_;
    v[counter(s::dataloader::kImagesCounter)] = r.images;
    v[counter(s::dataloader::kBytesCounter)] = r.bytes;
    v[counter(s::dataloader::kReadSCounter)] = r.read_s;
    v[counter(s::dataloader::kDecodeSCounter)] = r.decode_s;
    v[counter(s::dataloader::kAugmentSCounter)] = r.augment_s;
    v[counter(s::dataloader::kBatchSCounter)] = r.batch_s;
    v[counter(s::dataloader::kComputeSCounter)] = r.compute_s;
    v[counter(s::dataloader::kStallSCounter)] = r.stall_s;
    v[counter(s::dataloader::kBatchP50SCounter)] = r.batch_p50_s;
    v[counter(s::dataloader::kBatchP95SCounter)] = r.batch_p95_s;
    v[counter(s::dataloader::kDecodeErrorsCounter)] = r.decode_errors;
    v[counter(s::dataloader::kResidentBeforeCounter)] = resident_;
    return v;
  }

 private:
  void prepare(std::uint64_t epoch) {
    order_ = epoch_order(images_->images.size(), pipeline_.seed, epoch, index_, ranks_,
                         spec_.batches * static_cast<std::size_t>(pipeline_.batch_size));
    prepared_for_ = epoch;
  }

  const LoaderSpec& spec_;
  PipelineSpec pipeline_;
  std::shared_ptr<const ImageSet> images_;
  Pipeline loader_;
  int index_, ranks_, rank_;
  std::uint64_t epoch_ = 0, prepared_for_ = UINT64_MAX, checked_epoch_ = 0;
  std::vector<std::size_t> order_;
  PassResult result_;
  double resident_ = kNaN;
  bool checking_ = false, corrupt_ = false, named_errors_ = false;
};

// What a bad-image list records: the first few, 'name: reason'.
std::string bad_names(const std::vector<BadImage>& bad) {
  std::string out;
  for (std::size_t i = 0; i < bad.size() && i < kNamedBadImages; ++i)
    out += fmt::format("{}{}: {}", out.empty() ? "" : "; ", bad[i].name, bad[i].reason);
  if (bad.size() > kNamedBadImages)
    out += fmt::format("; and {} more", bad.size() - kNamedBadImages);
  return out;
}

}  // namespace

LoaderCase::LoaderCase(LoaderSpec spec, storage::RankLayout layout, std::vector<int> workers,
                       std::shared_ptr<ImageSource> images, const RankContext& ctx)
    : spec_(std::move(spec)),
      layout_(std::move(layout)),
      workers_(std::move(workers)),
      images_(std::move(images)),
      ctx_(ctx) {}

std::string LoaderCase::subject() const {
  return fmt::format("load {} {} {} batch {}", name_of(images_->set.layout), spec_.pipeline.engine,
                     storage::name_of(spec_.cache), spec_.pipeline.batch_size);
}

std::string LoaderCase::name() const {
  return fmt::format("{} {}", subject(), layout_.label);
}

schema::OwnMeaning LoaderCase::own_meaning() const {
  return {.subject = subject()};
}

std::vector<Param> LoaderCase::params() const {
  const auto& p = spec_.pipeline;
  return {
      attr(schema::dataloader::kDataDir, images_->set.dir),
      attr(schema::dataloader::kDataLayout, std::string(name_of(images_->set.layout))),
      attr(schema::dataloader::kFsType,
           storage::fs_type_of(images_->make_images > 0
                                   ? std::filesystem::path(images_->set.dir).parent_path().string()
                                   : images_->set.dir)),
      attr(schema::dataloader::kImages, static_cast<std::int64_t>(images_->images())),
      attr(schema::dataloader::kBadImages, static_cast<std::int64_t>(images_->set.bad.size())),
      attr(schema::dataloader::kBadImageNames, bad_names(images_->set.bad)),
      attr(schema::dataloader::kEngine, p.engine),
      attr(schema::dataloader::kCacheState, std::string(storage::name_of(spec_.cache))),
      attr(schema::dataloader::kDecoder,
           std::string(p.gpu_decode ? "nvjpeg+libpng" : "libjpeg-turbo+libpng")),
      attr(schema::dataloader::kBatchSize, std::int64_t{p.batch_size}),
      attr(schema::dataloader::kCrop, std::int64_t{p.crop}),
      attr(schema::dataloader::kElementType, std::string(p.float_output ? "float32" : "uint8")),
      attr(schema::dataloader::kBatchMemory, spec_.batches_pageable_why.empty()
                                                 ? std::string("pinned (cudaHostRegister)")
                                                 : "pageable: " + spec_.batches_pageable_why),
      attr(schema::dataloader::kPrefetch, std::int64_t{p.prefetch}),
      attr(schema::dataloader::kBatchesPerIteration, static_cast<std::int64_t>(spec_.batches)),
      attr(schema::dataloader::kComputePerBatchS, p.compute_per_batch_s),
      attr(schema::dataloader::kComputeSource, spec_.compute_source),
      attr(schema::dataloader::kAuTarget, spec_.au_target),
      attr(schema::dataloader::kSeed, static_cast<std::int64_t>(p.seed)),
      attr(schema::dataloader::kRanksPerNode, std::int64_t{layout_.ranks_per_node}),
      attr(schema::dataloader::kNodes, std::int64_t{layout_.nodes}),
      attr(schema::dataloader::kRanks, std::int64_t{layout_.ranks}),
      attr(schema::dataloader::kLayout, layout_.label),
  };
}

std::vector<Param> LoaderCase::point_columns(std::size_t point, int) const {
  return {column_param(schema::dataloader::kWorkersColumn, std::int64_t{workers_[point]}, true)};
}

std::vector<CounterSpec> LoaderCase::counters() const {
  std::vector<CounterSpec> out;
  for (const auto& column : s::kDataloaderCounters) out.push_back({&column, 0});
  return out;
}

std::unique_ptr<Operation> LoaderCase::make_operation(std::size_t point) {
  const auto& group = layout_.group_of_rank;
  if (group[static_cast<std::size_t>(ctx_.rank)] < 0) return nullptr;
  // The rank's index among the active ranks: they split the images between them.
  int index = 0;
  for (int r = 0; r < ctx_.rank; ++r) index += group[static_cast<std::size_t>(r)] >= 0;
  PipelineSpec p = spec_.pipeline;
  p.workers = workers_[point];
  return std::make_unique<LoaderOperation>(spec_, p,
                                           std::shared_ptr<const ImageSet>(images_, &images_->set),
                                           index, layout_.ranks, ctx_.rank);
}

void LoaderCase::start() {
  if (images_->make_images == 0) return;
  SyntheticSpec make;
  make.images = images_->make_images;
  make.dir = images_->set.dir;
  make.threads = std::max(1u, std::thread::hardware_concurrency());
  int made = 1;
  if (ctx_.is_root()) try {
      fmt::print("preflight: dataloader: making {} synthetic images in {} (kept for later runs)\n",
                 make.images, make.dir);
      make_synthetic_set(make);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "preflight: %s\n", e.what());
      made = 0;
    }
  idle_bcast(&made, 1, MPI_INT, 0, ctx_.world);  // the other ranks leave rank 0 the cores
  if (made == 0)
    throw UsageError(
        fmt::format("dataloader: synthetic_images: the set could not be made in {}", make.dir));
  images_->set = index_images(make.dir, ctx_);
  if (images_->set.images.size() != images_->make_images)
    throw std::runtime_error(fmt::format("dataloader: {} synthetic images made, {} indexed",
                                         images_->make_images, images_->set.images.size()));
  images_->make_images = 0;
}

// Every figure from the samples and counters (SPEC.md, "The dataloader family"): rates over the
// slowest rank's time, AU from the lowest rank, stage times from the median rank.
std::vector<Metric> LoaderCase::sample_metrics(std::size_t, int, const SampleView& v) const {
  const auto& c = *v.counters;
  auto at = [&](std::size_t counter, std::size_t i, int r) {
    return c[counter][i * v.ranks + static_cast<std::size_t>(r)];
  };
  auto time = [&](std::size_t i, int r) {
    return (*v.times)[i * v.ranks + static_cast<std::size_t>(r)];
  };
  std::vector<double> rate, mb, au, worker_s_per_image, p50, p95;
  std::array<std::vector<double>, s::dataloader::kStages.size()> stage;
  double errors = 0, resident = kNaN;
  const bool computes = spec_.pipeline.compute_per_batch_s > 0;
  for (std::size_t i = 0; i < v.iterations; ++i) {
    double slowest = 0, images = 0, bytes = 0, lowest_au = kNaN, worker_s = 0;
    std::vector<double> rank_p50;
    std::array<std::vector<double>, s::dataloader::kStages.size()> rank_stage;
    double top_p95 = kNaN;
    for (int r : *v.members) {
      slowest = std::max(slowest, time(i, r));
      images += at(counter(s::dataloader::kImagesCounter), i, r);
      bytes += at(counter(s::dataloader::kBytesCounter), i, r);
      const double a = at(counter(s::dataloader::kComputeSCounter), i, r) / time(i, r);
      if (computes && !(a >= lowest_au)) lowest_au = a;
      for (std::size_t k = 0; k < rank_stage.size(); ++k) {
        const double t = at(kStageCounters[k], i, r);
        rank_stage[k].push_back(t);
        worker_s += t;
      }
      rank_p50.push_back(at(counter(s::dataloader::kBatchP50SCounter), i, r));
      const double q = at(counter(s::dataloader::kBatchP95SCounter), i, r);
      if (!(q <= top_p95)) top_p95 = q;
      errors += at(counter(s::dataloader::kDecodeErrorsCounter), i, r);
      const double res = at(counter(s::dataloader::kResidentBeforeCounter), i, r);
      if (!std::isnan(res) && !(res <= resident)) resident = res;
    }
    rate.push_back(slowest > 0 ? images / slowest : kNaN);
    mb.push_back(slowest > 0 ? bytes / slowest / 1e6 : kNaN);
    au.push_back(lowest_au);
    worker_s_per_image.push_back(images > 0 ? worker_s / images : kNaN);
    for (std::size_t k = 0; k < stage.size(); ++k) stage[k].push_back(median(rank_stage[k]));
    p50.push_back(median(rank_p50));
    p95.push_back(top_p95);
  }
  const auto& p = spec_.pipeline;
  const double au_median = computes ? median(au) : kNaN;
  const bool met = au_median >= spec_.au_target;
  const double images_per_s = median(rate);
  const double needed = computes ? std::ceil(spec_.au_target * p.batch_size /
                                             p.compute_per_batch_s * median(worker_s_per_image))
                                 : -1;
  std::vector<Metric> out{
      metric(schema::dataloader::kImagesPerSColumn, images_per_s),
      metric(schema::dataloader::kMbPerSColumn, median(mb)),
      metric(schema::dataloader::kAuColumn, au_median),
      metric(schema::dataloader::kAuMetColumn, met ? 1 : 0),
      metric(schema::dataloader::kValidImagesPerSColumn, met ? images_per_s : kNaN),
      metric(schema::dataloader::kWorkersNeededColumn, needed),
  };
  for (std::size_t k = 0; k < stage.size(); ++k)
    out.push_back(metric(*s::dataloader::kStages[k].first, median(stage[k])));
  out.push_back(metric(schema::dataloader::kBatchP50SColumn, median(p50)));
  out.push_back(metric(schema::dataloader::kBatchP95SColumn, median(p95)));
  out.push_back(metric(schema::dataloader::kDecodeErrorsColumn, errors));
  out.push_back(metric(schema::dataloader::kResidentBeforeMaxColumn, resident));
  return out;
}

}  // namespace preflight::dataloader
