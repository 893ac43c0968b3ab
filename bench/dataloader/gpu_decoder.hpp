// JPEG decode on the GPU with nvJPEG, loaded with dlopen at run time (the CUDA toolkit of the
// build machines has no nvJPEG header or library; a user's node may have a GPU without it). The
// image is decoded into device memory and copied back as 8-bit RGB, so the crop, flip and
// normalise that follow are the CPU pipeline's. Built with CUDA (gpu_decoder.cpp) or without it
// (gpu_decoder_none.cpp, which says so).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "cpu/image.hpp"

namespace preflight::dataloader {

class GpuJpegDecoder {
 public:
  // Loads nvJPEG, makes a handle, a decode state and a stream on the rank's GPU (its local rank
  // modulo the GPUs it sees, gpu/device_choice.hpp). Never throws: see why_not().
  explicit GpuJpegDecoder(int local_rank);
  ~GpuJpegDecoder();
  GpuJpegDecoder(const GpuJpegDecoder&) = delete;
  GpuJpegDecoder& operator=(const GpuJpegDecoder&) = delete;
  // "" when it can decode; else why not (no GPU, no library, a call that failed).
  const std::string& why_not() const { return why_not_; }
  // "" or why the image could not be decoded. From any thread: the decoder's GPU is made
  // current on the calling thread first (a loader's workers are threads of their own).
  std::string decode(const unsigned char* data, std::size_t size, kernels::Rgb8& out);

  struct State;

 private:
  std::unique_ptr<State> state_;
  int device_ = -1;
  std::string why_not_;
};

// The sonames tried, in order (CUDA 13, 12, then the unversioned name).
inline constexpr const char* kNvjpegLibraries[] = {"libnvjpeg.so.13", "libnvjpeg.so.12",
                                                   "libnvjpeg.so"};

}  // namespace preflight::dataloader
