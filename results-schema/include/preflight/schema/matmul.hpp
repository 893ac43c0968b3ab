// The matmul family's names and their meaning (SPEC.md, "The matmul family"): its case
// attributes, stats columns and series. The writer writes these declarations; the report reads
// only the meaning they carry.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "preflight/schema/layout.hpp"
#include "preflight/schema/meaning.hpp"

namespace preflight::schema {

inline constexpr std::array kMatmulCaseAttributes = {
    Item{"dtype", Type::kString, "", "element type of A, B and C (and the compute type)"},
    Item{"shapes", Type::kString, "", "square or the name of the shape list of the config"},
    Item{"threads", Type::kInt64, "threads", "BLAS threads of each rank (CPU); 1 on a GPU"},
    Item{"peak_tflops", Type::kFloat64, "TFLOP/s",
         "theoretical peak of one rank's device for dtype; NaN when unknown"},
    Item{"peak_source", Type::kString, "", "how each factor of peak_tflops was found"},
    Item{"verify_samples", Type::kInt64, "", "elements of C checked against the reference"},
    Item{"check_tolerance", Type::kFloat64, "",
         "allowed error of a checked element, relative to sum |a_ik b_kj|"},
    Item{"library", Type::kString, "", "the GEMM library's version and configuration"},
    Item{"interval_s", Type::kFloat64, "s", "time one row of series/interval_tflops covers"},
    Item{"telemetry", Type::kString, "", "which telemetry series were recorded, or why not"},
    Item{"ranks", Type::kInt64, "ranks", "active ranks in this case"},
};

// Stats columns: the point's shape, then the figures, in this order.
enum MatmulColumn : std::size_t {
  kMatmulM,
  kMatmulN,
  kMatmulK,
  kMatmulFlop,
  kMatmulAlgorithm,
  kMatmulTflops,
  kMatmulBatchedTflops,
  kMatmulPeakFraction,
  kMatmulBatchedPeakFraction,
  kMatmulRankTflopsMin,
  kMatmulRankTflopsMedian,
  kMatmulSpanTflops,
  kMatmulColumnCount
};
inline constexpr std::array kMatmulStatsColumns = {
    Column{"gemm_m", Type::kInt64, "", "rows of A and C", Direction::kNone, Kind::kCount},
    Column{"gemm_n", Type::kInt64, "", "columns of B and C", Direction::kNone, Kind::kCount},
    Column{"gemm_k", Type::kInt64, "", "columns of A, rows of B", Direction::kNone, Kind::kCount},
    Column{"flop", Type::kInt64, "FLOP", "2 gemm_m gemm_n gemm_k: the work of one operation",
           Direction::kNone, Kind::kCount},
    Column{"kept_algorithm", Type::kInt64, "",
           "rank 0's kept algorithm: its place in the heuristics' list (0: their first choice); "
           "-1 where the library chooses alone",
           Direction::kNone, Kind::kLabel},
    Column{"tflops", Type::kFloat64, "TFLOP/s",
           "2 m n k / time of the slowest rank, median over iterations: one rank's rate",
           Direction::kHigher, Kind::kWorkRate, PerIteration::kInverseTime, "", true},
    Column{"batched_tflops", Type::kFloat64, "TFLOP/s", "the same from the back-to-back time",
           Direction::kHigher, Kind::kWorkRate, PerIteration::kInverseTime},
    Column{"peak_fraction", Type::kFloat64, "",
           "tflops / peak_tflops; NaN when the peak is unknown", Direction::kHigher,
           Kind::kFraction, PerIteration::kInverseTime},
    Column{"batched_peak_fraction", Type::kFloat64, "", "batched_tflops / peak_tflops",
           Direction::kHigher, Kind::kFraction, PerIteration::kInverseTime},
    Column{"rank_tflops_min", Type::kFloat64, "TFLOP/s",
           "per-rank rate (2 m n k / median own time), lowest rank", Direction::kHigher,
           Kind::kWorkRate},
    Column{"rank_tflops_median", Type::kFloat64, "TFLOP/s", "per-rank rate, median rank",
           Direction::kHigher, Kind::kWorkRate},
    Column{"span_tflops", Type::kFloat64, "TFLOP/s",
           "2 m n k / the iteration's span (first start to last finish over the group's ranks), "
           "median over iterations: one rank's rate while all compute at once",
           Direction::kHigher, Kind::kWorkRate},
};
static_assert(kMatmulStatsColumns.size() == kMatmulColumnCount);
static_assert(kMatmulStatsColumns[kMatmulM].name == "gemm_m");
static_assert(kMatmulStatsColumns[kMatmulN].name == "gemm_n");
static_assert(kMatmulStatsColumns[kMatmulK].name == "gemm_k");
static_assert(kMatmulStatsColumns[kMatmulFlop].name == "flop");
static_assert(kMatmulStatsColumns[kMatmulAlgorithm].name == "kept_algorithm");
static_assert(kMatmulStatsColumns[kMatmulTflops].name == "tflops");
static_assert(kMatmulStatsColumns[kMatmulBatchedTflops].name == "batched_tflops");
static_assert(kMatmulStatsColumns[kMatmulPeakFraction].name == "peak_fraction");
static_assert(kMatmulStatsColumns[kMatmulBatchedPeakFraction].name == "batched_peak_fraction");
static_assert(kMatmulStatsColumns[kMatmulRankTflopsMin].name == "rank_tflops_min");
static_assert(kMatmulStatsColumns[kMatmulRankTflopsMedian].name == "rank_tflops_median");
static_assert(kMatmulStatsColumns[kMatmulSpanTflops].name == "span_tflops");

// Series (points/<P>/series/<name>), besides the telemetry series (telemetry.hpp): the rate
// per interval, to see clocks fall as the device heats (sustained mode: a long timing budget).
inline constexpr std::array kMatmulSeries = {
    Column{"interval_tflops", Type::kFloat64, "TFLOP/s",
           "the rank's rate in each interval of interval_s, from its first operation of the point",
           Direction::kHigher, Kind::kWorkRate},
};

// What every matmul case declares (SPEC.md, "The matmul family", Meaning).
inline constexpr Stage kMatmulStage = Stage::kCompute;
inline constexpr std::string_view kMatmulXAxis = kMatmulStatsColumns[kMatmulFlop].name;
inline constexpr Bands kMatmulBands = Bands::kEachPoint;
inline constexpr Scaling kMatmulScaling = Scaling::kPerRank;
inline constexpr std::string_view kMatmulSeriesName = "ranks";
inline constexpr bool kMatmulPeerSlow = true;   // every rank its own device, all at once
inline constexpr bool kMatmulPeerLate = false;  // no rank waits for another inside a GEMM
inline constexpr int kMatmulMinSamples = 5;

}  // namespace preflight::schema
