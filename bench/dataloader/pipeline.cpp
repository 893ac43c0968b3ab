#include "dataloader/pipeline.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <thread>

#include "cpu/image.hpp"
#include "cpu/splitmix.hpp"
#include "dataloader/gpu_decoder.hpp"
#include "dataloader/pinned_memory.hpp"
#include "harness/stats.hpp"
#include "storage/engine.hpp"

namespace preflight::dataloader {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kNamedErrors = 5;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

constexpr std::uint64_t mix(std::uint64_t x) {
  return kernels::splitmix(x);
}

// A queue of at most `capacity` items; pop blocks until one is there.
template <typename T>
class BlockingQueue {
 public:
  void push(T v) {
    {
      std::lock_guard lock(mutex_);
      items_.push_back(std::move(v));
    }
    ready_.notify_one();
  }
  T pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return !items_.empty(); });
    T v = std::move(items_.front());
    items_.pop_front();
    return v;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<T> items_;
};

// Copies what the engine read into the worker's buffer of encoded bytes.
class CopyOut final : public storage::Completions {
 public:
  explicit CopyOut(std::vector<unsigned char>& to) : to_(to) {}
  void done(const storage::BlockRef&, const std::byte* data, storage::Clock::time_point,
            storage::Clock::time_point) override {
    std::memcpy(to_.data(), data, to_.size());
  }

 private:
  std::vector<unsigned char>& to_;
};

std::size_t slot_bytes(const PipelineSpec& spec) {
  const auto pixels = static_cast<std::size_t>(spec.crop) * static_cast<std::size_t>(spec.crop);
  return pixels * 3 * (spec.float_output ? sizeof(float) : 1);
}

