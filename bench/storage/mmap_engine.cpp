// mmap: the files are mapped (untimed) and each read copies one block out of the mapping into a
// buffer, so page faults and readahead are timed, as in fio's mmap engine.
#include <fmt/format.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "storage/engine.hpp"

namespace preflight::storage {
namespace {

class MmapEngine final : public Engine {
 public:
  ~MmapEngine() override { detach(); }
  std::string_view name() const override { return "mmap"; }

  void attach(std::span<const FileRef> files, bool random) override {
    detach();
    for (const auto& f : files) {
      void* p = mmap(nullptr, f.size, PROT_READ, MAP_SHARED, f.fd, 0);
      if (p == MAP_FAILED)
        throw std::runtime_error(fmt::format("mmap of {} bytes: {}", f.size, std::strerror(errno)));
      madvise(p, f.size, random ? MADV_RANDOM : MADV_SEQUENTIAL);
      maps_.push_back({static_cast<std::byte*>(p), f.size});
    }
  }

  void detach() override {
    for (const auto& m : maps_) munmap(m.base, m.size);
    maps_.clear();
  }

  void run(const IoJob& job, Completions& out) override {
    if (maps_.size() != job.files.size())
      throw std::logic_error("mmap engine: run() without attach() to the same files");
    if (job.write) throw std::logic_error("mmap engine: the files are mapped read-only");
    if (buffer_bytes_ < job.block_bytes) {
      buffer_ = aligned_buffer(job.block_bytes);
      buffer_bytes_ = job.block_bytes;
    }
    for (const auto& b : job.blocks) {
      if (job.deadline && Clock::now() >= *job.deadline) return;
      const auto start = Clock::now();
      std::memcpy(buffer_.get(), maps_[b.file].base + b.offset, job.block_bytes);
      out.done(b, buffer_.get(), start, Clock::now());
    }
  }

 private:
  struct Map {
    std::byte* base;
    std::size_t size;
  };
  std::vector<Map> maps_;
  AlignedBuffer buffer_;
  std::size_t buffer_bytes_ = 0;
};

}  // namespace

std::unique_ptr<Engine> make_mmap_engine() {
  return std::make_unique<MmapEngine>();
}

}  // namespace preflight::storage
