// io_uring (liburing): up to queue_depth reads (or writes) in flight per thread, as fio's
// io_uring engine with iodepth=N. Latency of one is from its submission to its completion being
// reaped.
#include <fmt/format.h>
#include <liburing.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "storage/engine.hpp"

namespace preflight::storage {
namespace {

class UringEngine final : public Engine {
 public:
  ~UringEngine() override {
    if (depth_ > 0) io_uring_queue_exit(&ring_);
  }
  std::string_view name() const override { return "io_uring"; }

  void run(const IoJob& job, Completions& out) override {
    setup(job.queue_depth, job.block_bytes);
    std::size_t next = 0, in_flight = 0;
    const std::size_t depth = static_cast<std::size_t>(depth_);
    while (next < job.blocks.size() || in_flight > 0) {
      const bool stop = job.deadline && Clock::now() >= *job.deadline;
      // As fio's io_uring engine submits (iodepth_batch_submit=1): each read or write as soon
      // as its slot is free, with GETEVENTS, which also posts what has completed since. The
      // refill in one call per round took 608 io_uring_enter for 4096 random 16 KiB reads at
      // depth 16 (fio 4097): on average 6.7 slots stood empty until each refill.
      while (!stop && next < job.blocks.size() && in_flight < depth) {
        const std::size_t slot = free_.back();
        free_.pop_back();
        Slot& s = slots_[slot];
        s.block = job.blocks[next++];
        s.done = 0;
        if (job.write) out.fill(s.block, buffer(slot));
        queue(job, slot);
        submit();
        ++in_flight;
      }
      if (in_flight == 0) break;
      // Full, or nothing left to start: wait for one completion, then reap all there are
      // (fio's iodepth_batch_complete_min=1, iodepth_batch_complete_max=iodepth).
      io_uring_cqe* cqe = nullptr;
      const int rc = io_uring_wait_cqe(&ring_, &cqe);
      if (rc < 0)
        throw std::runtime_error(fmt::format("io_uring_wait_cqe: {}", std::strerror(-rc)));
      do {
        const auto slot = static_cast<std::size_t>(io_uring_cqe_get_data64(cqe));
        const int res = cqe->res;
        io_uring_cqe_seen(&ring_, cqe);
        Slot& s = slots_[slot];
        if (res <= 0)
          throw std::runtime_error(fmt::format(
              "io_uring {} of {} bytes at offset {}: {}", job.write ? "write" : "read",
              job.block_bytes, s.block.offset + s.done,
              res == 0 ? (job.write ? "nothing written" : "end of file") : std::strerror(-res)));
        s.done += static_cast<std::size_t>(res);
        if (s.done < job.block_bytes) {  // a short read or write: the rest
          queue(job, slot, /*restart_clock=*/false);
          submit();
        } else {
          out.done(s.block, buffer(slot), s.submitted, Clock::now());
          free_.push_back(slot);
          --in_flight;
        }
      } while (io_uring_peek_cqe(&ring_, &cqe) == 0);
    }
  }

 private:
  struct Slot {
    BlockRef block;
    std::size_t done = 0;
    Clock::time_point submitted;
  };

  void setup(int depth, std::size_t block_bytes) {
    // A ring belongs to the thread that made it (SINGLE_ISSUER). The main thread keeps its
    // ring from iteration to iteration; a reader thread lives for one iteration and makes its
    // own (thread ids are reused, so no ring is handed on: tens of microseconds, timed).
    const bool main_thread = gettid() == getpid();
    if (depth != depth_ || !main_thread || owner_ != gettid()) {
      if (depth_ > 0) io_uring_queue_exit(&ring_);
      depth_ = 0;
      // As fio sets its ring up: completion work runs in the submitting thread when it reaps
      // (COOP_TASKRUN, SINGLE_ISSUER, DEFER_TASKRUN), with fallbacks for older kernels.
      int rc = -EINVAL;
      for (unsigned flags :
           {IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
            unsigned{IORING_SETUP_COOP_TASKRUN}, 0u}) {
        rc = io_uring_queue_init(static_cast<unsigned>(depth), &ring_, flags);
        if (rc != -EINVAL) break;
      }
      if (rc < 0)
        throw std::runtime_error(
            fmt::format("io_uring_queue_init({}): {}", depth, std::strerror(-rc)));
      depth_ = depth;
      owner_ = gettid();
    }
    if (block_bytes_ != block_bytes || slots_.size() != static_cast<std::size_t>(depth)) {
      buffers_ = aligned_buffer(block_bytes * static_cast<std::size_t>(depth));
      block_bytes_ = block_bytes;
      slots_.assign(static_cast<std::size_t>(depth), Slot{});
    }
    free_.clear();
    for (std::size_t i = slots_.size(); i-- > 0;) free_.push_back(i);
  }

  std::byte* buffer(std::size_t slot) { return buffers_.get() + slot * block_bytes_; }

  void queue(const IoJob& job, std::size_t slot, bool restart_clock = true) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) throw std::logic_error("io_uring: no free submission entry");
    Slot& s = slots_[slot];
    const int fd = job.files[s.block.file].fd;
    const auto bytes = static_cast<unsigned>(job.block_bytes - s.done);
    if (job.write)
      io_uring_prep_write(sqe, fd, buffer(slot) + s.done, bytes, s.block.offset + s.done);
    else
      io_uring_prep_read(sqe, fd, buffer(slot) + s.done, bytes, s.block.offset + s.done);
    io_uring_sqe_set_data64(sqe, slot);
    if (restart_clock) s.submitted = Clock::now();
  }

  void submit() {
    const int rc = io_uring_submit_and_get_events(&ring_);
    if (rc < 0) throw std::runtime_error(fmt::format("io_uring_submit: {}", std::strerror(-rc)));
  }

  io_uring ring_{};
  int depth_ = 0;
  pid_t owner_ = 0;  // kernel thread id of the thread that made the ring
  std::size_t block_bytes_ = 0;
  AlignedBuffer buffers_;
  std::vector<Slot> slots_;
  std::vector<std::size_t> free_;
};

}  // namespace

std::unique_ptr<Engine> make_uring_engine() {
  return std::make_unique<UringEngine>();
}

}  // namespace preflight::storage
