#include <array>
#include <cstdlib>
#include <new>
#include <utility>

#include "storage/engine.hpp"

namespace preflight::storage {

// One line each here and one in kEngines: a new engine touches nothing else in the code.
std::unique_ptr<Engine> make_psync_engine();
std::unique_ptr<Engine> make_uring_engine();
std::unique_ptr<Engine> make_mmap_engine();

namespace {

struct EngineEntry {
  std::string_view name;
  std::unique_ptr<Engine> (*make)();
  bool direct;       // can read with O_DIRECT
  bool queue_depth;  // more than one read in flight per thread
  bool write;        // writes too (a checkpoint's save)
};

constexpr std::array kEngines = {
    EngineEntry{"psync", &make_psync_engine, true, false, true},
    EngineEntry{"io_uring", &make_uring_engine, true, true, true},
    EngineEntry{"mmap", &make_mmap_engine, false, false, false},
};

const EngineEntry* find(std::string_view name) {
  for (const auto& e : kEngines)
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace

std::unique_ptr<Engine> make_engine(std::string_view name) {
  const auto* e = find(name);
  return e != nullptr ? e->make() : nullptr;
}

std::vector<std::string> engine_names() {
  std::vector<std::string> out;
  for (const auto& e : kEngines) out.emplace_back(e.name);
  return out;
}

bool engine_supports_direct(std::string_view name) {
  const auto* e = find(name);
  return e != nullptr && e->direct;
}

bool engine_supports_queue_depth(std::string_view name) {
  const auto* e = find(name);
  return e != nullptr && e->queue_depth;
}

bool engine_supports_write(std::string_view name) {
  const auto* e = find(name);
  return e != nullptr && e->write;
}

void AlignedFree::operator()(std::byte* p) const {
  std::free(p);
}

AlignedBuffer aligned_buffer(std::size_t bytes) {
  void* p = nullptr;
  if (posix_memalign(&p, 4096, bytes == 0 ? 4096 : bytes) != 0) throw std::bad_alloc();
  return AlignedBuffer(static_cast<std::byte*>(p));
}

}  // namespace preflight::storage
