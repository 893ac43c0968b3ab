// The fabric family's names and their meaning (SPEC.md, "The fabric family"): its case
// attributes and stats columns. The writer writes these declarations and the report's
// pair-matrix plug-in reads the same names.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "preflight/schema/family_names.hpp"
#include "preflight/schema/layout.hpp"
#include "preflight/schema/meaning.hpp"

namespace preflight::schema {

// Case attribute names the plug-in reads.
inline constexpr std::string_view kFabricTestAttribute = "pair_test";
inline constexpr std::string_view kFabricPairsAttribute = "pairs";
inline constexpr std::string_view kFabricPassAttribute = "sweep_pass";

inline constexpr std::array kFabricCaseAttributes = {
    Item{"pair_test", Type::kString, "", "latency, bandwidth (one way) or bidirectional"},
    Item{"transport", Type::kString, "", "ofi (libfabric RDM endpoints) or mpi (send/recv)"},
    Item{"provider", Type::kString, "", "the libfabric provider and domain used; mpi for mpi"},
    Item{"round", Type::kInt64, "", "round of the pair schedule, from 0"},
    Item{"sweep_pass", Type::kInt64, "", "pass over the schedule, from 0; later passes retest"},
    Item{"pairs", Type::kString, "",
         "world ranks of each group's two members, group by group: `0:3 1:2`"},
    Item{"window", Type::kInt64, "messages", "messages in flight per bandwidth iteration"},
};

// Stats columns of latency cases (size, headline and its back-to-back twin, latency and its
// twin), then of bandwidth cases (size, headline, twin). The headline of a latency case is the
// round trip itself, the time measured, so that its confidence interval is the time's; latency is
// half of it, as osu_latency shows.
enum FabricColumn : std::size_t {
  kFabricSizeBytes,
  kFabricHeadline,
  kFabricBatchedHeadline,
  kFabricLatency,
  kFabricBatchedLatency
};
inline constexpr std::array kFabricLatencyColumns = {
    Column{"size_bytes", Type::kInt64, "B", "bytes of one message", Direction::kNone, Kind::kCount},
    Column{"round_trip", Type::kFloat64, "s", "one ping-pong: a message there and back",
           Direction::kLower, Kind::kTime, PerIteration::kTime, "", true},
    Column{"batched_round_trip", Type::kFloat64, "s", "round_trip from the back-to-back time",
           Direction::kLower, Kind::kTime},
    Column{"pair_latency", Type::kFloat64, "s", "round_trip / 2", Direction::kLower, Kind::kTime},
    Column{"batched_pair_latency", Type::kFloat64, "s", "pair_latency from the back-to-back time",
           Direction::kLower, Kind::kTime},
};
inline constexpr std::array kFabricBandwidthColumns = {
    Column{"size_bytes", Type::kInt64, "B", "bytes of one message", Direction::kNone, Kind::kCount},
    Column{"pair_bandwidth", Type::kFloat64, "GB/s",
           "bytes sent by the pair (both ways for bidirectional) / time, 10^9 bytes per GB",
           Direction::kHigher, Kind::kDataRate, PerIteration::kInverseTime, "", true},
    Column{"batched_pair_bandwidth", Type::kFloat64, "GB/s",
           "pair_bandwidth from the back-to-back time", Direction::kHigher, Kind::kDataRate,
           PerIteration::kInverseTime},
};
static_assert(kFabricLatencyColumns.size() == 5 && kFabricBandwidthColumns.size() == 3);
static_assert(kFabricLatencyColumns[kFabricLatency].name == "pair_latency");
static_assert(kFabricLatencyColumns[kFabricSizeBytes].name == "size_bytes");
static_assert(kFabricBandwidthColumns[kFabricSizeBytes].name == "size_bytes");

// What every fabric case declares (SPEC.md, "The fabric family", Meaning). Pairs are not
// peers of each other: the pair-matrix plug-in compares them, not the generic outlier analysis.
inline constexpr Stage kFabricStage = Stage::kCommunication;
inline constexpr std::string_view kFabricXAxis = kFabricLatencyColumns[kFabricSizeBytes].name;
inline constexpr Bands kFabricBands = Bands::kSizeBands;
inline constexpr Scaling kFabricScaling = Scaling::kNone;
inline constexpr std::string_view kFabricSeriesName = "";
inline constexpr bool kFabricPeerSlow = false;
inline constexpr bool kFabricPeerLate = false;
inline constexpr std::string_view kFabricWorkCounter = "";
inline constexpr std::string_view kFabricQuality = "";
inline constexpr int kFabricMinSamples = 5;

}  // namespace preflight::schema
