// The step's data feed: each micro-batch's images from the dataloader family's pipeline (read,
// decode, random-resized crop to the model's image size, flip, normalise into a float32
// batch), so that a step fed by a loader pays what its loader does not hide. One pass of the
// pipeline per step over the next images of the rank's share of the data set (one shuffle,
// cut by rank, so that no two ranks read one image); the next step's pass starts as soon as a
// step has taken its last batch, so its workers prefetch across the step boundary as a
// loader's persistent workers do.
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
  // Untimed, before a step: the next step's images put in the cache state and their residency
  // measured (the step's own were, the step before; on the first, they are too, and its pass
  // starts here).
  void prepare();
  // The step's next batch; blocks until the loader has it ready. Returns the seconds waited.
  // After the step's last batch, the next step's pass starts.
  double take();
  // The batch taken last is done with (after its micro-batch's backward pass).
  void release();

  // Of the step whose last batch was taken last: the fraction of its images' bytes that was in
  // the page cache when its cache state was set; the workers' time building its batches,
  // summed, divided by the workers; the images that failed to decode.
  double resident_before() const { return ended_.resident; }
  double busy() const { return ended_.busy_s; }
  // The CPU seconds the workers' threads have used so far, every step together.
  double workers_cpu_s() const { return pipeline_.workers_cpu_s(); }

 private:
  struct StepFigures {
    double resident = 0, busy_s = 0;
  };
  std::vector<std::size_t> images_of(std::uint64_t step) const;
  void set_cache(std::uint64_t step);
  void start(std::uint64_t step);
  void end_pass();

  DataFeedSpec spec_;
  std::size_t images_per_step_;
  std::int64_t batches_per_step_;
  std::vector<std::size_t> share_;  // the rank's images, in the order the steps take them
  dataloader::Pipeline pipeline_;
  std::uint64_t step_ = 0;       // the step whose batches are taken next
  std::int64_t taken_ = 0;       // of them
  bool running_ = false;         // step_'s pass is in flight
  std::int64_t set_up_to_ = -1;  // the last step whose images were put in the cache state
  double resident_[2] = {0, 0};  // of steps set_up_to_ - 1 and set_up_to_
  StepFigures ended_;
};

}  // namespace preflight::step
