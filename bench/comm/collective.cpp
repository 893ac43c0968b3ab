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

template <typename Table, typename E>
std::string_view lookup_name(const Table& table, E value) {
  for (const auto& [v, n] : table)
    if (v == value) return n;
  return "?";
}

template <typename Table>
auto lookup_value(const Table& table, std::string_view name)
    -> std::optional<decltype(table[0].first)> {
  for (const auto& [v, n] : table)
    if (n == name) return v;
  return std::nullopt;
}

template <typename Table>
std::string join_names(const Table& table) {
  std::string out;
  for (const auto& [v, n] : table) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

bool chunked(Collective c) {
  return c == Collective::kAllGather || c == Collective::kReduceScatter ||
         c == Collective::kAllToAll;
}

}  // namespace

std::string_view name_of(Collective c) {
  return lookup_name(kCollectives, c);
}
std::string_view name_of(DType t) {
  return lookup_name(kDTypes, t);
}
std::string_view name_of(RedOp op) {
  return lookup_name(kRedOps, op);
}
std::optional<Collective> collective_named(std::string_view n) {
  return lookup_value(kCollectives, n);
}
std::optional<DType> dtype_named(std::string_view n) {
  return lookup_value(kDTypes, n);
}
std::optional<RedOp> redop_named(std::string_view n) {
  return lookup_value(kRedOps, n);
}
std::string names_of_collectives() {
  return join_names(kCollectives);
}
std::string names_of_dtypes() {
  return join_names(kDTypes);
}
std::string names_of_redops() {
  return join_names(kRedOps);
}

const std::vector<Collective>& all_collectives() {
  static const std::vector<Collective> all = [] {
    std::vector<Collective> v;
    for (const auto& [c, n] : kCollectives) v.push_back(c);
    return v;
  }();
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
