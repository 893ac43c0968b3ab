// One rank's data pipeline, one pass over its images at a time: a pool of worker threads, each
// building whole batches (read through a storage engine -> decode -> random-resized crop and
// flip -> normalise into the batch's contiguous buffer), a bounded number of batches ready
// ahead, and the rank's own thread as the accelerator: it takes each batch as it is ready and
// holds it for the emulated compute time (a sleep), as DLIO emulates training.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dataloader/image_set.hpp"

namespace preflight::dataloader {

struct PipelineSpec {
  std::string engine = "psync";
  int workers = 1;
  int batch_size = 32;
  int crop = 224;
  bool float_output = true;  // else uint8
  int prefetch = 2;          // batches ready ahead per worker
  double compute_per_batch_s = 0;
  std::uint64_t seed = 0;
  bool gpu_decode = false;   // JPEGs through nvJPEG (gpu_decoder.hpp), PNGs still libpng
  int local_rank = 0;        // gpu_decode: picks the rank's GPU
  bool pin_batches = false;  // batch buffers page-locked for the GPU (pinned_memory.hpp)
};

// What one pass measured on this rank; times are seconds, summed over the workers.
struct PassResult {
  double images = 0, bytes = 0;
  double read_s = 0, decode_s = 0, augment_s = 0, batch_s = 0;
  double compute_s = 0, stall_s = 0;
  double batch_p50_s = 0, batch_p95_s = 0;
  double decode_errors = 0;
  std::vector<BadImage> errors;            // the first few images that failed to decode
  std::vector<unsigned char> first_batch;  // batch 0's buffer, when asked to keep it
};

// The augmentation of one image in one epoch, the same whichever worker builds it.
std::uint64_t augment_seed(std::uint64_t seed, std::uint64_t epoch, std::size_t image);

// This rank's images of an epoch: a shuffle of all images (seeded by seed and epoch), of which
// the rank takes every ranks-th from its index on, batches * batch_size of them.
std::vector<std::size_t> epoch_order(std::size_t images, std::uint64_t seed, std::uint64_t epoch,
                                     int index, int ranks, std::size_t count);

// The pool's lasting parts, made once and kept from pass to pass as a loader's persistent
// workers are (PyTorch's persistent_workers, DALI's pipeline): each worker's engine, decoder
// and scratch images, and the batch buffers. So a pass times the pipeline's steady state, not
// the making of its parts.
class Pipeline {
 public:
  Pipeline(const ImageSet& set, PipelineSpec spec);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // Runs the pass over `order` (a multiple of batch_size images), the rank's thread taking
  // each batch and holding it for compute_per_batch_s, and returns its figures.
  PassResult run_pass(const std::vector<std::size_t>& order, std::uint64_t epoch,
                      bool keep_first_batch);

  // The same pass, its batches taken by the caller (the step's micro-batches): start_pass
  // starts the workers; take() blocks until the next batch is ready (the wait is the pass's
  // stall_s) and returns its buffer, valid until release(); finish_pass() after the last
  // take() joins the workers and returns the figures. One pass at a time, one batch held at a
  // time: the batch taken last may still be held across finish_pass() and the next
  // start_pass() (the next pass's workers fill the other buffers meanwhile).
  void start_pass(const std::vector<std::size_t>& order, std::uint64_t epoch);
  const unsigned char* take();
  void release();
  PassResult finish_pass();
  std::size_t batch_bytes() const;
  // The CPU seconds the workers' threads have spent building images, over every pass so far
  // (up to the last image each finished): safe to call while a pass runs.
  double workers_cpu_s() const;

 private:
  struct Parts;
  struct Pass;
  const ImageSet& set_;
  PipelineSpec spec_;
  std::unique_ptr<Parts> parts_;
  std::unique_ptr<Pass> pass_;
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::size_t held_ = kNone;  // the buffer the caller holds (take() to release())
};

// Builds one batch's images serially into `out` (the batch buffer's bytes), as a worker does;
// for the check of the first batch.
void build_reference(const ImageSet& set, const std::size_t* images, const PipelineSpec& spec,
                     std::uint64_t epoch, std::vector<unsigned char>& out);

}  // namespace preflight::dataloader
