// The MPI backend: host buffers and blocking MPI collectives on the group's communicator.
#include <fmt/format.h>

#include <array>
#include <climits>
#include <cstddef>
#include <utility>
#include <vector>

#include "comm/backend.hpp"
#include "comm/expected.hpp"
#include "comm/mpi_types.hpp"
#include "cpu/page_aligned.hpp"
#include "cpu/pattern.hpp"
#include "preflight/common/collective_traits.hpp"
#include "preflight/common/usage_error.hpp"

namespace preflight::comm {
namespace {

constexpr int kRoot = 0;

class MpiGroup final : public CommGroup {
 public:
  explicit MpiGroup(MPI_Comm comm) : comm_(comm) {}
  MPI_Comm comm() const { return comm_; }

 private:
  MPI_Comm comm_;  // owned by the case's group set, not here
};

MPI_Op mpi_op(RedOp op) {
  switch (op) {
    case RedOp::kMax:
      return MPI_MAX;
    case RedOp::kMin:
      return MPI_MIN;
    case RedOp::kProd:
      return MPI_PROD;
    default:
      return MPI_SUM;
  }
}

int mpi_count(std::uint64_t elements) {
  if (elements > static_cast<std::uint64_t>(INT_MAX))
    throw UsageError(
        fmt::format("sizes: {} elements per buffer exceed what one MPI call takes ({}); "
                    "use a smaller --max-bytes or a larger --dtype",
                    elements, INT_MAX));
  return static_cast<int>(elements);
}

// False for every collective: run()'s last branch fails to compile for a collective with a row
// in the traits table and no MPI call.
template <Collective>
constexpr bool kNoMpiCall = false;

// One collective on one element type. The collective is a template argument and every
// argument of the call is worked out once, here, so that run(), what the harness times, is the
// MPI call and nothing else: no switch, no datatype lookup, no neighbour arithmetic per call.
// Its buffers and which of them matter on this rank are its traits row's (comm/expected.hpp).
template <typename T, Collective C>
class MpiCollective final : public Operation {
 public:
  MpiCollective(const CollectivePoint& p, MPI_Comm comm)
      : p_(p),
        comm_(comm),
        type_(mpi_type(p.spec.dtype)),
        op_(mpi_op(p.spec.redop)),
        count_(mpi_count(p.chunk)),
        send_(p.spec.in_place ? 0 : input_elements(p)),
        recv_(output_elements(p)),
        root_(p.rank == kRoot),
        next_((p.rank + 1) % p.ranks),
        previous_((p.rank + p.ranks - 1) % p.ranks) {
    mpi_count(recv_.size());
    // MPI takes MPI_IN_PLACE from the root of a rooted collective only: in place, the other
    // ranks send from their one buffer, and pass no receive buffer where they hold no result.
    source_ = !p.spec.in_place                  ? send_.data()
              : traits_of(C).has_root && !root_ ? recv_.data()
                                                : MPI_IN_PLACE;
    target_ = holds_result(p) ? recv_.data() : nullptr;
  }

  void fill() override {
    std::fill(recv_.begin(), recv_.end(), T{});
    if (!holds_input(p_)) return;  // its input is never read: it receives into zeros
    if (p_.spec.in_place)
      fill_input<T>(p_, std::span<T>(recv_).subspan(in_place_input_offset(p_), input_elements(p_)));
    else
      fill_input<T>(p_, send_);
  }

  void run() override {
    if constexpr (C == Collective::kAllReduce) {
      MPI_Allreduce(source_, target_, count_, type_, op_, comm_);
    } else if constexpr (C == Collective::kAllGather) {
      MPI_Allgather(source_, count_, type_, target_, count_, type_, comm_);
    } else if constexpr (C == Collective::kReduceScatter) {
      MPI_Reduce_scatter_block(source_, target_, count_, type_, op_, comm_);
    } else if constexpr (C == Collective::kAllToAll) {
      MPI_Alltoall(source_, count_, type_, target_, count_, type_, comm_);
    } else if constexpr (C == Collective::kBroadcast) {
      MPI_Bcast(target_, count_, type_, kRoot, comm_);
    } else if constexpr (C == Collective::kReduce) {
      MPI_Reduce(source_, target_, count_, type_, op_, kRoot, comm_);
    } else if constexpr (C == Collective::kSendRecv) {
      if (source_ == MPI_IN_PLACE)
        MPI_Sendrecv_replace(target_, count_, type_, next_, 0, previous_, 0, comm_,
                             MPI_STATUS_IGNORE);
      else
        MPI_Sendrecv(source_, count_, type_, next_, 0, target_, count_, type_, previous_, 0, comm_,
                     MPI_STATUS_IGNORE);
    } else {
      static_assert(kNoMpiCall<C>, "a collective of the traits table without its MPI call");
    }
  }

