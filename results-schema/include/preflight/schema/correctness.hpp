// The correctness family's names and their meaning (SPEC.md, "The correctness family"): silent
// data corruption checks that name the device that disagrees. Two kinds of case share the family:
// a GEMM determinism check (every rank computes the same seeded GEMMs; results are compared bit
// for bit across the ranks of one device model and library) and a collective sweep (each
// algorithm and protocol the library offers, the full result checked against the fill pattern
// every iteration). Both write the same counter and the same wrong-result events, which the
// report reads to name the rank, its host and its GPU. Names another family already declares
// (a shape's columns, a collective's size) are that family's constants, declared once.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "preflight/schema/attr.hpp"
#include "preflight/schema/comm.hpp"
#include "preflight/schema/family_names.hpp"
#include "preflight/schema/family_schema.hpp"
#include "preflight/schema/layout.hpp"
#include "preflight/schema/matmul.hpp"
#include "preflight/schema/meaning.hpp"

namespace preflight::schema {

// Case attributes of both kinds.
namespace correctness {
inline constexpr std::string_view kCheckGemm = "gemm";
inline constexpr std::string_view kCheckCollective = "collective";
inline constexpr Attr<std::string> kCheck{
    "correctness_check", "",
    "gemm: the same seeded GEMMs on every rank, results compared bit for bit; collective: one "
    "algorithm's full result against the fill pattern, every iteration"};
inline constexpr Attr<std::int64_t> kEventsKept{
    "events_kept", "events",
    "the most wrong results each rank records per point in the wrong_* series; the counter "
    "wrong_elements counts them all"};
}  // namespace correctness

// The GEMM determinism check's own attributes.
namespace correctness {
inline constexpr Attr<std::int64_t> kSeed{
    "seed", "", "seed of the inputs A and B, the same on every rank (made on the device)"};
inline constexpr Attr<std::string> kCompareClasses{
    "compare_classes", "",
    "which ranks were compared with which: one entry per class of ranks with the same device "
    "model and library, `model | library: ranks`; a class of one rank is compared with its own "
    "first result (repetition)"};
inline constexpr Attr<std::string> kDeterminism{
    "determinism", "",
    "what makes the library's result bit-for-bit repeatable (fixed thread count, fixed "
    "algorithm, no split-K), docs/correctness.md"};
}  // namespace correctness
inline constexpr std::array kCorrectnessGemmCaseAttributes = {
    correctness::kCheck.item(),
    correctness::kEventsKept.item(),

    correctness::kSeed.item(),
    correctness::kCompareClasses.item(),
    correctness::kDeterminism.item(),
    matmul::kDtype.item(),
    matmul::kThreads.item(),
    matmul::kLibrary.item(),
    matmul::kRanks.item(),
};

// The collective sweep's own attributes.
namespace correctness {
inline constexpr Attr<std::string> kAlgorithm{
    "forced_algorithm", "",
    "the algorithm the library was made to run (Open MPI's tuned component: its name for "
    "coll_tuned_<collective>_algorithm; NCCL: NCCL_ALGO), or `default`: its own choice"};
inline constexpr Attr<std::string> kProtocol{
    "forced_protocol", "",
    "NCCL's protocol (NCCL_PROTO: LL, LL128, Simple), or empty where none applies"};
inline constexpr Attr<std::string> kForcedBy{
    "forced_by", "",
    "how the algorithm was forced, e.g. `coll_tuned_allreduce_algorithm=4` or `NCCL_ALGO=Ring "
    "NCCL_PROTO=LL128`; empty for the library's own choice"};
inline constexpr Attr<std::string> kCommLibrary{
    "comm_library", "", "the communication library and its version, e.g. `Open MPI 4.1.4`"};
}  // namespace correctness
inline constexpr std::array kCorrectnessCollectiveCaseAttributes = {
    correctness::kCheck.item(),     correctness::kEventsKept.item(),

    correctness::kAlgorithm.item(), correctness::kProtocol.item(),
    correctness::kForcedBy.item(),  correctness::kCommLibrary.item(),
    comm::kCollective.item(),       comm::kDtype.item(),
    matmul::kRanks.item(),
};

// Stats columns both kinds add to their own: how many results were compared and how many were
// wrong, over the group's ranks and the timed iterations.
namespace correctness {
inline constexpr Column kCheckedResultsColumn{
    "checked_results", Type::kFloat64,
    "results",         "results compared: one per rank and timed iteration",
    Direction::kNone,  Kind::kCount};
inline constexpr Column kWrongResultsColumn{
    "wrong_results",
    Type::kFloat64,
    "results",
    "results with at least one wrong element (wrong_elements above 0), over ranks and timed "
    "iterations",
    Direction::kLower,
    Kind::kCount};
}  // namespace correctness

// The GEMM check's stats columns: the point's shape (matmul's), its throughput with the check,
// then the counts.
namespace correctness {
inline constexpr Column kCheckedTflopsColumn{
    "checked_tflops",
    Type::kFloat64,
    "TFLOP/s",
    "2 m n k / time of the slowest rank, median over iterations, the time holding the GEMM, the "
    "hash of its result and the hash exchange: the check's own rate, for the load it puts on "
    "the device",
    Direction::kHigher,
    Kind::kWorkRate,
    PerIteration::kInverseTime,
    "",
    true};
}  // namespace correctness
inline constexpr std::array kCorrectnessGemmStatsColumns = {
    matmul::kGemmMColumn,
    matmul::kGemmNColumn,
    matmul::kGemmKColumn,
    matmul::kFlopColumn,
    correctness::kCheckedTflopsColumn,
    correctness::kCheckedResultsColumn,
    correctness::kWrongResultsColumn,
};

// The collective sweep's stats columns: the point's size (comm's), its rate with the check,
// then the counts.
namespace correctness {
inline constexpr Column kCheckedAlgbwColumn{
    "checked_algbw",
    Type::kFloat64,
    "GB/s",
    "size_bytes / time of the slowest rank, median over iterations, the time holding the "
    "collective and the check of its full result",
    Direction::kHigher,
    Kind::kDataRate,
    PerIteration::kInverseTime,
    "",
    true};
}  // namespace correctness
inline constexpr std::array kCorrectnessCollectiveStatsColumns = {
    comm::kSizeBytesColumn,           comm::kCountColumn,
    correctness::kCheckedAlgbwColumn, correctness::kCheckedResultsColumn,
    correctness::kWrongResultsColumn,
};

// Counters (points/<P>/counters/<name>, timed iteration x rank).
namespace correctness {
inline constexpr Column kWrongElementsCounter{
    "wrong_elements",
    Type::kFloat64,
    "elements",
    "elements of the rank's result that were wrong in the iteration: different from the "
    "majority's result of its class (gemm; from its own first result in a class of one), or "
    "from the fill pattern (collective); 0: right",
    Direction::kLower,
    Kind::kCount};
}  // namespace correctness
inline constexpr std::array kCorrectnessCounters = {
    correctness::kWrongElementsCounter,
};

// Series (points/<P>/series/<name>, event x rank): each rank's first events_kept wrong results,
// one row each, the same row in every series; NaN below a rank's last event.
namespace correctness {
inline constexpr Column kWrongIterationSeries{
    "wrong_iteration",
    Type::kFloat64,
    "",
    "the timed iteration (from 0) of the wrong result; -1: a run outside the timed iterations (the "
    "check before timing, warm-up)",
    Direction::kNone,
    Kind::kLabel};
inline constexpr Column kWrongElementSeries{
    "wrong_element",
    Type::kFloat64,
    "",
    "the first wrong element's index in the result (gemm: j m + i of C, column-major; "
    "collective: its place in the output buffer)",
    Direction::kNone,
    Kind::kLabel};
inline constexpr Column kWrongExpectedSeries{
    "wrong_expected", Type::kFloat64, "", "the value the element should have held",
    Direction::kNone, Kind::kLabel};
inline constexpr Column kWrongFoundSeries{"wrong_found",       Type::kFloat64,   "",
                                          "the value it held", Direction::kNone, Kind::kLabel};
inline constexpr Column kWrongCountSeries{"wrong_count",    Type::kFloat64,
                                          "elements",       "the wrong elements of that result",
                                          Direction::kNone, Kind::kCount};
inline constexpr Column kWrongSourceSeries{
    "wrong_source",
    Type::kFloat64,
    "",
    "gemm: the rank whose result was taken as right (the majority's; the rank itself in a class "
    "of one); collective: the rank the element came from where the pattern tells (all-gather's "
    "block), -1 for a reduced element",
    Direction::kNone,
    Kind::kLabel};
}  // namespace correctness
inline constexpr std::array kCorrectnessSeries = {
    correctness::kWrongIterationSeries, correctness::kWrongElementSeries,
    correctness::kWrongExpectedSeries,  correctness::kWrongFoundSeries,
    correctness::kWrongCountSeries,     correctness::kWrongSourceSeries,
};

// What every correctness case declares (SPEC.md, "The correctness family", Meaning). Its figures
// are the check's load, not a verdict: no peer or scaling rule judges them; the report's
// correctness plug-in judges the counters and events.
namespace correctness {
inline constexpr FamilySchema kGemmDeclaration{
    .name = kCorrectnessFamily,
    .stage = Stage::kCorrectness,
    .x_axis = matmul::kFlopColumn.name,
    .bands = Bands::kEachPoint,
    .scaling = Scaling::kNone,
    .series = "ranks",
    .peer_slow = false,
    .peer_late = false,
    .min_samples = 1,
    .case_attributes = kCorrectnessGemmCaseAttributes,
    .stats_columns = kCorrectnessGemmStatsColumns,
    .counters = kCorrectnessCounters,
    .series_datasets = kCorrectnessSeries,
};
inline constexpr FamilySchema kCollectiveDeclaration{
    .name = kCorrectnessFamily,
    .stage = Stage::kCorrectness,
    .x_axis = comm::kSizeBytesColumn.name,
    .bands = Bands::kSizeBands,
    .scaling = Scaling::kNone,
    .series = "ranks",
    .peer_slow = false,
    .peer_late = false,
    .min_samples = 1,
    .case_attributes = kCorrectnessCollectiveCaseAttributes,
    .stats_columns = kCorrectnessCollectiveStatsColumns,
    .counters = kCorrectnessCounters,
    .series_datasets = kCorrectnessSeries,
};
}  // namespace correctness

}  // namespace preflight::schema
