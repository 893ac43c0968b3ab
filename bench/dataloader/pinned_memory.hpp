// Batch buffers page-locked for the GPU, as a loader's pin_memory makes them: where the rank
// has a GPU, cudaHostRegister, so the batch's copy to the device is one DMA with no staging
// copy. Built with CUDA (pinned_memory_cuda.cpp) or without it (pinned_memory_none.cpp).
#pragma once

#include <cstddef>
#include <string>

namespace preflight::dataloader {

// "" when this rank can pin host memory (it sees a GPU); else why not.
std::string why_batches_not_pinned();

// One buffer registered with CUDA while it lives. Throws std::runtime_error with CUDA's
// message when registration fails on a rank that has a GPU.
class PinnedRegion {
 public:
  PinnedRegion(void* data, std::size_t bytes);
  ~PinnedRegion();
  PinnedRegion(const PinnedRegion&) = delete;
  PinnedRegion& operator=(const PinnedRegion&) = delete;

 private:
  void* data_;
};

}  // namespace preflight::dataloader
