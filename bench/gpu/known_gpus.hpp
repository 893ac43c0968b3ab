// What NVIDIA publishes for the GPUs preflight knows by name: dense peak throughput per
// precision and memory bandwidth. A figure of peak is only as good as its source: a peak
// computed from cudaDevAttrClockRate uses the highest boost clock (1980 MHz on H100/H200 SXM),
// about 8% above the 1830 MHz at which NVIDIA's H100 whitepaper states the SXM part's
// tensor-core figures (989.4 TFLOP/s bf16 = 132 SMs x 4096 FLOP/clock x 1.83 GHz), so a GEMM's
// fraction of peak would read 8% low. The matmul family takes its GPU peak from here, the memory
// family its HBM peak; a part not listed gets no figure (docs/compute.md says how to add one).
//
// The datasheets print the tensor-core figures of TF32, FP16, BF16 and FP8 "with sparsity"
// (2:4 structured sparsity, twice the dense rate); a dense GEMM can reach half of that, which is
// what is stored. FP64 is the FP64 tensor-core figure (cuBLAS runs FP64 GEMMs on DMMA); FP32 the
// CUDA cores' (CUBLAS_COMPUTE_32F does not use tensor cores).
//
// Where each figure comes from, as checked on 2026-12-04 (docs/compute.md, "Where the figures
// come from"): the machine that checked them reaches no website, so NVIDIA's PDFs were read
// through public copies and quotes of their tables, which each source below names. The clocks:
// the H100 whitepaper (v1.04) Table 3 states H100 SXM5's tensor-core figures at 1830 MHz and its
// FP64 and FP32 figures at the 1980 MHz boost clock (H100 PCIe: 1620 and 1755 MHz);
// tests/unit/gpu_parts_test.cpp checks the SXM rows against SMs x FLOP/clock x clock. NVIDIA
// publishes no clock for the H200; its figures are the H100 SXM's, and it reports the same
// 1980 MHz maximum clock (nvidia-smi on AWS p5e, awslabs/amazon-eks-ami pull request 1985,
// 2024-10-01).
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

// Each source names the document, its edition, and the public copy or quote it was read
// through (the PDFs themselves were out of reach: docs/compute.md, "Where the figures come
// from"). It is written into every results file beside the figure (peak_source).
inline constexpr std::string_view kH100SxmSource =
    "NVIDIA H100 Tensor Core GPU datasheet, H100 SXM column (September 2024 edition, "
    "resources.nvidia.com/en-us-gpu-resources/h100-datasheet-24306; the same figures in the "
    "earlier edition copied at archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html): FP64 "
    "Tensor Core 67, FP32 67, TF32 989, BF16/FP16 1,979, FP8 3,958 TFLOP/s, tensor-core figures "
    "printed with sparsity and halved here, 3.35 TB/s; NVIDIA H100 whitepaper v1.04 Table 3: "
    "dense 494.7 / 989.4 / 1,978.9 at 1830 MHz, 66.9 at 1980 MHz (quoted in pc2/GPUInspector.jl "
    "pull request 27, 2024-01-13)";
inline constexpr std::string_view kH100PcieSource =
    "NVIDIA H100 Tensor Core GPU Architecture whitepaper v1.04 (2022), Table 3, H100 PCIe: FP64 "
    "Tensor Core 51.2, FP32 51.2 TFLOP/s at 1755 MHz; TF32 756, BF16/FP16 1,513, FP8 3,026 "
    "TFLOP/s with sparsity at 1620 MHz, halved here (read through public quotes of the table; "
    "the datasheet copied at archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html rounds to 51 "
    "and prints the same tensor figures); 2,000 GB/s from NVIDIA H100 PCIe GPU Product Brief "
    "PB-11133-001_v02 (2022-11-30), Table 2";
inline constexpr std::string_view kH200SxmSource =
    "NVIDIA H200 Tensor Core GPU datasheet, November 2024 edition (document 3512650; "
    "nvidia.com/en-us/data-center/h200), H200 SXM column: FP64 Tensor Core 67, FP32 67, TF32 "
    "989, BF16/FP16 1,979, FP8 3,958 TFLOP/s, tensor-core figures printed with sparsity and "
    "halved here, 4.8 TB/s; read through public quotes of its table, not the PDF itself";
