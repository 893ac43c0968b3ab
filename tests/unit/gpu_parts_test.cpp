// The GPU paths' parts that need no GPU: the datasheet table the GEMM and HBM peaks come from,
// the device a rank takes among those it sees, NVML's clock-event reasons, what a pinned batch
// buffer spans, the memory family's HBM peak and byte counting, the environment check under
// per-rank GPU binding, and the NCCL version registration window needs.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "comm/nccl_env.hpp"
#include "dataloader/pinned_memory.hpp"
#include "gpu/device_choice.hpp"
#include "gpu/known_gpus.hpp"
#include "gpu/nvml.hpp"
#include "harness/env/env_checks.hpp"
#include "memory/backend.hpp"

namespace preflight {
namespace {

using gpu::Precision;

TEST(KnownGpus, H200TakesTheDatasheetsDenseFiguresNotTheBoostClocks) {
  const gpu::DatasheetFigures* h200 = gpu::known_gpu("NVIDIA H200");
  ASSERT_NE(h200, nullptr);
  EXPECT_EQ(h200->part, "H200 SXM");
  // 1979 TFLOP/s bf16 "with sparsity" on the datasheet: 989.5 dense.
  EXPECT_DOUBLE_EQ(gpu::dense_tflops(*h200, Precision::kBf16), 989.5);
  EXPECT_DOUBLE_EQ(gpu::dense_tflops(*h200, Precision::kFp16), 989.5);
  EXPECT_DOUBLE_EQ(gpu::dense_tflops(*h200, Precision::kFp8), 1979);
  EXPECT_DOUBLE_EQ(gpu::dense_tflops(*h200, Precision::kTf32), 494.5);
  EXPECT_DOUBLE_EQ(gpu::dense_tflops(*h200, Precision::kFp64), 67);
  EXPECT_DOUBLE_EQ(gpu::dense_tflops(*h200, Precision::kFp32), 67);
  EXPECT_DOUBLE_EQ(h200->memory_gbs, 4800);
  EXPECT_NE(h200->source.find("H200 Tensor Core GPU datasheet"), std::string::npos);
  EXPECT_NE(h200->source.find("halved"), std::string::npos);
  // What a peak from cudaDevAttrClockRate (1980 MHz) would have said: 8% more.
  const double from_boost_clock = 132 * 4096 * 1.98e9 / 1e12;
  EXPECT_GT(from_boost_clock / gpu::dense_tflops(*h200, Precision::kBf16), 1.08);
}

// The table against the architecture: 132 SMs x dense FLOP per SM per clock on sm_90 x the
// clock. Tensor-core figures work out at 1830 MHz, FP64 and FP32 at the 1980 MHz boost clock:
// a figure typed wrong in the table breaks this.
TEST(KnownGpus, HopperSxmFiguresAgreeWithSmsTimesFlopPerClockTimesClock) {
  struct Expect {
    Precision p;
    double flop_per_clock, ghz;
  };
  for (const char* name : {"NVIDIA H200", "NVIDIA H100 80GB HBM3"}) {
    const gpu::DatasheetFigures* g = gpu::known_gpu(name);
    ASSERT_NE(g, nullptr) << name;
    for (const Expect& e :
         {Expect{Precision::kFp64, 256, 1.98}, Expect{Precision::kFp32, 256, 1.98},
          Expect{Precision::kTf32, 2048, 1.83}, Expect{Precision::kBf16, 4096, 1.83},
          Expect{Precision::kFp16, 4096, 1.83}, Expect{Precision::kFp8, 8192, 1.83}}) {
      const double computed = 132 * e.flop_per_clock * e.ghz * 1e9 / 1e12;
      EXPECT_NEAR(gpu::dense_tflops(*g, e.p) / computed, 1.0, 0.005)
          << name << " precision " << static_cast<int>(e.p);
    }
  }
}

// The H100 PCIe card against its own clocks (whitepaper v1.04 Table 3): 114 SMs, tensor-core
// figures at 1620 MHz, FP64 and FP32 at the 1755 MHz boost clock. The tolerance is tighter than
// the SXM check's: the datasheet's rounded 51 (0.4% low) fails it, the whitepaper's 51.2 passes.
TEST(KnownGpus, HopperPcieFiguresAgreeWith114SmsAtTheWhitepapersClocks) {
  const gpu::DatasheetFigures* g = gpu::known_gpu("NVIDIA H100 PCIe");
  ASSERT_NE(g, nullptr);
  struct Expect {
    Precision p;
    double flop_per_clock, ghz;
  };
  for (const Expect& e :
       {Expect{Precision::kFp64, 256, 1.755}, Expect{Precision::kFp32, 256, 1.755},
        Expect{Precision::kTf32, 2048, 1.62}, Expect{Precision::kBf16, 4096, 1.62},
        Expect{Precision::kFp16, 4096, 1.62}, Expect{Precision::kFp8, 8192, 1.62}}) {
    const double computed = 114 * e.flop_per_clock * e.ghz * 1e9 / 1e12;
    EXPECT_NEAR(gpu::dense_tflops(*g, e.p) / computed, 1.0, 0.002)
        << "precision " << static_cast<int>(e.p);
  }
  EXPECT_NE(g->source.find("PB-11133-001_v02"), std::string::npos);
}

TEST(KnownGpus, NamesMatchWholeSoTheNvlAndPcieCardsAreNotTheSxmOnes) {
  const gpu::DatasheetFigures* nvl = gpu::known_gpu("NVIDIA H200 NVL");
  ASSERT_NE(nvl, nullptr);
  EXPECT_EQ(nvl->part, "H200 NVL");
  EXPECT_DOUBLE_EQ(gpu::dense_tflops(*nvl, Precision::kBf16), 835.5);
  const gpu::DatasheetFigures* pcie = gpu::known_gpu("NVIDIA H100 PCIe");
  ASSERT_NE(pcie, nullptr);
  EXPECT_DOUBLE_EQ(gpu::dense_tflops(*pcie, Precision::kBf16), 756.5);
  EXPECT_DOUBLE_EQ(pcie->memory_gbs, 2000);
  EXPECT_EQ(gpu::known_gpu("NVIDIA H200 "), nullptr);
  EXPECT_EQ(gpu::known_gpu("NVIDIA H20"), nullptr);
  EXPECT_EQ(gpu::known_gpu("NVIDIA GeForce RTX 4090"), nullptr);
}

TEST(KnownGpus, A100HasNoFp8AndItsDenseFiguresAsPrinted) {
  const gpu::DatasheetFigures* a100 = gpu::known_gpu("NVIDIA A100-SXM4-80GB");
  ASSERT_NE(a100, nullptr);
  EXPECT_DOUBLE_EQ(gpu::dense_tflops(*a100, Precision::kBf16), 312);
  EXPECT_DOUBLE_EQ(gpu::dense_tflops(*a100, Precision::kFp8), 0);
  EXPECT_DOUBLE_EQ(a100->memory_gbs, 2039);
  for (const auto& g : gpu::kKnownGpus) EXPECT_FALSE(g.source.empty()) << g.cuda_name;
}

TEST(DeviceChoice, EveryGpuVisibleOrOneEachTheRankTakesADistinctOne) {
  // mpirun on an 8-GPU host: host rank r takes device r.
  for (int r = 0; r < 8; ++r) EXPECT_EQ(gpu::device_for(r, 8), r);
  // srun --gpus-per-task=1: each rank sees its own GPU as device 0.
  for (int r = 0; r < 8; ++r) EXPECT_EQ(gpu::device_for(r, 1), 0);
  EXPECT_EQ(gpu::device_for(3, 0), -1);
}

TEST(DeviceChoice, TwoRanksOnOneGpuAreNamedAndDistinctGpusPass) {
  EXPECT_EQ(gpu::shared_gpu({"0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0"}), "");
  EXPECT_EQ(gpu::shared_gpu({"0000:18:00.0", "0000:2a:00.0", "0000:18:00.0"}),
            "host ranks 0 and 2 both took GPU 0000:18:00.0");
  EXPECT_EQ(gpu::shared_gpu({}), "");
}

TEST(NvmlReasons, PowerCapIsKeptApartFromSlowdowns) {
  // A dense GEMM at the board's power limit: the software power cap alone.
  EXPECT_EQ(gpu::slowdown_bits(0x4), 0);
  EXPECT_EQ(gpu::power_capped(0x4), 1);
  // Idle, application clocks, sync boost and display clocks: settings, neither.
  EXPECT_EQ(gpu::slowdown_bits(0x1 | 0x2 | 0x10 | 0x100), 0);
  EXPECT_EQ(gpu::power_capped(0x1 | 0x2 | 0x10 | 0x100), 0);
  // Thermal and hardware slowdowns are kept, with the cap beside them.
  EXPECT_EQ(gpu::slowdown_bits(0x4 | 0x8 | 0x20 | 0x40 | 0x80), 0x8 | 0x20 | 0x40 | 0x80);
  EXPECT_EQ(gpu::power_capped(0x4 | 0x40), 1);
}

TEST(PinnedBatches, ABufferToPinIsWholePagesFromAPageBoundary) {
  EXPECT_EQ(dataloader::pinnable_bytes(1), 4096u);
  EXPECT_EQ(dataloader::pinnable_bytes(4096), 4096u);
  EXPECT_EQ(dataloader::pinnable_bytes(4097), 8192u);
  EXPECT_EQ(dataloader::pinnable_bytes(224 * 224 * 3 * 4 * 32 + 1), 224u * 224 * 3 * 4 * 32 + 4096);
  kernels::PageVector<unsigned char> buffer(dataloader::pinnable_bytes(1000));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % kernels::kPageBytes, 0u);
}

TEST(GpuMemory, HbmPeakFromTheDatasheetForDeviceMemoryOnly) {
  const auto triad = memory::gpu_memory_peak(memory::GpuCopy::kHbmTriad, "NVIDIA H200");
  EXPECT_DOUBLE_EQ(triad.gbs, 4800);
  EXPECT_NE(triad.source.find("H200 SXM"), std::string::npos);
  EXPECT_DOUBLE_EQ(memory::gpu_memory_peak(memory::GpuCopy::kDeviceToDevice, "NVIDIA H200").gbs,
                   4800);
  const auto h2d = memory::gpu_memory_peak(memory::GpuCopy::kHostToDevice, "NVIDIA H200");
  EXPECT_TRUE(std::isnan(h2d.gbs));
  const auto unknown = memory::gpu_memory_peak(memory::GpuCopy::kHbmTriad, "NVIDIA L4");
  EXPECT_TRUE(std::isnan(unknown.gbs));
  EXPECT_NE(unknown.source.find("'NVIDIA L4' is not in"), std::string::npos);
}

TEST(GpuMemory, DeviceCopyCountsReadAndWriteAndSaysNvbandwidthCountsOnce) {
  EXPECT_EQ(memory::gpu_copy_arrays(memory::GpuCopy::kDeviceToDevice), 2);
  const std::string d2d(memory::gpu_copy_counting(memory::GpuCopy::kDeviceToDevice));
  EXPECT_NE(d2d.find("nvbandwidth counts the bytes copied once: half this figure"),
            std::string::npos);
  EXPECT_EQ(memory::gpu_copy_arrays(memory::GpuCopy::kHostToDevice), 1);
  EXPECT_NE(std::string(memory::gpu_copy_counting(memory::GpuCopy::kHostToDevice)).find("once"),
            std::string::npos);
}

// `n` ranks on one host, each seeing `visible` GPUs and taking the GPU of UUID uuids[r].
std::vector<RankFacts> one_host(const std::vector<std::string>& uuids, int visible) {
  std::vector<RankFacts> facts(uuids.size());
  for (std::size_t r = 0; r < uuids.size(); ++r) {
    auto& e = facts[r].env;
    e.rank = static_cast<int>(r);
    e.host = e.node_name = "gpu0";
    e.local_rank = static_cast<int>(r);
    e.gpu_count = visible;
    e.gpu_model = "NVIDIA H200";
    e.gpu_uuid = uuids[r];
    e.gpu_driver = "13.0";
    e.cuda_runtime = "13.0";
    e.nccl_version = "2.28.9";
  }
  return facts;
}

EnvCheck one_rank_per_gpu(const std::vector<RankFacts>& facts) {
  for (const auto& c : judge_gpus(facts, {}))
    if (c.check == "one rank per GPU") return c;
  throw std::runtime_error("no check 'one rank per GPU'");
}

TEST(EnvChecksBinding, EachRankSeeingItsOwnGpuIsOneRankPerGpu) {
  // srun --gpus-per-task=1: 4 ranks, each sees 1 GPU, all different.
  EXPECT_EQ(one_rank_per_gpu(one_host({"GPU-a", "GPU-b", "GPU-c", "GPU-d"}, 1)).status,
            EnvStatus::kPass);
  // Two of them bound to the same GPU: named.
  const EnvCheck shared = one_rank_per_gpu(one_host({"GPU-a", "GPU-b", "GPU-a", "GPU-d"}, 1));
  EXPECT_EQ(shared.status, EnvStatus::kFail);
  // mpirun on a 4-GPU host, every GPU visible: still one each.
  EXPECT_EQ(one_rank_per_gpu(one_host({"GPU-a", "GPU-b", "GPU-c", "GPU-d"}, 4)).status,
            EnvStatus::kPass);
  // 2 ranks on a 4-GPU host: the others idle.
  EXPECT_EQ(one_rank_per_gpu(one_host({"GPU-a", "GPU-b"}, 4)).status, EnvStatus::kWarn);
}

TEST(WindowRegistration, NeedsNccl227) {
  EXPECT_EQ(comm::window_registration_problem(22809), "");
  EXPECT_EQ(comm::window_registration_problem(22700), "");
  const std::string old = comm::window_registration_problem(22605);
  EXPECT_NE(old.find("NCCL 2.27 or later"), std::string::npos);
  EXPECT_NE(old.find("this job runs NCCL 2.26.5"), std::string::npos);
}

}  // namespace
}  // namespace preflight
