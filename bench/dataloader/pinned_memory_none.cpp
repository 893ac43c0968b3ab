// Without CUDA at build time nothing is pinned: the batch buffers are pageable.
#include <stdexcept>

#include "dataloader/pinned_memory.hpp"

namespace preflight::dataloader {

std::string why_batches_not_pinned() {
  return "preflight was built without CUDA";
}

PinnedRegion::PinnedRegion(void* data, std::size_t) : data_(data) {
  throw std::logic_error("dataloader: no pinning without CUDA");
}

PinnedRegion::~PinnedRegion() = default;

}  // namespace preflight::dataloader
