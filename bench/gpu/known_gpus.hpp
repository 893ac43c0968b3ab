// What NVIDIA's datasheets give for the GPUs preflight knows by name: dense peak throughput per
// precision and memory bandwidth. A figure of peak is only as good as its source: a peak
// computed from cudaDevAttrClockRate uses the boost clock (1980 MHz on H100/H200 SXM), about 8%
// above the 1830 MHz NVIDIA's own figures use (989 TFLOP/s bf16 = 132 SMs x 4096 FLOP/clock x
// 1.83 GHz), so a GEMM's fraction of peak would read 8% low. The matmul family takes its GPU
// peak from here, the memory family its HBM peak; a part not listed gets no datasheet figure
// (docs/compute.md says how to add one).
//
// The datasheets print the tensor-core figures of TF32, FP16, BF16 and FP8 "with sparsity"
// (2:4 structured sparsity, twice the dense rate); a dense GEMM can reach half of that, which is
// what is stored. FP64 is the FP64 tensor-core figure (cuBLAS runs FP64 GEMMs on DMMA); FP32 the
// CUDA cores' (CUBLAS_COMPUTE_32F does not use tensor cores). On H100/H200 SXM the tensor-core
// figures work out at 1830 MHz and the FP64 and FP32 ones at the 1980 MHz boost clock
// (tests/unit/gpu_parts_test.cpp checks both against SMs x FLOP/clock x clock).
#pragma once

#include <array>
#include <string_view>

namespace preflight::gpu {

// The precisions a GEMM runs in, as the datasheets tabulate them.
enum class Precision { kFp64, kFp32, kTf32, kFp16, kBf16, kFp8 };

struct DatasheetFigures {
  std::string_view cuda_name;  // cudaDeviceProp::name, exactly
  std::string_view part;       // the datasheet's name for it
  // Dense TFLOP/s in the order of Precision; 0: the part has no such tensor-core mode.
  std::array<double, 6> dense_tflops;
  double memory_gbs;        // HBM bandwidth, GB/s (10^9 bytes per second)
  std::string_view source;  // the datasheet, its edition, and where its figures are printed
};

// Half of a "with sparsity" figure: the dense rate.
constexpr double dense(double with_sparsity) {
  return with_sparsity / 2;
}

inline constexpr std::string_view kH100Datasheet =
    "NVIDIA H100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h100, 'Technical "
    "Specifications'; edition of 2023; tensor-core figures printed with sparsity, halved here)";
inline constexpr std::string_view kH200Datasheet =
    "NVIDIA H200 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h200, 'Technical "
    "Specifications'; edition of November 2024; tensor-core figures printed with sparsity, halved "
    "here)";
inline constexpr std::string_view kA100Datasheet =
    "NVIDIA A100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/a100, 'Technical "
    "Specifications'; edition of June 2021; dense figures as printed)";

inline constexpr std::array kKnownGpus = {
    DatasheetFigures{"NVIDIA H200",
                     "H200 SXM",
                     {67, 67, dense(989), dense(1979), dense(1979), dense(3958)},
                     4800,
                     kH200Datasheet},
    DatasheetFigures{"NVIDIA H200 NVL",
                     "H200 NVL",
                     {60, 60, dense(835), dense(1671), dense(1671), dense(3341)},
                     4800,
                     kH200Datasheet},
    DatasheetFigures{"NVIDIA H100 80GB HBM3",
                     "H100 SXM",
                     {67, 67, dense(989), dense(1979), dense(1979), dense(3958)},
                     3350,
                     kH100Datasheet},
    DatasheetFigures{"NVIDIA H100 PCIe",
                     "H100 PCIe",
                     {51, 51, dense(756), dense(1513), dense(1513), dense(3026)},
                     2000,
                     kH100Datasheet},
    DatasheetFigures{"NVIDIA A100-SXM4-80GB",
                     "A100 80GB SXM",
                     {19.5, 19.5, 156, 312, 312, 0},
                     2039,
                     kA100Datasheet},
    DatasheetFigures{"NVIDIA A100-SXM4-40GB",
                     "A100 40GB SXM",
                     {19.5, 19.5, 156, 312, 312, 0},
                     1555,
                     kA100Datasheet},
    DatasheetFigures{"NVIDIA A100 80GB PCIe",
                     "A100 80GB PCIe",
                     {19.5, 19.5, 156, 312, 312, 0},
                     1935,
                     kA100Datasheet},
    DatasheetFigures{"NVIDIA A100-PCIE-40GB",
                     "A100 40GB PCIe",
                     {19.5, 19.5, 156, 312, 312, 0},
                     1555,
                     kA100Datasheet},
};

// The datasheet figures of the GPU CUDA names `cuda_name`, or nullptr: matched whole, so that
// "NVIDIA H200 NVL" (600 W) is never read as the 700 W "NVIDIA H200".
constexpr const DatasheetFigures* known_gpu(std::string_view cuda_name) {
  for (const auto& g : kKnownGpus)
    if (g.cuda_name == cuda_name) return &g;
  return nullptr;
}

constexpr double dense_tflops(const DatasheetFigures& g, Precision p) {
  return g.dense_tflops[static_cast<std::size_t>(p)];
}

}  // namespace preflight::gpu
