#include "dataloader/gpu_decoder.hpp"

#include "gpu/device_choice.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fmt/format.h>

namespace preflight::dataloader {
namespace {

// nvJPEG's ABI as its public header (nvjpeg.h) declares it: only what is called.
using Status = int;  // nvjpegStatus_t; 0 is NVJPEG_STATUS_SUCCESS
using Handle = void*;
using JpegState = void*;
constexpr int kMaxComponent = 4;  // NVJPEG_MAX_COMPONENT
constexpr int kOutputRgbi = 5;    // NVJPEG_OUTPUT_RGBI: interleaved RGB in channel[0]
struct Image {                    // nvjpegImage_t
  unsigned char* channel[kMaxComponent];
  std::size_t pitch[kMaxComponent];
};

template <typename F>
F symbol(void* handle, const char* name) {
  return reinterpret_cast<F>(dlsym(handle, name));
}

}  // namespace

struct GpuJpegDecoder::State {
  void* library = nullptr;
  Status (*create_simple)(Handle*) = nullptr;
  Status (*destroy)(Handle) = nullptr;
  Status (*state_create)(Handle, JpegState*) = nullptr;
  Status (*state_destroy)(JpegState) = nullptr;
  Status (*image_info)(Handle, const unsigned char*, std::size_t, int*, int*, int*, int*) = nullptr;
  Status (*decode)(Handle, JpegState, const unsigned char*, std::size_t, int, Image*,
                   cudaStream_t) = nullptr;
  Handle handle = nullptr;
  JpegState jpeg = nullptr;
  cudaStream_t stream = nullptr;
  unsigned char* device = nullptr;
  std::size_t device_bytes = 0;
};

GpuJpegDecoder::GpuJpegDecoder(int local_rank) : state_(std::make_unique<State>()) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();  // leave no sticky error for the next CUDA call
    why_not_ = "no GPU (cudaGetDeviceCount)";
    return;
  }
  device_ = gpu::device_for(local_rank, devices);
  if (cudaSetDevice(device_) != cudaSuccess) {
    why_not_ = fmt::format("cudaSetDevice({}) failed", device_);
    return;
  }
  State& s = *state_;
  std::string tried;
  for (const char* name : kNvjpegLibraries) {
    s.library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (s.library != nullptr) break;
    const char* e = dlerror();
    tried += fmt::format("{}{}", tried.empty() ? "" : "; ", e ? e : name);
  }
  if (s.library == nullptr) {
    why_not_ = "nvJPEG cannot be loaded: " + tried;
    return;
  }
  s.create_simple = symbol<decltype(s.create_simple)>(s.library, "nvjpegCreateSimple");
  s.destroy = symbol<decltype(s.destroy)>(s.library, "nvjpegDestroy");
  s.state_create = symbol<decltype(s.state_create)>(s.library, "nvjpegJpegStateCreate");
  s.state_destroy = symbol<decltype(s.state_destroy)>(s.library, "nvjpegJpegStateDestroy");
  s.image_info = symbol<decltype(s.image_info)>(s.library, "nvjpegGetImageInfo");
  s.decode = symbol<decltype(s.decode)>(s.library, "nvjpegDecode");
  if (!s.create_simple || !s.destroy || !s.state_create || !s.state_destroy || !s.image_info ||
      !s.decode) {
    why_not_ = "nvJPEG lacks one of its decode calls";
    return;
  }
  if (s.create_simple(&s.handle) != 0 || s.state_create(s.handle, &s.jpeg) != 0) {
    why_not_ = "nvjpegCreateSimple or nvjpegJpegStateCreate failed";
    return;
  }
  if (cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking) != cudaSuccess)
    why_not_ = "cudaStreamCreate failed";
}

GpuJpegDecoder::~GpuJpegDecoder() {
  State& s = *state_;
  if (s.device != nullptr) cudaFree(s.device);
  if (s.stream != nullptr) cudaStreamDestroy(s.stream);
  if (s.jpeg != nullptr) s.state_destroy(s.jpeg);
  if (s.handle != nullptr) s.destroy(s.handle);
  if (s.library != nullptr) dlclose(s.library);
}

std::string GpuJpegDecoder::decode(const unsigned char* data, std::size_t size,
                                   kernels::Rgb8& out) {
  if (!why_not_.empty()) return why_not_;
  if (cudaSetDevice(device_) != cudaSuccess)
    return fmt::format("cudaSetDevice({}) failed", device_);
  State& s = *state_;
  int components = 0, subsampling = 0, widths[kMaxComponent] = {}, heights[kMaxComponent] = {};
  if (const Status st =
          s.image_info(s.handle, data, size, &components, &subsampling, widths, heights);
      st != 0)
    return fmt::format("nvjpegGetImageInfo: status {}", st);
  out.width = widths[0];
  out.height = heights[0];
  const std::size_t row = static_cast<std::size_t>(out.width) * 3;
  const std::size_t bytes = row * static_cast<std::size_t>(out.height);
  if (bytes > s.device_bytes) {
    if (s.device != nullptr) cudaFree(s.device);
    s.device = nullptr;
    if (cudaMalloc(&s.device, bytes) != cudaSuccess) return "cudaMalloc failed";
    s.device_bytes = bytes;
  }
  Image image{};
  image.channel[0] = s.device;
  image.pitch[0] = row;
  if (const Status st = s.decode(s.handle, s.jpeg, data, size, kOutputRgbi, &image, s.stream);
      st != 0)
    return fmt::format("nvjpegDecode: status {}", st);
  out.pixels.resize(bytes);
  if (cudaMemcpyAsync(out.pixels.data(), s.device, bytes, cudaMemcpyDeviceToHost, s.stream) !=
          cudaSuccess ||
      cudaStreamSynchronize(s.stream) != cudaSuccess)
    return "copying the decoded image back failed";
  return {};
}

}  // namespace preflight::dataloader
