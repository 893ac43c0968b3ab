// psync: one pread (or pwrite) at a time, as fio's psync engine and IOR's POSIX backend do.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "storage/engine.hpp"

namespace preflight::storage {
namespace {

class PsyncEngine final : public Engine {
 public:
  std::string_view name() const override { return "psync"; }

  void run(const IoJob& job, Completions& out) override {
    if (buffer_bytes_ < job.block_bytes) {
      buffer_ = aligned_buffer(job.block_bytes);
      buffer_bytes_ = job.block_bytes;
    }
    for (const auto& b : job.blocks) {
      if (job.deadline && Clock::now() >= *job.deadline) return;
      if (job.write) out.fill(b, buffer_.get());
      const auto start = Clock::now();
      std::size_t got = 0;
      while (got < job.block_bytes) {
        const int fd = job.files[b.file].fd;
        const auto at = static_cast<off_t>(b.offset + got);
        const ssize_t n = job.write ? pwrite(fd, buffer_.get() + got, job.block_bytes - got, at)
                                    : pread(fd, buffer_.get() + got, job.block_bytes - got, at);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
          throw std::runtime_error(fmt::format(
              "{} of {} bytes at offset {}: {}", job.write ? "pwrite" : "pread", job.block_bytes,
              b.offset + got,
              n == 0 ? (job.write ? "nothing written" : "end of file") : std::strerror(errno)));
        got += static_cast<std::size_t>(n);
      }
      out.done(b, buffer_.get(), start, Clock::now());
    }
  }

 private:
  AlignedBuffer buffer_;
  std::size_t buffer_bytes_ = 0;
};

}  // namespace

std::unique_ptr<Engine> make_psync_engine() {
  return std::make_unique<PsyncEngine>();
}

}  // namespace preflight::storage
