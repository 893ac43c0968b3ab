// Micro-benchmarks of the pattern fill and checks: the check runs once per point, so it must
// not dominate a sweep of large sizes.
#include <benchmark/benchmark.h>

#include <vector>

#include "cpu/pattern.hpp"

namespace {

using preflight::kernels::Reduction;

void BM_FillPattern(benchmark::State& state) {
  std::vector<float> buffer(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    preflight::kernels::fill_pattern<float>(buffer, 3, 0);
    benchmark::DoNotOptimize(buffer.data());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) *
                          static_cast<int64_t>(sizeof(float)));
}

void BM_CheckReduced(benchmark::State& state) {
  const preflight::kernels::ReducedPattern<float> expected(Reduction::kSum, 8);
  std::vector<float> buffer(static_cast<std::size_t>(state.range(0)), 1.0f);
  for (auto _ : state) benchmark::DoNotOptimize(expected.count_mismatches(buffer, 0));
  state.SetBytesProcessed(state.iterations() * state.range(0) *
                          static_cast<int64_t>(sizeof(float)));
}

BENCHMARK(BM_FillPattern)->Range(1 << 10, 1 << 24);
BENCHMARK(BM_CheckReduced)->Range(1 << 10, 1 << 24);

}  // namespace

BENCHMARK_MAIN();
