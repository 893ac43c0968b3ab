// The comm family's names and their meaning (SPEC.md, "The comm family"): its case attributes
// and stats columns. The writer writes these declarations and the report's comm plug-in reads
// the same names.
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

namespace comm {
inline constexpr Attr<std::string> kCollective{
    "collective", "", "allreduce, allgather, reducescatter, broadcast, reduce, alltoall, sendrecv"};
inline constexpr Attr<std::string> kDtype{
    "dtype", "",
    "float32, float64, int32, int64, uint32, uint64, int8, uint8, float16, bfloat16 (the "
    "16-bit floating types with backend nccl only)"};
inline constexpr Attr<std::string> kRedop{
    "redop", "", "sum, max, min, prod; none for collectives without a reduction"};
inline constexpr Attr<std::int64_t> kRoot{
    "root", "", "root rank within each group (broadcast, reduce), else -1"};
inline constexpr Attr<std::string> kPlacement{"placement", "", "in-place or out-of-place"};
inline constexpr Attr<std::string> kTopology{"topology", "", "world, intra, inter, rail or ladder"};
inline constexpr Attr<std::string> kLayout{"layout", "",
                                           "the layout's label, e.g. `ladder 2 nodes`"};
inline constexpr Attr<std::int64_t> kLadderNodes{
    "ladder_nodes", "nodes", "nodes in this ladder step; 0 for other topologies"};
inline constexpr Attr<std::string> kMeasures{
    "measures", "",
    "bandwidth between ranks; or, where every group has one rank, `launch and correctness: one "
    "rank per group, nothing crosses between ranks` (its bandwidth columns are NaN)"};
}  // namespace comm
inline constexpr std::array kCommCaseAttributes = {
    comm::kCollective.item(), comm::kDtype.item(),       comm::kRedop.item(),
    comm::kRoot.item(),       comm::kPlacement.item(),   comm::kTopology.item(),
    comm::kLayout.item(),     comm::kLadderNodes.item(), comm::kMeasures.item(),
};

// The two values of the case attribute `measures`.
inline constexpr std::string_view kCommMeasuresBandwidth = "bandwidth between ranks";
inline constexpr std::string_view kCommMeasuresLaunch =
    "launch and correctness: one rank per group, nothing crosses between ranks";

// Further case attributes of a case the NCCL backend ran (backend `nccl`): how its figures were
// taken, in the order the backend writes them.
namespace comm {
inline constexpr Attr<std::string> kLaunch{
    "launch", "",
    "stream: each operation queued by its NCCL call; cuda-graph: replayed from a CUDA graph "
    "captured once"};
inline constexpr Attr<std::string> kRegistration{
    "registration", "",
    "off, local (ncclCommRegister) or window (ncclCommWindowRegister, symmetric)"};
inline constexpr Attr<std::string> kTimer{
    "timer", "", "cuda-events: times are CUDA events on the operations' stream"};
}  // namespace comm
inline constexpr std::array kCommGpuCaseAttributes = {
    comm::kLaunch.item(),
    comm::kRegistration.item(),
    comm::kTimer.item(),
};

// Stats columns: the point columns size_bytes and count, then the time metrics and their
// back-to-back twins, in this order.
namespace comm {
inline constexpr Column kSizeBytesColumn{
    "size_bytes",     Type::kInt64, "B", "bytes the size column of nccl-tests would show",
    Direction::kNone, Kind::kCount};
inline constexpr Column kCountColumn{
    "count", Type::kInt64, "elements", "size_bytes / element size", Direction::kNone, Kind::kCount};
inline constexpr Column kAlgbwColumn{"algbw",
                                     Type::kFloat64,
                                     "GB/s",
                                     "size_bytes / time, 10^9 bytes per GB",
                                     Direction::kHigher,
                                     Kind::kDataRate,
                                     PerIteration::kInverseTime};
inline constexpr Column kBusbwColumn{"busbw",
                                     Type::kFloat64,
                                     "GB/s",
                                     "algbw x bus factor",
                                     Direction::kHigher,
                                     Kind::kDataRate,
                                     PerIteration::kInverseTime,
                                     "",
                                     true};
inline constexpr Column kBatchedAlgbwColumn{"batched_algbw",
                                            Type::kFloat64,
                                            "GB/s",
                                            "algbw from the back-to-back time",
                                            Direction::kHigher,
                                            Kind::kDataRate,
                                            PerIteration::kInverseTime};
inline constexpr Column kBatchedBusbwColumn{"batched_busbw",
                                            Type::kFloat64,
                                            "GB/s",
                                            "busbw from the back-to-back time",
                                            Direction::kHigher,
                                            Kind::kDataRate,
                                            PerIteration::kInverseTime};
}  // namespace comm
inline constexpr std::array kCommStatsColumns = {
    comm::kSizeBytesColumn, comm::kCountColumn,        comm::kAlgbwColumn,
    comm::kBusbwColumn,     comm::kBatchedAlgbwColumn, comm::kBatchedBusbwColumn,
};

// What every comm case declares (SPEC.md, "The comm family", Meaning). Its series is its
// topology (the case attribute), its subject the case name without the layout label.
namespace comm {
inline constexpr std::array kAllCaseAttributes =
    concat(kCommCaseAttributes, kCommGpuCaseAttributes);
inline constexpr FamilySchema kDeclaration{
    .name = kCommFamily,
    .stage = Stage::kCommunication,
    .x_axis = kSizeBytesColumn.name,
    .bands = Bands::kSizeBands,
    .scaling = Scaling::kPerRank,  // bus bandwidth: ideal flat
    .series = "",                  // each case's own: its topology
    .peer_slow = true,
    .peer_late = true,  // the others wait for a late rank inside the call
    .min_samples = 10,
    .case_attributes = kAllCaseAttributes,
    .stats_columns = kCommStatsColumns,
};
}  // namespace comm

}  // namespace preflight::schema
