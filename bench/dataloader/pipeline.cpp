#include "dataloader/pipeline.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <pthread.h>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>

#include <ctime>
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
#include "preflight/common/stats.hpp"
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

// The calling thread's CPU clock, readable from other threads while it lives.
clockid_t thread_clock() {
  clockid_t id = CLOCK_THREAD_CPUTIME_ID;
  if (pthread_getcpuclockid(pthread_self(), &id) != 0) return CLOCK_THREAD_CPUTIME_ID;
  return id;
}

// A CPU clock in nanoseconds; -1 when it cannot be read (its thread has ended).
std::int64_t cpu_ns_of(clockid_t clock) {
  timespec t{};
  if (clock_gettime(clock, &t) != 0) return -1;
  return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

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
    if (spec.gpu_decode) gpu_ = std::make_unique<GpuJpegDecoder>(spec.local_rank);
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
  // The worker thread's CPU time in build(), over every pass, read by the rank's thread while
  // the worker runs (cpu_now): the images finished, and the one in progress from its start on
  // the thread's CPU clock.
  void image_started() {
    clock_.store(thread_clock(), std::memory_order_relaxed);
    image_start_ns_.store(cpu_ns_of(clock_.load()), std::memory_order_release);
  }
  void image_done() {
    cpu_ns_.fetch_add(cpu_ns_of(clock_.load()) - image_start_ns_.load(), std::memory_order_release);
    image_start_ns_.store(-1, std::memory_order_release);
  }
  std::int64_t cpu_now() const {
    for (;;) {
      const std::int64_t done = cpu_ns_.load(std::memory_order_acquire);
      const std::int64_t start = image_start_ns_.load(std::memory_order_acquire);
      if (done != cpu_ns_.load(std::memory_order_acquire)) continue;  // an image ended meanwhile
      // The thread may end between the two loads: its clock is then gone (-1), and the image
      // is counted by the next read.
      const std::int64_t now = start < 0 ? -1 : cpu_ns_of(clock_.load());
      return done + (now < 0 ? 0 : now - start);
    }
  }
  std::vector<BadImage> errors;
  std::vector<double> batch_latency_s;

 private:
  std::atomic<std::int64_t> cpu_ns_{0}, image_start_ns_{-1};
  std::atomic<clockid_t> clock_{CLOCK_THREAD_CPUTIME_ID};

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

// One batch of a pass: its buffer, published by the worker that started it, and its images,
// claimed one at a time by that worker and, once no batch is left to start, by any worker.
struct BatchWork {
  std::atomic<bool> started{false};  // buffer and start are set
  std::size_t buffer = 0;
  Clock::time_point start;
  std::atomic<std::size_t> next_image{0};
  std::atomic<std::size_t> images_done{0};
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
  std::vector<kernels::PageVector<unsigned char>> buffers;  // whole pages, to be pinned
  std::vector<std::unique_ptr<PinnedRegion>> pins;          // after buffers: unregistered first
};

Pipeline::Pipeline(const ImageSet& set, PipelineSpec spec)
    : set_(set), spec_(std::move(spec)), parts_(std::make_unique<Parts>()) {
  const std::size_t bytes = slot_bytes(spec_) * static_cast<std::size_t>(spec_.batch_size);
  const auto buffers = static_cast<std::size_t>(spec_.workers * spec_.prefetch);
  // Touched here, once: a pass must not pay for faulting in its batch buffers.
  parts_->buffers.assign(buffers, kernels::PageVector<unsigned char>(pinnable_bytes(bytes)));
  if (spec_.pin_batches)
    for (auto& b : parts_->buffers)
      parts_->pins.push_back(std::make_unique<PinnedRegion>(b.data(), b.size()));
  for (int w = 0; w < spec_.workers; ++w)
    parts_->workers.push_back(std::make_unique<Worker>(set_, spec_));
}

// One pass in flight: the workers' threads, the buffers free and ready, the failure.
struct Pipeline::Pass {
  std::vector<std::size_t> order;
  std::uint64_t epoch = 0;
  std::size_t batches = 0, taken = 0;
  std::unique_ptr<BatchWork[]> work;  // one per batch
  BlockingQueue<std::size_t> free_buffers;
  BlockingQueue<Ready> ready;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> abandoned{false};
  std::mutex failure_mutex;
  std::string failure;  // a read that failed: the pass ends with it
  std::vector<std::thread> threads;
  Ready held;
  double stall_s = 0;
};

Pipeline::~Pipeline() {
  if (!pass_) return;
  // A pass abandoned (the caller threw): let the workers run out so they can be joined.
  pass_->abandoned = true;
  for (std::size_t b = 0; b < parts_->buffers.size(); ++b) pass_->free_buffers.push(b);
  for (auto& t : pass_->threads) t.join();
}

double Pipeline::workers_cpu_s() const {
  std::int64_t ns = 0;
  for (const auto& w : parts_->workers) ns += w->cpu_now();
  return static_cast<double>(ns) * 1e-9;
}

std::size_t Pipeline::batch_bytes() const {
  return slot_bytes(spec_) * static_cast<std::size_t>(spec_.batch_size);
}

void Pipeline::start_pass(const std::vector<std::size_t>& order, std::uint64_t epoch) {
  if (pass_) throw std::logic_error("Pipeline::start_pass: a pass is in flight");
  pass_ = std::make_unique<Pass>();
  Pass& p = *pass_;
  p.order = order;
  p.epoch = epoch;
  const std::size_t batch = static_cast<std::size_t>(spec_.batch_size), slot = slot_bytes(spec_);
  p.batches = order.size() / batch;
  auto& buffer = parts_->buffers;
  for (std::size_t b = 0; b < buffer.size(); ++b)
    if (b != held_) p.free_buffers.push(b);  // the caller's batch comes back at release()
  p.work = std::make_unique<BatchWork[]>(p.batches);
  // Builds the unclaimed images of batch b; whoever builds its last image hands it over.
  auto build_images = [&p, &buffer, batch, slot](Worker& w, std::size_t b) {
    BatchWork& bw = p.work[b];
    for (std::size_t i; (i = bw.next_image.fetch_add(1)) < batch;) {
      try {
        w.image_started();
        w.build(p.order[b * batch + i], p.epoch, buffer[bw.buffer].data() + i * slot);
        w.image_done();
      } catch (const std::exception& e) {
        std::lock_guard lock(p.failure_mutex);
        if (p.failure.empty()) p.failure = e.what();
      }
      if (bw.images_done.fetch_add(1, std::memory_order_acq_rel) + 1 == batch) {
        w.batch_latency_s.push_back(since(bw.start));
        p.ready.push({bw.buffer, b});
      }
    }
  };
  // Each worker starts whole batches, as a PyTorch worker builds its own; once none is left to
  // start, it helps finish the ones in flight image by image, so that a pass does not end with
  // one worker building the last batch while the others wait (on 64 images in batches of 8,
  // that end was a batch of idle time every 8 batches, against a training epoch's one).
  auto work = [&p, build_images](Worker& w) {
    for (std::size_t b; (b = p.next.fetch_add(1)) < p.batches;) {
      BatchWork& bw = p.work[b];
      bw.buffer = p.free_buffers.pop();
      if (p.abandoned) return;
      bw.start = Clock::now();
      bw.started.store(true, std::memory_order_release);
      build_images(w, b);
    }
    for (std::size_t b = 0; b < p.batches; ++b)
      if (p.work[b].started.load(std::memory_order_acquire)) build_images(w, b);
  };
  for (auto& w : parts_->workers) {
    w->start_pass();
    p.threads.emplace_back(work, std::ref(*w));
  }
}

const unsigned char* Pipeline::take() {
  Pass& p = *pass_;
  if (p.taken == p.batches) throw std::logic_error("Pipeline::take: the pass has no more batches");
  const auto t = Clock::now();
  if (held_ != kNone) throw std::logic_error("Pipeline::take: the batch taken last is held");
  p.held = p.ready.pop();
  p.stall_s += since(t);
  ++p.taken;
  held_ = p.held.buffer;
  return parts_->buffers[held_].data();
}

void Pipeline::release() {
  if (held_ == kNone) throw std::logic_error("Pipeline::release: no batch is held");
  if (pass_) pass_->free_buffers.push(held_);  // else the next pass starts with it free
  held_ = kNone;
}

PassResult Pipeline::finish_pass() {
  std::unique_ptr<Pass> done = std::move(pass_);
  for (auto& t : done->threads) t.join();
  if (!done->failure.empty()) throw std::runtime_error(done->failure);
  PassResult r;
  r.stall_s = done->stall_s;
  std::vector<double> latency;
  for (const auto& w : parts_->workers) {
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

PassResult Pipeline::run_pass(const std::vector<std::size_t>& order, std::uint64_t epoch,
                              bool keep_first_batch) {
  start_pass(order, epoch);
  const std::size_t batches = pass_->batches;
  std::vector<unsigned char> first;
  double compute_s = 0;
  for (std::size_t k = 0; k < batches; ++k) {
    const unsigned char* data = take();
    if (keep_first_batch && pass_->held.batch == 0) first.assign(data, data + batch_bytes());
    if (spec_.compute_per_batch_s > 0) {
      const auto t = Clock::now();
      std::this_thread::sleep_until(t + std::chrono::duration<double>(spec_.compute_per_batch_s));
      compute_s += since(t);
    }
    release();
  }
  PassResult r = finish_pass();
  r.compute_s = compute_s;
  r.first_batch = std::move(first);
  return r;
}

}  // namespace preflight::dataloader
