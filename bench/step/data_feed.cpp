#include "step/data_feed.hpp"

#include <chrono>
#include <cstdio>
#include <limits>

#include "dataloader/image_cache.hpp"

namespace preflight::step {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

DataFeed::DataFeed(const DataFeedSpec& spec, std::int64_t batches_per_step)
    : spec_(spec),
      images_per_step_(static_cast<std::size_t>(batches_per_step) *
                       static_cast<std::size_t>(spec.pipeline.batch_size)),
      batches_per_step_(batches_per_step),
      share_(dataloader::epoch_order(spec_.images->images.size(), spec_.pipeline.seed, 0,
                                     spec_.index, spec_.ranks,
                                     std::numeric_limits<std::size_t>::max())),
      pipeline_(*spec_.images, spec_.pipeline) {}

// Step k takes the next images_per_step of the share, round it: steps in a row read different
// images while the share holds two steps' (the family requires it where they are evicted).
std::vector<std::size_t> DataFeed::images_of(std::uint64_t step) const {
  std::vector<std::size_t> out;
  const std::uint64_t first = step * images_per_step_;
  for (std::size_t i = 0; i < images_per_step_; ++i)
    out.push_back(share_[(first + i) % share_.size()]);
  return out;
}

void DataFeed::set_cache(std::uint64_t step) {
  const double resident = dataloader::set_cache_state(*spec_.images, images_of(step), spec_.cache);
  resident_[0] = resident_[1];
  resident_[1] = resident;
  set_up_to_ = static_cast<std::int64_t>(step);
}

void DataFeed::start(std::uint64_t step) {
  if (set_up_to_ < static_cast<std::int64_t>(step)) set_cache(step);  // no prepare() came first
  pipeline_.start_pass(images_of(step), step);
  running_ = true;
}

void DataFeed::prepare() {
  if (!running_) start(step_);
  if (set_up_to_ < static_cast<std::int64_t>(step_ + 1)) set_cache(step_ + 1);
}

double DataFeed::take() {
  const auto t = Clock::now();
  if (!running_) start(step_);
  pipeline_.take();
  if (++taken_ == batches_per_step_) end_pass();
  return since(t);
}

void DataFeed::release() {
  pipeline_.release();
}

// The step's last batch is taken: its pass's figures kept, the next step's pass started (the
// batch still held comes back to it at release()).
void DataFeed::end_pass() {
  const auto pass = pipeline_.finish_pass();
  ended_.busy_s =
      (pass.read_s + pass.decode_s + pass.augment_s + pass.batch_s) / spec_.pipeline.workers;
  ended_.resident = set_up_to_ == static_cast<std::int64_t>(step_) ? resident_[1] : resident_[0];
  if (pass.decode_errors > 0 && !pass.errors.empty())
    std::fprintf(stderr,
                 "preflight: rank %d: step data feed: %.0f images failed to decode (%s: %s)\n",
                 spec_.index, pass.decode_errors, pass.errors.front().name.c_str(),
                 pass.errors.front().reason.c_str());
  taken_ = 0;
  running_ = false;
  start(++step_);
}

}  // namespace preflight::step
