#include "comm/collective.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace preflight::comm {
namespace {

constexpr std::array kCollectives = {
    std::pair{Collective::kAllReduce, std::string_view("allreduce")},
    std::pair{Collective::kAllGather, std::string_view("allgather")},
    std::pair{Collective::kReduceScatter, std::string_view("reducescatter")},
    std::pair{Collective::kBroadcast, std::string_view("broadcast")},
    std::pair{Collective::kReduce, std::string_view("reduce")},
    std::pair{Collective::kAllToAll, std::string_view("alltoall")},
    std::pair{Collective::kSendRecv, std::string_view("sendrecv")},
};
constexpr std::array kDTypes = {
    std::pair{DType::kFloat32, std::string_view("float32")},
    std::pair{DType::kFloat64, std::string_view("float64")},
    std::pair{DType::kInt32, std::string_view("int32")},
    std::pair{DType::kInt64, std::string_view("int64")},
    std::pair{DType::kUInt32, std::string_view("uint32")},
    std::pair{DType::kUInt64, std::string_view("uint64")},
};
constexpr std::array kRedOps = {
    std::pair{RedOp::kSum, std::string_view("sum")},
    std::pair{RedOp::kMax, std::string_view("max")},
    std::pair{RedOp::kMin, std::string_view("min")},
};

constexpr NameTable<Collective> kCollectiveNames{kCollectives};
constexpr NameTable<DType> kDTypeNames{kDTypes};
constexpr NameTable<RedOp> kRedOpNames{kRedOps};

bool chunked(Collective c) {
  return c == Collective::kAllGather || c == Collective::kReduceScatter ||
         c == Collective::kAllToAll;
}

}  // namespace

const NameTable<Collective>& collective_names() {
  return kCollectiveNames;
}
const NameTable<DType>& dtype_names() {
  return kDTypeNames;
}
const NameTable<RedOp>& redop_names() {
  return kRedOpNames;
}
std::string_view name_of(Collective c) {
  return kCollectiveNames.name(c);
}
std::string_view name_of(DType t) {
  return kDTypeNames.name(t);
}
std::string_view name_of(RedOp op) {
  return kRedOpNames.name(op);
}

const std::vector<Collective>& all_collectives() {
  static const std::vector<Collective> all = kCollectiveNames.values();
  return all;
}

std::size_t size_of(DType t) {
  switch (t) {
    case DType::kFloat32:
    case DType::kInt32:
    case DType::kUInt32:
      return 4;
    default:
      return 8;
  }
}

bool reduces(Collective c) {
  return c == Collective::kAllReduce || c == Collective::kReduceScatter || c == Collective::kReduce;
}

bool has_root(Collective c) {
  return c == Collective::kBroadcast || c == Collective::kReduce;
}

double bus_factor(Collective c, int n) {
  if (n <= 0) return 0;
  const double ranks = n;
  switch (c) {
    case Collective::kAllReduce:
      return 2 * (ranks - 1) / ranks;
    case Collective::kAllGather:
    case Collective::kReduceScatter:
    case Collective::kAllToAll:
      return (ranks - 1) / ranks;
    default:
      return 1;
  }
}

std::uint64_t chunk_elements(Collective c, std::uint64_t bytes, DType t, int n) {
  if (bytes == 0) return 0;
  const std::uint64_t divisor =
      size_of(t) * (chunked(c) ? static_cast<std::uint64_t>(std::max(n, 1)) : 1);
  return std::max<std::uint64_t>(1, bytes / divisor);
}

std::uint64_t reported_bytes(Collective c, std::uint64_t chunk, DType t, int n) {
  return chunk * size_of(t) * (chunked(c) ? static_cast<std::uint64_t>(std::max(n, 1)) : 1);
}

}  // namespace preflight::comm