  std::uint64_t count_wrong() override {
    return comm::count_wrong<T>(p_, std::span<const T>(recv_).first(result_elements(p_)));
  }

  void corrupt_result() override {
    if (holds_result(p_)) kernels::corrupt(std::span<T>(recv_).first(result_elements(p_)));
  }

 private:
  CollectivePoint p_;
  MPI_Comm comm_;
  MPI_Datatype type_;
  MPI_Op op_;
  int count_;
  kernels::PageVector<T> send_;  // page-aligned, so that MPI's copies between them run at
  kernels::PageVector<T> recv_;  // the memory's speed wherever the allocator put them
  bool root_;
  int next_;      // send/recv: the rank this one sends to ...
  int previous_;  // ... and the one it receives from
  const void* source_ = nullptr;
  void* target_ = nullptr;
};

// The operation for p.spec.op, from a table with one maker per row of kCollectiveTraits (built
// over the enum's values, so a new collective needs only its call in run() above).
using Maker = std::unique_ptr<Operation> (*)(const CollectivePoint&, MPI_Comm);

template <typename T, std::size_t... I>
constexpr std::array<Maker, sizeof...(I)> makers(std::index_sequence<I...>) {
  return {+[](const CollectivePoint& p, MPI_Comm comm) -> std::unique_ptr<Operation> {
    return std::make_unique<MpiCollective<T, static_cast<Collective>(I)>>(p, comm);
  }...};
}

template <typename T>
std::unique_ptr<Operation> make_collective(const CollectivePoint& p, MPI_Comm comm) {
  static constexpr auto kMakers = makers<T>(std::make_index_sequence<kCollectiveTraits.size()>{});
  return kMakers[static_cast<std::size_t>(p.spec.op)](p, comm);
}

class MpiBackend final : public CommBackend {
 public:
  std::string_view name() const override { return "mpi"; }
  std::uint64_t max_elements() const override { return static_cast<std::uint64_t>(INT_MAX); }
  // A capability of MPI's, not a trait of the collective: MPI_Bcast has one buffer, where
  // ncclBroadcast has a send and a receive buffer.
  bool supports_out_of_place(Collective c) const override { return c != Collective::kBroadcast; }
  bool supports(DType t) const override { return t != DType::kFloat16 && t != DType::kBFloat16; }
  std::unique_ptr<CommGroup> connect(MPI_Comm group) override {
    return std::make_unique<MpiGroup>(group);
  }

  std::unique_ptr<Operation> make_operation(const CollectivePoint& p, CommGroup& group) override {
    const MPI_Comm comm = static_cast<MpiGroup&>(group).comm();
    switch (p.spec.dtype) {
      case DType::kFloat32:
        return make_collective<float>(p, comm);
      case DType::kFloat64:
        return make_collective<double>(p, comm);
      case DType::kInt32:
        return make_collective<std::int32_t>(p, comm);
      case DType::kInt64:
        return make_collective<std::int64_t>(p, comm);
      case DType::kUInt32:
        return make_collective<std::uint32_t>(p, comm);
      case DType::kUInt64:
        return make_collective<std::uint64_t>(p, comm);
      case DType::kInt8:
        return make_collective<std::int8_t>(p, comm);
      case DType::kUInt8:
        return make_collective<std::uint8_t>(p, comm);
      case DType::kFloat16:
      case DType::kBFloat16:
        break;  // refused by supports() before any case is made
    }
    return nullptr;
  }
};

}  // namespace

std::unique_ptr<CommBackend> make_mpi_backend(const BackendSettings&) {
  return std::make_unique<MpiBackend>();
}

}  // namespace preflight::comm
