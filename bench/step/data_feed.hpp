// The step's data feed: each micro-batch's images from the dataloader family's pipeline (read,
// decode, random-resized crop to the model's image size, flip, normalise into a float32
// batch), so that a step fed by a loader pays what its loader does not hide. One pass of the
// pipeline per step, over the rank's share of a fresh shuffle; the next step's pass starts as
// soon as a step has taken its last batch, so its workers prefetch across the step boundary as
// a loader's persistent workers do.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dataloader/image_set.hpp"
#include "dataloader/pipeline.hpp"
#include "storage/cache_state.hpp"

namespace preflight::step {

struct DataFeedSpec {
  std::shared_ptr<const dataloader::ImageSet> images;  // null: no feed
  dataloader::PipelineSpec pipeline;  // batch_size: the micro-batch; crop: the image size
  storage::CacheState cache = storage::CacheState::kWarm;
  int index = 0, ranks = 1;  // the rank's share of the images: every ranks-th from index
};

class DataFeed {
 public:
  DataFeed(const DataFeedSpec& spec, std::int64_t batches_per_step);
  // The step's next batch; blocks until the loader has it ready. Returns the seconds waited.
  double take();
  // The batch taken last is done with (after its micro-batch's backward pass).
  void release();
  // After the step's last batch: ends its pass and starts the next step's (its images put in
  // the cache state first). Returns the seconds this took.
  double next_step();
  // The fraction of the images of the step that next_step() ended that was in the page cache
  // when its pass began.
  double resident_before() const { return ended_resident_; }
  // The seconds the workers spent building that step's batches, summed, over the workers.
  double busy() const { return ended_busy_; }
  // The CPU seconds the workers' threads have used so far, every step together.
  double workers_cpu_s() const { return pipeline_.workers_cpu_s(); }

 private:
  void start_pass();

  DataFeedSpec spec_;
  std::size_t images_per_step_;
  dataloader::Pipeline pipeline_;
  std::uint64_t epoch_ = 0;
  bool in_flight_ = false;
  double resident_ = 0, ended_resident_ = 0, ended_busy_ = 0;
};

}  // namespace preflight::step
