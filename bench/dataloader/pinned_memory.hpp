// Batch buffers page-locked for the GPU, as a loader's pin_memory makes them: where the rank
// has a GPU, cudaHostRegister, so the batch's copy to the device is one DMA with no staging
// copy. Built with CUDA (pinned_memory_cuda.cpp) or without it (pinned_memory_none.cpp).
#pragma once

#include <cstddef>
#include <string>

#include "cpu/page_aligned.hpp"

namespace preflight::dataloader {

// cudaHostRegister pins whole pages: a buffer to be pinned starts on a page boundary
// (kernels::PageVector) and spans whole pages, so that no page it shares with other data is
// pinned with it, and the call does not depend on the driver rounding for us.
constexpr std::size_t pinnable_bytes(std::size_t bytes) {
  return (bytes + kernels::kPageBytes - 1) / kernels::kPageBytes * kernels::kPageBytes;
}

// "" when this rank can pin host memory (it sees a GPU); else why not.
std::string why_batches_not_pinned();

// One buffer registered with CUDA while it lives: `data` page-aligned, `bytes` whole pages
// (std::logic_error otherwise). Throws std::runtime_error with CUDA's message when registration
// fails on a rank that has a GPU.
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
