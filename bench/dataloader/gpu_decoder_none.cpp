// Without CUDA at build time there is no GPU decode; the family refuses decoder nvjpeg.
#include "dataloader/gpu_decoder.hpp"

namespace preflight::dataloader {

struct GpuJpegDecoder::State {};

GpuJpegDecoder::GpuJpegDecoder(int) : why_not_("preflight was built without CUDA") {}
GpuJpegDecoder::~GpuJpegDecoder() = default;

std::string GpuJpegDecoder::decode(const unsigned char*, std::size_t, kernels::Rgb8&) {
  return why_not_;
}

}  // namespace preflight::dataloader
