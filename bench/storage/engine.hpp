// How one thread reads (storage, a checkpoint's restore) or writes (a checkpoint's save) its
// blocks: one engine per file (psync, io_uring, mmap) behind this interface, like IOR's
// aiori-*.c and fio's ioengines.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace preflight::storage {

using Clock = std::chrono::steady_clock;

// An open file a thread reads from.
struct FileRef {
  int fd = -1;
  std::uint64_t size = 0;  // bytes
};

// One read: block_bytes at `offset` of files[file].
struct BlockRef {
  std::uint32_t file = 0;
  std::uint64_t offset = 0;
};

// Where completions go: one call per finished read or write, in completion order.
class Completions {
 public:
  virtual ~Completions() = default;
  // A write job only: fills `data` (block_bytes) with what the block must hold, before it is
  // submitted.
  virtual void fill(const BlockRef& /*block*/, std::byte* /*data*/) {}
  // `data` holds the block_bytes just read (or written); `submitted` and `completed` on Clock.
  virtual void done(const BlockRef& block, const std::byte* data, Clock::time_point submitted,
                    Clock::time_point completed) = 0;
};

struct IoJob {
  std::span<const FileRef> files;
  std::span<const BlockRef> blocks;  // in the order to read (or write) them
  std::size_t block_bytes = 0;
  int queue_depth = 1;
  bool direct = false;                        // files opened with O_DIRECT
  bool write = false;                         // write the blocks (engine_supports_write)
  std::optional<Clock::time_point> deadline;  // stonewall: no new read after it
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string_view name() const = 0;
  // Untimed, before each iteration, after the cache state is set (mmap maps the files here).
  virtual void attach(std::span<const FileRef> /*files*/, bool /*random*/) {}
  // Untimed, before the cache state is set again (mmap unmaps, so eviction can work).
  virtual void detach() {}
  // Reads (or writes) job.blocks in order, at most queue_depth in flight, until done or the
  // deadline; throws std::runtime_error naming the failing read or write.
  virtual void run(const IoJob& job, Completions& out) = 0;
};

// The engine table (engines.cpp): name -> maker; nullptr for an unknown name. Each engine is
// one file (psync_engine.cpp, uring_engine.cpp, mmap_engine.cpp) defining its maker, which
// engines.cpp declares and lists.
std::unique_ptr<Engine> make_engine(std::string_view name);
std::vector<std::string> engine_names();
bool engine_supports_direct(std::string_view name);
bool engine_supports_queue_depth(std::string_view name);
bool engine_supports_write(std::string_view name);  // mmap maps read-only

// Buffers aligned for O_DIRECT (4 KiB), freed with free().
struct AlignedFree {
  void operator()(std::byte* p) const;
};
using AlignedBuffer = std::unique_ptr<std::byte[], AlignedFree>;
AlignedBuffer aligned_buffer(std::size_t bytes);

}  // namespace preflight::storage
