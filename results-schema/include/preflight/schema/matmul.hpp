// The matmul family's names and their meaning (SPEC.md, "The matmul family"): its case
// attributes, stats columns and series. The writer writes these declarations; the report reads
// only the meaning they carry.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "preflight/schema/attr.hpp"
#include "preflight/schema/family_names.hpp"
#include "preflight/schema/family_schema.hpp"
#include "preflight/schema/layout.hpp"
#include "preflight/schema/meaning.hpp"

namespace preflight::schema {

namespace matmul {
inline constexpr Attr<std::string> kDtype{"dtype", "",
                                          "element type of A, B and C (and the compute type)"};
inline constexpr Attr<std::string> kShapes{"shapes", "",
                                           "square or the name of the shape list of the config"};
inline constexpr Attr<std::int64_t> kThreads{"threads", "threads",
                                             "BLAS threads of each rank (CPU); 1 on a GPU"};
inline constexpr Attr<double> kPeakTflops{
    "peak_tflops", "TFLOP/s", "theoretical peak of one rank's device for dtype; NaN when unknown"};
inline constexpr Attr<std::string> kPeakSource{"peak_source", "",
                                               "how each factor of peak_tflops was found"};
inline constexpr Attr<std::int64_t> kVerifySamples{"verify_samples", "",
                                                   "elements of C checked against the reference"};
inline constexpr Attr<double> kCheckTolerance{
    "check_tolerance", "", "allowed error of a checked element, relative to sum |a_ik b_kj|"};
inline constexpr Attr<std::string> kLibrary{"library", "",
                                            "the GEMM library's version and configuration"};
inline constexpr Attr<double> kIntervalS{"interval_s", "s",
                                         "time one row of series/interval_tflops covers"};
inline constexpr Attr<std::string> kTelemetry{"telemetry", "",
                                              "which telemetry series were recorded, or why not"};
inline constexpr Attr<std::int64_t> kRanks{"ranks", "ranks", "active ranks in this case"};
}  // namespace matmul
inline constexpr std::array kMatmulCaseAttributes = {
    matmul::kDtype.item(),          matmul::kShapes.item(),     matmul::kThreads.item(),
    matmul::kPeakTflops.item(),     matmul::kPeakSource.item(), matmul::kVerifySamples.item(),
    matmul::kCheckTolerance.item(), matmul::kLibrary.item(),    matmul::kIntervalS.item(),
    matmul::kTelemetry.item(),      matmul::kRanks.item(),
};

// Stats columns: the point's shape, then the figures, in this order.
namespace matmul {
inline constexpr Column kGemmMColumn{"gemm_m",          Type::kInt64,     "",
                                     "rows of A and C", Direction::kNone, Kind::kCount};
inline constexpr Column kGemmNColumn{"gemm_n",         Type::kInt64, "", "columns of B and C",
                                     Direction::kNone, Kind::kCount};
inline constexpr Column kGemmKColumn{"gemm_k",         Type::kInt64, "", "columns of A, rows of B",
                                     Direction::kNone, Kind::kCount};
inline constexpr Column kFlopColumn{
    "flop",           Type::kInt64, "FLOP", "2 gemm_m gemm_n gemm_k: the work of one operation",
    Direction::kNone, Kind::kCount};
inline constexpr Column kKeptAlgorithmColumn{
    "kept_algorithm",
    Type::kInt64,
    "",
    "rank 0's kept algorithm: its place in the heuristics' list (0: their first choice); "
    "-1 where the library chooses alone",
    Direction::kNone,
    Kind::kLabel};
inline constexpr Column kTflopsColumn{
    "tflops",
    Type::kFloat64,
    "TFLOP/s",
    "2 m n k / time of the slowest rank, median over iterations: one rank's rate",
    Direction::kHigher,
    Kind::kWorkRate,
    PerIteration::kInverseTime,
    "",
    true};
inline constexpr Column kBatchedTflopsColumn{"batched_tflops",
                                             Type::kFloat64,
                                             "TFLOP/s",
                                             "the same from the back-to-back time",
                                             Direction::kHigher,
                                             Kind::kWorkRate,
                                             PerIteration::kInverseTime};
inline constexpr Column kPeakFractionColumn{"peak_fraction",
                                            Type::kFloat64,
                                            "",
                                            "tflops / peak_tflops; NaN when the peak is unknown",
                                            Direction::kHigher,
                                            Kind::kFraction,
                                            PerIteration::kInverseTime};
inline constexpr Column kBatchedPeakFractionColumn{
    "batched_peak_fraction",        Type::kFloat64,     "",
    "batched_tflops / peak_tflops", Direction::kHigher, Kind::kFraction,
    PerIteration::kInverseTime};
inline constexpr Column kRankTflopsMinColumn{
    "rank_tflops_min",  Type::kFloat64,
    "TFLOP/s",          "per-rank rate (2 m n k / median own time), lowest rank",
    Direction::kHigher, Kind::kWorkRate};
inline constexpr Column kRankTflopsMedianColumn{
    "rank_tflops_median",         Type::kFloat64,     "TFLOP/s",
    "per-rank rate, median rank", Direction::kHigher, Kind::kWorkRate};
inline constexpr Column kSpanTflopsColumn{
    "span_tflops",
    Type::kFloat64,
    "TFLOP/s",
    "2 m n k / the iteration's span (first start to last finish over the group's ranks), "
    "median over iterations: one rank's rate while all compute at once",
    Direction::kHigher,
    Kind::kWorkRate};
}  // namespace matmul
inline constexpr std::array kMatmulStatsColumns = {
    matmul::kGemmMColumn,
    matmul::kGemmNColumn,
    matmul::kGemmKColumn,
    matmul::kFlopColumn,
    matmul::kKeptAlgorithmColumn,
    matmul::kTflopsColumn,
    matmul::kBatchedTflopsColumn,
    matmul::kPeakFractionColumn,
    matmul::kBatchedPeakFractionColumn,
    matmul::kRankTflopsMinColumn,
    matmul::kRankTflopsMedianColumn,
    matmul::kSpanTflopsColumn,
};

// Series (points/<P>/series/<name>), besides the telemetry series (telemetry.hpp): the rate
// per interval, to see clocks fall as the device heats (sustained mode: a long timing budget).
namespace matmul {
inline constexpr Column kIntervalTflopsSeries{
    "interval_tflops",
    Type::kFloat64,
    "TFLOP/s",
    "the rank's rate in each interval of interval_s, from its first operation of the point",
    Direction::kHigher,
    Kind::kWorkRate};
}  // namespace matmul
inline constexpr std::array kMatmulSeries = {
    matmul::kIntervalTflopsSeries,
};

// What every matmul case declares (SPEC.md, "The matmul family", Meaning).
namespace matmul {
inline constexpr FamilySchema kDeclaration{
    .name = kMatmulFamily,
    .stage = Stage::kCompute,
    .x_axis = kFlopColumn.name,
    .bands = Bands::kEachPoint,
    .scaling = Scaling::kPerRank,
    .series = "ranks",
    .peer_slow = true,   // every rank its own device, all at once
    .peer_late = false,  // no rank waits for another inside a GEMM
    .min_samples = 5,
    .case_attributes = kMatmulCaseAttributes,
    .stats_columns = kMatmulStatsColumns,
    .series_datasets = kMatmulSeries,
};
}  // namespace matmul

}  // namespace preflight::schema
