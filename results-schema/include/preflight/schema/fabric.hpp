// The fabric family's names and their meaning (SPEC.md, "The fabric family"): its case
// attributes and stats columns. The writer writes these declarations and the report's
// pair-matrix plug-in reads the same names.
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

namespace fabric {
inline constexpr Attr<std::string> kPairTest{"pair_test", "",
                                             "latency, bandwidth (one way) or bidirectional"};
inline constexpr Attr<std::string> kTransport{"transport", "",
                                              "ofi (libfabric RDM endpoints) or mpi (send/recv)"};
inline constexpr Attr<std::string> kProvider{"provider", "",
                                             "the libfabric provider and domain used; mpi for mpi"};
inline constexpr Attr<std::int64_t> kRound{"round", "", "round of the pair schedule, from 0"};
inline constexpr Attr<std::int64_t> kSweepPass{
    "sweep_pass", "", "pass over the schedule, from 0; later passes retest"};
inline constexpr Attr<std::string> kPairs{
    "pairs", "", "world ranks of each group's two members, group by group: `0:3 1:2`"};
inline constexpr Attr<std::int64_t> kWindow{"window", "messages",
                                            "messages in flight per bandwidth iteration"};
}  // namespace fabric
inline constexpr std::array kFabricCaseAttributes = {
    fabric::kPairTest.item(), fabric::kTransport.item(), fabric::kProvider.item(),
    fabric::kRound.item(),    fabric::kSweepPass.item(), fabric::kPairs.item(),
    fabric::kWindow.item(),
};

// Stats columns of latency cases (size, headline and its back-to-back twin, latency and its
// twin), then of bandwidth cases (size, headline, twin). The headline of a latency case is the
// round trip itself, the time measured, so that its confidence interval is the time's; latency is
// half of it, as osu_latency shows.
namespace fabric {
inline constexpr Column kSizeBytesColumn{"size_bytes",           Type::kInt64,     "B",
                                         "bytes of one message", Direction::kNone, Kind::kCount};
inline constexpr Column kRoundTripColumn{"round_trip",
                                         Type::kFloat64,
                                         "s",
                                         "one ping-pong: a message there and back",
                                         Direction::kLower,
                                         Kind::kTime,
                                         PerIteration::kTime,
                                         "",
                                         true};
inline constexpr Column kBatchedRoundTripColumn{
    "batched_round_trip", Type::kFloat64, "s", "round_trip from the back-to-back time",
    Direction::kLower,    Kind::kTime};
inline constexpr Column kPairLatencyColumn{"pair_latency",   Type::kFloat64,    "s",
                                           "round_trip / 2", Direction::kLower, Kind::kTime};
inline constexpr Column kBatchedPairLatencyColumn{
    "batched_pair_latency", Type::kFloat64, "s", "pair_latency from the back-to-back time",
    Direction::kLower,      Kind::kTime};
}  // namespace fabric
inline constexpr std::array kFabricLatencyColumns = {
    fabric::kSizeBytesColumn,   fabric::kRoundTripColumn,          fabric::kBatchedRoundTripColumn,
    fabric::kPairLatencyColumn, fabric::kBatchedPairLatencyColumn,
};
namespace fabric {
inline constexpr Column kPairBandwidthColumn{
    "pair_bandwidth",
    Type::kFloat64,
    "GB/s",
    "bytes sent by the pair (both ways for bidirectional) / time, 10^9 bytes per GB",
    Direction::kHigher,
    Kind::kDataRate,
    PerIteration::kInverseTime,
    "",
    true};
inline constexpr Column kBatchedPairBandwidthColumn{"batched_pair_bandwidth",
                                                    Type::kFloat64,
                                                    "GB/s",
                                                    "pair_bandwidth from the back-to-back time",
                                                    Direction::kHigher,
                                                    Kind::kDataRate,
                                                    PerIteration::kInverseTime};
}  // namespace fabric
inline constexpr std::array kFabricBandwidthColumns = {
    fabric::kSizeBytesColumn,
    fabric::kPairBandwidthColumn,
    fabric::kBatchedPairBandwidthColumn,
};
static_assert(kFabricLatencyColumns.size() == 5 && kFabricBandwidthColumns.size() == 3);

// What every fabric case declares (SPEC.md, "The fabric family", Meaning). Pairs are not
// peers of each other: the pair-matrix plug-in compares them, not the generic outlier analysis.
namespace fabric {
// Every stats column a fabric case may write: a latency case's, then a bandwidth case's.
inline constexpr std::array kAllStatsColumns = {
    kSizeBytesColumn,
    kRoundTripColumn,
    kBatchedRoundTripColumn,
    kPairLatencyColumn,
    kBatchedPairLatencyColumn,
    kPairBandwidthColumn,
    kBatchedPairBandwidthColumn,
};
inline constexpr FamilySchema kDeclaration{
    .name = kFabricFamily,
    .stage = Stage::kCommunication,
    .x_axis = kSizeBytesColumn.name,
    .bands = Bands::kSizeBands,
    .scaling = Scaling::kNone,
    .series = "",
    .peer_slow = false,
    .peer_late = false,
    .min_samples = 5,
    .case_attributes = kFabricCaseAttributes,
    .stats_columns = kAllStatsColumns,
};
}  // namespace fabric

}  // namespace preflight::schema
