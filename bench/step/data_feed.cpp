#include "step/data_feed.hpp"

#include <chrono>

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
      pipeline_(*spec_.images, spec_.pipeline) {}

void DataFeed::start_pass() {
  const auto order = dataloader::epoch_order(spec_.images->images.size(), spec_.pipeline.seed,
                                             epoch_, spec_.index, spec_.ranks, images_per_step_);
  resident_ = dataloader::set_cache_state(*spec_.images, order, spec_.cache);
  pipeline_.start_pass(order, epoch_);
  ++epoch_;
  in_flight_ = true;
}

double DataFeed::take() {
  const auto t = Clock::now();
  if (!in_flight_) start_pass();  // the first step: nothing was prefetched for it
  pipeline_.take();
  return since(t);
}

void DataFeed::release() {
  pipeline_.release();
}

double DataFeed::next_step() {
  const auto t = Clock::now();
  in_flight_ = false;
  const auto pass = pipeline_.finish_pass();
  ended_busy_ =
      (pass.read_s + pass.decode_s + pass.augment_s + pass.batch_s) / spec_.pipeline.workers;
  ended_resident_ = resident_;
  start_pass();
  return since(t);
}

}  // namespace preflight::step
