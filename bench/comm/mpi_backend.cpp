// The MPI backend: host buffers and blocking MPI collectives on the group's communicator.
#include <fmt/format.h>

#include <climits>
#include <vector>

#include "comm/backend.hpp"
#include "comm/expected.hpp"
#include "cpu/pattern.hpp"
#include "harness/usage_error.hpp"

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

MPI_Datatype mpi_type(DType t) {
  switch (t) {
    case DType::kFloat32:
      return MPI_FLOAT;
    case DType::kFloat64:
      return MPI_DOUBLE;
    case DType::kInt32:
      return MPI_INT32_T;
    case DType::kInt64:
      return MPI_INT64_T;
    case DType::kUInt32:
      return MPI_UINT32_T;
    case DType::kUInt64:
      return MPI_UINT64_T;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op mpi_op(RedOp op) {
  switch (op) {
    case RedOp::kMax:
      return MPI_MAX;
    case RedOp::kMin:
      return MPI_MIN;
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

template <typename T>
class MpiCollective final : public Operation {
 public:
  MpiCollective(const CollectivePoint& p, MPI_Comm comm)
      : p_(p),
        comm_(comm),
        type_(mpi_type(p.spec.dtype)),
        op_(mpi_op(p.spec.redop)),
        count_(mpi_count(p.chunk)),
        send_(p.spec.in_place ? 0 : input_elements(p)),
        recv_(output_elements(p)) {
    mpi_count(recv_.size());
  }

  void fill() override {
    std::fill(recv_.begin(), recv_.end(), T{});
    if (p_.spec.op == Collective::kBroadcast) {
      if (p_.rank == kRoot) fill_input<T>(p_, recv_);
    } else if (p_.spec.in_place) {
      fill_input<T>(p_, std::span<T>(recv_).subspan(in_place_input_offset(p_), input_elements(p_)));
    } else {
      fill_input<T>(p_, send_);
    }
  }

  void run() override {
    switch (p_.spec.op) {
      case Collective::kAllReduce:
        MPI_Allreduce(source(), recv_.data(), count_, type_, op_, comm_);
        break;
      case Collective::kAllGather:
        MPI_Allgather(source(), count_, type_, recv_.data(), count_, type_, comm_);
        break;
      case Collective::kReduceScatter:
        MPI_Reduce_scatter_block(source(), recv_.data(), count_, type_, op_, comm_);
        break;
      case Collective::kAllToAll:
        MPI_Alltoall(source(), count_, type_, recv_.data(), count_, type_, comm_);
        break;
      case Collective::kBroadcast:
        MPI_Bcast(recv_.data(), count_, type_, kRoot, comm_);
        break;
      case Collective::kReduce:
        reduce();
        break;
      case Collective::kSendRecv:
        send_recv();
        break;
    }
  }

  std::uint64_t count_wrong() override {
    return comm::count_wrong<T>(p_, std::span<const T>(recv_).first(result_elements(p_)));
  }

  void corrupt_result() override {
    if (holds_result(p_)) kernels::corrupt(std::span<T>(recv_).first(result_elements(p_)));
  }

 private:
  const void* source() const { return p_.spec.in_place ? MPI_IN_PLACE : send_.data(); }

  void reduce() {
    // Only the root may pass MPI_IN_PLACE; in place, the others send from their one buffer.
    const bool root = p_.rank == kRoot;
    const void* send = !p_.spec.in_place ? send_.data() : root ? MPI_IN_PLACE : recv_.data();
    MPI_Reduce(send, root ? recv_.data() : nullptr, count_, type_, op_, kRoot, comm_);
  }

  void send_recv() {
    const int next = (p_.rank + 1) % p_.ranks;
    const int previous = (p_.rank + p_.ranks - 1) % p_.ranks;
    if (p_.spec.in_place)
      MPI_Sendrecv_replace(recv_.data(), count_, type_, next, 0, previous, 0, comm_,
                           MPI_STATUS_IGNORE);
    else
      MPI_Sendrecv(send_.data(), count_, type_, next, 0, recv_.data(), count_, type_, previous, 0,
                   comm_, MPI_STATUS_IGNORE);
  }

  CollectivePoint p_;
  MPI_Comm comm_;
  MPI_Datatype type_;
  MPI_Op op_;
  int count_;
  std::vector<T> send_;
  std::vector<T> recv_;
};

class MpiBackend final : public CommBackend {
 public:
  std::string_view name() const override { return "mpi"; }
  std::uint64_t max_elements() const override { return static_cast<std::uint64_t>(INT_MAX); }
  bool supports_out_of_place(Collective c) const override { return c != Collective::kBroadcast; }
  std::unique_ptr<CommGroup> connect(MPI_Comm group) override {
    return std::make_unique<MpiGroup>(group);
  }

  std::unique_ptr<Operation> make_operation(const CollectivePoint& p, CommGroup& group) override {
    const MPI_Comm comm = static_cast<MpiGroup&>(group).comm();
    switch (p.spec.dtype) {
      case DType::kFloat32:
        return std::make_unique<MpiCollective<float>>(p, comm);
      case DType::kFloat64:
        return std::make_unique<MpiCollective<double>>(p, comm);
      case DType::kInt32:
        return std::make_unique<MpiCollective<std::int32_t>>(p, comm);
      case DType::kInt64:
        return std::make_unique<MpiCollective<std::int64_t>>(p, comm);
      case DType::kUInt32:
        return std::make_unique<MpiCollective<std::uint32_t>>(p, comm);
      case DType::kUInt64:
        return std::make_unique<MpiCollective<std::uint64_t>>(p, comm);
    }
    return nullptr;
  }
};

}  // namespace

std::unique_ptr<CommBackend> make_mpi_backend() {
  return std::make_unique<MpiBackend>();
}

}  // namespace preflight::comm
