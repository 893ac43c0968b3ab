// The compute families' parts that need no MPI launch: the GEMM check (a correct product passes,
// one wrong element fails), the tolerances, the CPU peak from a fake /proc and /sys, the rate
// per interval, the STREAM kernels' check, and NVML and CPU sensors that are absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "cpu/stream.hpp"
#include "gpu/nvml.hpp"
#include "matmul/cpu_peak.hpp"
#include "matmul/dtype.hpp"
#include "matmul/verify.hpp"
#include "preflight/schema/telemetry.hpp"
#include "telemetry/cpu_sensors.hpp"
#include "telemetry/observed_operation.hpp"
#include "telemetry/sampler.hpp"

namespace preflight {
namespace {

using matmul::DType;
using matmul::Shape;

struct Product {
  Shape s;
  std::vector<float> a, b, c;
};

// C = A^T B in the family's layout, accumulated in float as a BLAS would.
Product float_product(Shape s) {
  Product p{s, std::vector<float>(static_cast<std::size_t>(s.k * s.m)),
            std::vector<float>(static_cast<std::size_t>(s.k * s.n)),
            std::vector<float>(static_cast<std::size_t>(s.m * s.n))};
  for (std::size_t e = 0; e < p.a.size(); ++e)
    p.a[e] = static_cast<float>(matmul::input_value(1, e));
  for (std::size_t e = 0; e < p.b.size(); ++e)
    p.b[e] = static_cast<float>(matmul::input_value(2, e));
  for (std::int64_t j = 0; j < s.n; ++j)
    for (std::int64_t i = 0; i < s.m; ++i) {
      float sum = 0;
      for (std::int64_t q = 0; q < s.k; ++q)
        sum +=
            p.a[static_cast<std::size_t>(i * s.k + q)] * p.b[static_cast<std::size_t>(j * s.k + q)];
      p.c[static_cast<std::size_t>(j * s.m + i)] = sum;
    }
  return p;
}

std::uint64_t wrong(const Product& p, const std::vector<matmul::Element>& samples, DType d) {
  const auto& s = p.s;
  return matmul::count_wrong(
      s, samples, matmul::tolerance_of(d, s.k),
      [&](std::int64_t i, std::int64_t q) { return p.a[static_cast<std::size_t>(i * s.k + q)]; },
      [&](std::int64_t q, std::int64_t j) { return p.b[static_cast<std::size_t>(j * s.k + q)]; },
      [&](std::int64_t i, std::int64_t j) { return p.c[static_cast<std::size_t>(j * s.m + i)]; });
}

TEST(MatmulVerify, CorrectFloatProductPassesAndOneWrongElementFails) {
  Product p = float_product({37, 29, 301});
  const auto samples = matmul::pick_samples(p.s, 64, 7);
  EXPECT_EQ(wrong(p, samples, DType::kFloat32), 0U);
  // The first sample is a corner; damage it by one part in a thousand of its magnitude.
  const auto& e = samples.front();
  auto& v = p.c[static_cast<std::size_t>(e.j * p.s.m + e.i)];
  v += 1e-3F * (std::fabs(v) + 1);
  EXPECT_EQ(wrong(p, samples, DType::kFloat32), 1U);
  v = std::nanf("");
  EXPECT_EQ(wrong(p, samples, DType::kFloat32), 1U) << "NaN must count as wrong";
}

TEST(MatmulVerify, Float32ResultFailsTheFloat64Tolerance) {
  // A float accumulation is far outside what a double GEMM may be off by: the float64 check
  // is not so loose that a single-precision kernel would pass it.
  const Product p = float_product({16, 16, 2048});
  EXPECT_GT(wrong(p, matmul::pick_samples(p.s, 64, 3), DType::kFloat64), 0U);
}

TEST(MatmulVerify, SamplesStartAtTheCornersAndStayInside) {
  const Shape s{5, 9, 3};
  const auto samples = matmul::pick_samples(s, 100, 11);
  ASSERT_EQ(samples.size(), 100U);
  EXPECT_EQ(samples[1].i, 4);
  EXPECT_EQ(samples[1].j, 8);
  for (const auto& e : samples) {
    EXPECT_TRUE(e.i >= 0 && e.i < s.m && e.j >= 0 && e.j < s.n);
  }
}

TEST(MatmulVerify, TolerancesGrowWithKAndAreLooserForNarrowTypes) {
  EXPECT_LT(matmul::tolerance_of(DType::kFloat64, 1024),
            matmul::tolerance_of(DType::kFloat32, 1024));
  EXPECT_LT(matmul::tolerance_of(DType::kFloat32, 1024), matmul::tolerance_of(DType::kTf32, 1024));
  EXPECT_LT(matmul::tolerance_of(DType::kFloat16, 1024),
            matmul::tolerance_of(DType::kBfloat16, 1024));
  EXPECT_LT(matmul::tolerance_of(DType::kFloat32, 64), matmul::tolerance_of(DType::kFloat32, 4096));
}

// A fake machine: /proc/cpuinfo with the given flags and clock, and optionally cpufreq.
std::string fake_root(const std::string& name, const std::string& flags, double mhz,
                      double max_khz = 0) {
  const auto root = std::filesystem::temp_directory_path() / ("preflight-compute-" + name);
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "proc");
  // One block per CPU the test's thread may run on, as the kernel writes it.
  std::ofstream cpuinfo(root / "proc/cpuinfo");
  for (unsigned cpu = 0; cpu < std::max(1U, std::thread::hardware_concurrency()); ++cpu)
    cpuinfo << "processor\t: " << cpu << "\nmodel name\t: Test CPU\ncpu MHz\t\t: " << mhz
            << "\nflags\t\t: " << flags << "\n\n";
  cpuinfo.close();
  // Every CPU the test's thread may run on has its cpufreq directory, as on a real machine.
  for (unsigned cpu = 0; max_khz > 0 && cpu < std::max(1U, std::thread::hardware_concurrency());
       ++cpu) {
    const auto freq = root / ("sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq");
    std::filesystem::create_directories(freq);
    std::ofstream(freq / "cpuinfo_max_freq") << max_khz << "\n";
    std::ofstream(freq / "scaling_cur_freq") << max_khz / 2 << "\n";
  }
  return root.string() + "/";
}

TEST(CpuPeak, EachFactorFromWhereTheMachineSaysIt) {
  matmul::CpuPeakInputs in;
  in.cores = 2;
  in.root = fake_root("avx2", "fpu sse2 avx fma avx2", 2000);
  // 2 cores x 2 FMA units (assumed) x 8 float lanes (256 bits) x 2 FLOP x 2.0 GHz.
  const auto p = matmul::cpu_peak(DType::kFloat32, in);
  EXPECT_NEAR(p.tflops, 2 * 2 * 8 * 2 * 2.0e9 / 1e12, 1e-12);
  EXPECT_NE(p.source.find("avx2 in /proc/cpuinfo flags"), std::string::npos) << p.source;
  EXPECT_NE(p.source.find("assumed 2"), std::string::npos) << p.source;
  EXPECT_NE(p.source.find("cpu MHz in /proc/cpuinfo"), std::string::npos) << p.source;
  // float64 has half the lanes; cpufreq's maximum wins over the current clock.
  in.root = fake_root("avx512", "sse2 avx2 fma avx512f", 1000, 3.5e6);
  in.fma_units = 1;
  const auto q = matmul::cpu_peak(DType::kFloat64, in);
  EXPECT_NEAR(q.tflops, 2 * 1 * 8 * 2 * 3.5e9 / 1e12, 1e-12);
  EXPECT_NE(q.source.find("cpuinfo_max_freq"), std::string::npos) << q.source;
  EXPECT_NE(q.source.find("as given"), std::string::npos) << q.source;
}

TEST(CpuPeak, UnknownClockIsNoPeak) {
  matmul::CpuPeakInputs in;
  in.root = std::filesystem::temp_directory_path().string() + "/preflight-compute-nothing/";
  EXPECT_TRUE(std::isnan(matmul::cpu_peak(DType::kFloat32, in).tflops));
}

TEST(Telemetry, IntervalRatesCountEachOperationOverItsOwnSpan) {
  // 4 operations of 2 units, one by one: [0, 0.5], [0.5, 1.0], [1.0, 1.5], [2.0, 2.5]; 1 s rows.
  const auto rows =
      telemetry::interval_rates({0, 0.5, 1.0, 2.0}, {0.5, 1.0, 1.5, 2.5}, {1, 2, 3, 4}, 2.0, 1.0);
  ASSERT_EQ(rows.size(), 3U);
  EXPECT_DOUBLE_EQ(rows[0], 4.0);        // two in [0, 1)
  EXPECT_DOUBLE_EQ(rows[1], 2.0);        // one in [1, 2): the device idled half of it
  EXPECT_DOUBLE_EQ(rows[2], 2.0 / 0.5);  // one in the last half interval, over its length
}

// The device check on an H200 (2026-12-04) read 0, 0 and 10,260 TFLOP/s for the last rows of a
// 10 s back-to-back block: every operation of the block counted in the row it was waited in.
TEST(Telemetry, IntervalRatesSpreadABlockWaitedForOnceOverItsSpan) {
  // One by one at 1 unit per 0.1 s for 1 s, then 100 operations queued at 1 s, waited for at 11 s.
  std::vector<double> starts, done, ops;
  for (int i = 0; i < 10; ++i) {
    starts.push_back(0.1 * i);
    done.push_back(0.1 * (i + 1));
    ops.push_back(i + 1);
  }
  starts.push_back(1.0);
  done.push_back(11.0);
  ops.push_back(110);
  const auto rows = telemetry::interval_rates(starts, done, ops, 1.0, 1.0);
  ASSERT_EQ(rows.size(), 11U);
  for (double r : rows) EXPECT_NEAR(r, 10.0, 1e-9);  // the rate it ran at, never a pile-up
}

// A wait with no start of its own (nothing launched since the last wait) reads as an empty span
// where it completed, never past the end of the starts.
TEST(Telemetry, IntervalRatesOfAWaitWithoutAStart) {
  const auto rows = telemetry::interval_rates({0.0}, {0.5, 1.5}, {1, 3}, 1.0, 1.0);
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_DOUBLE_EQ(rows[0], 1.0);        // the first operation, over [0, 0.5]
  EXPECT_DOUBLE_EQ(rows[1], 2.0 / 0.5);  // two more, counted where they completed
}

TEST(Telemetry, NvmlAbsentIsNotAvailableAndReadsNothing) {
  const gpu::Nvml nvml("libnvidia-ml-absent-for-test.so.1");
  EXPECT_FALSE(nvml.available());
  EXPECT_NE(nvml.why_not().find("libnvidia-ml-absent-for-test.so.1"), std::string::npos);
  EXPECT_EQ(nvml.device_count(), 0U);
  const auto g = nvml.read(0);
  EXPECT_FALSE(g.util || g.temp_c || g.power_w || g.sm_mhz || g.throttle || g.pcie_width);
  EXPECT_FALSE(nvml.pcie_link(0).has_value());
}

// The writer declares what the report watches only on cases that drive the rank's GPU: a CPU
// case's GPU idles, its clocks fall and its link drops a generation, which is no fault.
TEST(Telemetry, GpuCasesDeclareWatchesCpuCasesNone) {
  namespace s = schema;
  telemetry::TelemetryPlan plan;
  namespace t = s::telemetry;
  for (const auto* c : {&t::kCpuMhzSeries, &t::kGpuSmMhzSeries, &t::kGpuThrottleSeries,
                        &t::kGpuPcieWidthSeries, &t::kGpuPcieMaxGenSeries})
    plan.series.push_back(s::index_in(s::kTelemetrySeries, *c));
  for (const auto& spec : plan.specs()) EXPECT_EQ(spec.watch, nullptr) << spec.column->name;
  plan.drives_gpu = true;
  const auto specs = plan.specs();
  ASSERT_EQ(specs.size(), 5U);
  auto rule = [&](std::size_t i) {
    return specs[i].watch ? specs[i].watch->rule : s::Watch::kNone;
  };
  EXPECT_EQ(rule(0), s::Watch::kNone);  // the CPU's clock: not judged
  EXPECT_EQ(rule(1), s::Watch::kPeers);
  EXPECT_DOUBLE_EQ(specs[1].watch->tolerance, s::kGpuClockTolerance);
  EXPECT_EQ(rule(2), s::Watch::kZero);
  EXPECT_NE(specs[2].watch->labels.find("0x8 hardware slowdown"), std::string_view::npos);
  EXPECT_EQ(rule(3), s::Watch::kReference);
  EXPECT_EQ(specs[3].watch->reference, "gpu_pcie_max_width");
  EXPECT_EQ(rule(4), s::Watch::kNone);  // the maximum itself
  // Every watched reference or limit names a series of the table.
  for (const auto& w : s::kTelemetryWatches) {
    if (w.rule != s::Watch::kReference && w.rule != s::Watch::kMargin) continue;
    EXPECT_TRUE(std::any_of(s::kTelemetrySeries.begin(), s::kTelemetrySeries.end(),
                            [&](const auto& c) { return c.name == w.reference; }));
  }
}

TEST(Telemetry, CpuSensorsReadCpufreqOrCpuinfoAndSayWhere) {
  const telemetry::CpuSensors with_cpufreq(fake_root("freq", "fma", 1234, 2.0e6));
  ASSERT_TRUE(with_cpufreq.mhz().has_value());
  EXPECT_NE(with_cpufreq.mhz_source().find("scaling_cur_freq"), std::string::npos);
  EXPECT_EQ(with_cpufreq.temp_source(), "not available");
  EXPECT_FALSE(with_cpufreq.temp_c().has_value());
  const telemetry::CpuSensors cpuinfo(fake_root("cpuinfo", "fma", 1234));
  ASSERT_TRUE(cpuinfo.mhz().has_value());
  EXPECT_DOUBLE_EQ(*cpuinfo.mhz(), 1234);
  EXPECT_EQ(cpuinfo.mhz_source(), "/proc/cpuinfo cpu MHz");
}

TEST(Stream, KernelsComputeWhatTheCheckExpects) {
  using kernels::StreamKernel;
  constexpr std::size_t n = 1000;
  for (StreamKernel k :
       {StreamKernel::kCopy, StreamKernel::kScale, StreamKernel::kAdd, StreamKernel::kTriad}) {
    std::vector<double> a(n), b(n), c(n);
    for (std::size_t j = 0; j < n; ++j) {
      a[j] = kernels::stream_input(0, j, 3);
      b[j] = kernels::stream_input(1, j, 3);
      c[j] = kernels::stream_input(2, j, 3);
    }
    kernels::stream_run(k, a.data(), b.data(), c.data(), 0, n / 2);
    kernels::stream_run(k, a.data(), b.data(), c.data(), n / 2, n);
    const double q = kernels::kStreamScalar;
    for (std::size_t j = 0; j < n; ++j) {
      const double x = kernels::stream_input(0, j, 3), y = kernels::stream_input(1, j, 3),
                   z = kernels::stream_input(2, j, 3);
      const double want = k == StreamKernel::kCopy    ? x
                          : k == StreamKernel::kScale ? q * z
                          : k == StreamKernel::kAdd   ? x + y
                                                      : y + q * z;
      const double got = k == StreamKernel::kScale ? b[j] : k == StreamKernel::kTriad ? a[j] : c[j];
      ASSERT_EQ(got, want) << static_cast<int>(k) << " at " << j;
    }
  }
}

}  // namespace
}  // namespace preflight