inline constexpr std::string_view kH200NvlSource =
    "NVIDIA H200 Tensor Core GPU datasheet, November 2024 edition (document 3512650; "
    "nvidia.com/en-us/data-center/h200), H200 NVL column: FP64 Tensor Core 60, FP32 60, TF32 "
    "835, BF16/FP16 1,671, FP8 3,341 TFLOP/s, tensor-core figures printed with sparsity and "
    "halved here, 4.8 TB/s (4,813 GB/s and a 1785 MHz boost clock in NVIDIA H200 NVL Product "
    "Brief PB-12128-001_v01, April 2025); read through public quotes, not the PDFs themselves";
inline constexpr std::string_view kA100Sxm80Source =
    "NVIDIA A100 Tensor Core GPU datasheet, May 2022 edition (document 2188504; "
    "nvidia.com/en-us/data-center/a100), A100 80GB SXM column: FP64 Tensor Core 19.5, FP32 19.5, "
    "TF32 156, BF16/FP16 312 TFLOP/s dense as printed (no FP8), 2,039 GB/s; read through public "
    "quotes of its table (also glennklockwood.com/garden/processors/A100)";
inline constexpr std::string_view kA100Pcie80Source =
    "NVIDIA A100 Tensor Core GPU datasheet, May 2022 edition (document 2188504; "
    "nvidia.com/en-us/data-center/a100), A100 80GB PCIe column: the SXM part's FP64 Tensor Core "
    "19.5, FP32 19.5, TF32 156, BF16/FP16 312 TFLOP/s dense as printed (no FP8), 1,935 GB/s; "
    "read through public quotes of its table";
inline constexpr std::string_view kA100Sxm40Source =
    "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): A100 SXM4 40GB, FP64 Tensor Core "
    "19.5, FP32 19.5, TF32 156, BF16/FP16 312 TFLOP/s dense (no FP8), HBM2 at 1,555 GB/s; read "
    "through public quotes (glennklockwood.com/garden/processors/A100; the 4-column table of "
    "thundercompute.com/blog/nvidia-a100-specs-full-guide, updated 2026-05-21)";
inline constexpr std::string_view kA100Pcie40Source =
    "NVIDIA A100 datasheet, earlier edition with 40GB columns "
    "(nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf, date not seen): A100 40GB PCIe, the "
    "same dense figures as the SXM part (FP64 Tensor Core 19.5, FP32 19.5, TF32 156, BF16/FP16 "
    "312 TFLOP/s, no FP8), 1,555 GB/s; not read directly: its 4-column table as reproduced by "
    "thundercompute.com/blog/nvidia-a100-specs-full-guide (updated 2026-05-21)";

inline constexpr std::array kKnownGpus = {
    DatasheetFigures{"NVIDIA H200",
                     "H200 SXM",
                     {67, 67, dense(989), dense(1979), dense(1979), dense(3958)},
                     4800,
                     kH200SxmSource},
    DatasheetFigures{"NVIDIA H200 NVL",
                     "H200 NVL",
                     {60, 60, dense(835), dense(1671), dense(1671), dense(3341)},
                     4800,
                     kH200NvlSource},
    DatasheetFigures{"NVIDIA H100 80GB HBM3",
                     "H100 SXM",
                     {67, 67, dense(989), dense(1979), dense(1979), dense(3958)},
                     3350,
                     kH100SxmSource},
    DatasheetFigures{"NVIDIA H100 PCIe",
                     "H100 PCIe",
                     {51.2, 51.2, dense(756), dense(1513), dense(1513), dense(3026)},
                     2000,
                     kH100PcieSource},
    DatasheetFigures{"NVIDIA A100-SXM4-80GB",
                     "A100 80GB SXM",
                     {19.5, 19.5, 156, 312, 312, 0},
                     2039,
                     kA100Sxm80Source},
    DatasheetFigures{"NVIDIA A100-SXM4-40GB",
                     "A100 40GB SXM",
                     {19.5, 19.5, 156, 312, 312, 0},
                     1555,
                     kA100Sxm40Source},
    DatasheetFigures{"NVIDIA A100 80GB PCIe",
                     "A100 80GB PCIe",
                     {19.5, 19.5, 156, 312, 312, 0},
                     1935,
                     kA100Pcie80Source},
    DatasheetFigures{"NVIDIA A100-PCIE-40GB",
                     "A100 40GB PCIe",
                     {19.5, 19.5, 156, 312, 312, 0},
                     1555,
                     kA100Pcie40Source},
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