// What one worker thread holds: its engine, decoder and scratch images, and its stage times.
class Worker {
 public:
  Worker(const ImageSet& set, const PipelineSpec& spec)
      : set_(set), spec_(spec), engine_(storage::make_engine(spec.engine)) {
    if (!engine_) throw std::runtime_error("unknown storage engine " + spec.engine);
    tile_.resize(static_cast<std::size_t>(spec.crop) * static_cast<std::size_t>(spec.crop) * 3);
    if (spec.gpu_decode) gpu_ = std::make_unique<GpuJpegDecoder>();
  }
  ~Worker() {
    for (int fd : shard_fds_)
      if (fd >= 0) close(fd);
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Builds image `index` of `epoch` into `slot` (slot_bytes); false when it could not be
  // decoded.
  bool build(std::size_t index, std::uint64_t epoch, unsigned char* slot) {
    const ImageRef& img = set_.images[index];
    auto t = Clock::now();
    read(img);
    read_s += since(t);
    bytes += static_cast<double>(img.size);
    t = Clock::now();
    const std::string error = decode();
    decode_s += since(t);
    if (!error.empty()) {
      ++decode_errors;
      if (errors.size() < kNamedErrors) errors.push_back({img.name, error});
      std::memset(slot, 0, slot_bytes(spec_));
      return false;
    }
    t = Clock::now();
    const auto crop = kernels::random_resized_crop(decoded_.width, decoded_.height,
                                                   augment_seed(spec_.seed, epoch, index));
    kernels::resize_crop(decoded_, crop, spec_.crop, tile_.data());
    augment_s += since(t);
    t = Clock::now();
    if (spec_.float_output)
      kernels::normalise(tile_.data(), tile_.size() / 3, reinterpret_cast<float*>(slot));
    else
      std::memcpy(slot, tile_.data(), tile_.size());
    batch_s += since(t);
    ++images;
    return true;
  }

  // A new pass's figures start from zero; the engine, decoder and scratch images stay.
  void start_pass() {
    images = bytes = read_s = decode_s = augment_s = batch_s = decode_errors = 0;
    errors.clear();
    batch_latency_s.clear();
  }

  double images = 0, bytes = 0, read_s = 0, decode_s = 0, augment_s = 0, batch_s = 0;
  double decode_errors = 0;
  std::vector<BadImage> errors;
  std::vector<double> batch_latency_s;

 private:
  // Through the storage engine: one read of the image's bytes, from its file (opened for it,
  // as a loader of single files does) or its shard (opened once per worker).
  void read(const ImageRef& img) {
    const bool shards = set_.layout == DataLayout::kShards;
    int fd = shards ? shard_fd(img.file) : open(set_.files[img.file].c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      throw std::runtime_error(
          fmt::format("cannot open {}: {}", set_.files[img.file], std::strerror(errno)));
    encoded_.resize(img.size);
    const storage::FileRef file{fd, img.offset + img.size};
    const storage::BlockRef block{0, img.offset};
    storage::IoJob job;
    job.files = {&file, 1};
    job.blocks = {&block, 1};
    job.block_bytes = img.size;
    CopyOut out(encoded_);
    try {
      engine_->run(job, out);
    } catch (const std::exception& e) {
      if (!shards) close(fd);
      throw std::runtime_error(fmt::format("reading {}: {}", img.name, e.what()));
    }
    if (!shards) close(fd);
  }

  int shard_fd(std::uint32_t file) {
    if (shard_fds_.size() <= file) shard_fds_.resize(file + 1, -1);
    int& fd = shard_fds_[file];
    if (fd < 0) fd = open(set_.files[file].c_str(), O_RDONLY | O_CLOEXEC);
    return fd;
  }

  std::string decode() {
    switch (kernels::sniff_format(encoded_.data(), encoded_.size())) {
      case kernels::ImageFormat::kJpeg:
        return gpu_ ? gpu_->decode(encoded_.data(), encoded_.size(), decoded_)
                    : jpeg_.decode(encoded_.data(), encoded_.size(), decoded_);
      case kernels::ImageFormat::kPng:
        return kernels::decode_png(encoded_.data(), encoded_.size(), decoded_);
      case kernels::ImageFormat::kUnknown:
        break;
    }
    return "neither JPEG nor PNG (bad signature)";
  }

  const ImageSet& set_;
  const PipelineSpec& spec_;
  std::unique_ptr<storage::Engine> engine_;
  kernels::JpegDecoder jpeg_;
  std::unique_ptr<GpuJpegDecoder> gpu_;
  kernels::Rgb8 decoded_;
  std::vector<unsigned char> encoded_, tile_;
  std::vector<int> shard_fds_;
};

struct Ready {
  std::size_t buffer = 0;
  std::size_t batch = 0;
};

}  // namespace

std::uint64_t augment_seed(std::uint64_t seed, std::uint64_t epoch, std::size_t image) {
  return mix(mix(seed ^ 0xA5A5A5A5ull) ^ mix(epoch) ^ (static_cast<std::uint64_t>(image) << 1));
}

std::vector<std::size_t> epoch_order(std::size_t images, std::uint64_t seed, std::uint64_t epoch,
                                     int index, int ranks, std::size_t count) {
  std::vector<std::size_t> all(images);
  std::iota(all.begin(), all.end(), std::size_t{0});
  std::uint64_t state = mix(seed) ^ mix(epoch + 1);
  for (std::size_t i = images; i > 1; --i) {
    state = mix(state);
    std::swap(all[i - 1], all[state % i]);
  }
  std::vector<std::size_t> mine;
  for (std::size_t i = static_cast<std::size_t>(index); i < images && mine.size() < count;
       i += static_cast<std::size_t>(ranks))
    mine.push_back(all[i]);
  return mine;
}

void build_reference(const ImageSet& set, const std::size_t* images, const PipelineSpec& spec,
                     std::uint64_t epoch, std::vector<unsigned char>& out) {
  Worker w(set, spec);
  const std::size_t slot = slot_bytes(spec);
  out.assign(slot * static_cast<std::size_t>(spec.batch_size), 0);
  for (int i = 0; i < spec.batch_size; ++i)
    w.build(images[i], epoch, out.data() + slot * static_cast<std::size_t>(i));
}

struct Pipeline::Parts {
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<std::vector<unsigned char>> buffers;
  std::vector<std::unique_ptr<PinnedRegion>> pins;  // after buffers: unregistered first
};

Pipeline::Pipeline(const ImageSet& set, PipelineSpec spec)
    : set_(set), spec_(std::move(spec)), parts_(std::make_unique<Parts>()) {
  const std::size_t bytes = slot_bytes(spec_) * static_cast<std::size_t>(spec_.batch_size);
  const auto buffers = static_cast<std::size_t>(spec_.workers * spec_.prefetch);
  // Touched here, once: a pass must not pay for faulting in its batch buffers.
  parts_->buffers.assign(buffers, std::vector<unsigned char>(bytes));
  if (spec_.pin_batches)
    for (auto& b : parts_->buffers)
      parts_->pins.push_back(std::make_unique<PinnedRegion>(b.data(), b.size()));
  for (int w = 0; w < spec_.workers; ++w)
    parts_->workers.push_back(std::make_unique<Worker>(set_, spec_));
}

Pipeline::~Pipeline() = default;

PassResult Pipeline::run_pass(const std::vector<std::size_t>& order, std::uint64_t epoch,
                              bool keep_first_batch) {
  const std::size_t batch = static_cast<std::size_t>(spec_.batch_size);
  const std::size_t batches = order.size() / batch, slot = slot_bytes(spec_);
  auto& buffer = parts_->buffers;
  auto& workers = parts_->workers;
  BlockingQueue<std::size_t> free_buffers;
  BlockingQueue<Ready> ready;
  for (std::size_t b = 0; b < buffer.size(); ++b) free_buffers.push(b);
  std::atomic<std::size_t> next{0};
  std::mutex failure_mutex;
  std::string failure;  // a read that failed: the pass ends with it
  auto work = [&](Worker& w) {
    for (std::size_t b; (b = next.fetch_add(1)) < batches;) {
      const std::size_t into = free_buffers.pop();
      const auto start = Clock::now();
      try {
        for (std::size_t i = 0; i < batch; ++i)
          w.build(order[b * batch + i], epoch, buffer[into].data() + i * slot);
      } catch (const std::exception& e) {
        std::lock_guard lock(failure_mutex);
        if (failure.empty()) failure = e.what();
      }
      w.batch_latency_s.push_back(since(start));
      ready.push({into, b});
    }
  };
  std::vector<std::thread> threads;
  for (auto& w : workers) {
    w->start_pass();
    threads.emplace_back(work, std::ref(*w));
  }
  PassResult r;
  for (std::size_t k = 0; k < batches; ++k) {
    auto t = Clock::now();
    const Ready got = ready.pop();
    r.stall_s += since(t);
    if (keep_first_batch && got.batch == 0) r.first_batch = buffer[got.buffer];
    if (spec_.compute_per_batch_s > 0) {
      t = Clock::now();
      std::this_thread::sleep_until(t + std::chrono::duration<double>(spec_.compute_per_batch_s));
      r.compute_s += since(t);
    }
    free_buffers.push(got.buffer);
  }
  for (auto& t : threads) t.join();
  if (!failure.empty()) throw std::runtime_error(failure);
  std::vector<double> latency;
  for (const auto& w : workers) {
    r.images += w->images;
    r.bytes += w->bytes;
    r.read_s += w->read_s;
    r.decode_s += w->decode_s;
    r.augment_s += w->augment_s;
    r.batch_s += w->batch_s;
    r.decode_errors += w->decode_errors;
    for (const auto& e : w->errors)
      if (r.errors.size() < kNamedErrors) r.errors.push_back(e);
    latency.insert(latency.end(), w->batch_latency_s.begin(), w->batch_latency_s.end());
  }
  std::sort(latency.begin(), latency.end());
  if (!latency.empty()) {
    r.batch_p50_s = quantile_sorted(latency, 0.5);
    r.batch_p95_s = quantile_sorted(latency, 0.95);
  }
  return r;
}

}  // namespace preflight::dataloader
