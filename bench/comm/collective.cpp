#include "comm/collective.hpp"

#include "preflight/common/collective_traits.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace preflight::comm {
namespace {

// The name table comes from the traits table, whose row i is the enum's value i (asserted
// beside the table).
constexpr auto kCollectives = [] {
  std::array<std::pair<Collective, std::string_view>, kCollectiveTraits.size()> names{};
  for (std::size_t i = 0; i < names.size(); ++i)
    names[i] = {kCollectiveTraits[i].collective, kCollectiveTraits[i].name};
  return names;
}();
constexpr std::array kDTypes = {
    std::pair{DType::kFloat32, std::string_view("float32")},
    std::pair{DType::kFloat64, std::string_view("float64")},
    std::pair{DType::kInt32, std::string_view("int32")},
    std::pair{DType::kInt64, std::string_view("int64")},
    std::pair{DType::kUInt32, std::string_view("uint32")},
    std::pair{DType::kUInt64, std::string_view("uint64")},
    std::pair{DType::kInt8, std::string_view("int8")},
    std::pair{DType::kUInt8, std::string_view("uint8")},
    std::pair{DType::kFloat16, std::string_view("float16")},
    std::pair{DType::kBFloat16, std::string_view("bfloat16")},
};
constexpr std::array kRedOps = {
    std::pair{RedOp::kSum, std::string_view("sum")},
    std::pair{RedOp::kMax, std::string_view("max")},
    std::pair{RedOp::kMin, std::string_view("min")},
    std::pair{RedOp::kProd, std::string_view("prod")},
};

constexpr NameTable<Collective> kCollectiveNames{kCollectives};
constexpr NameTable<DType> kDTypeNames{kDTypes};
constexpr NameTable<RedOp> kRedOpNames{kRedOps};

const CollectiveTraits& traits(Collective c) {
  return traits_of(c);
}

bool chunked(Collective c) {
  return traits(c).chunked();
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
    case DType::kInt8:
    case DType::kUInt8:
      return 1;
    case DType::kFloat16:
    case DType::kBFloat16:
      return 2;
    case DType::kFloat32:
    case DType::kInt32:
    case DType::kUInt32:
      return 4;
    case DType::kFloat64:
    case DType::kInt64:
    case DType::kUInt64:
      return 8;
  }
  return 8;
}

bool reduces(Collective c) {
  return traits(c).reduces;
}

bool has_root(Collective c) {
  return traits(c).has_root;
}

double bus_factor(Collective c, int n) {
  return n <= 0 ? 0 : traits(c).bus_factor(static_cast<double>(n));
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
