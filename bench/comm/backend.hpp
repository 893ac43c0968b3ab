// What a comm backend (MPI, NCCL, ...) provides: a communicator per group and one operation
// per point. One file per backend; backends.cpp registers them by name.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "comm/collective.hpp"
#include "harness/case.hpp"

namespace preflight::comm {

struct CollectiveSpec {
  Collective op = Collective::kAllReduce;
  DType dtype = DType::kFloat32;
  RedOp redop = RedOp::kSum;
  bool in_place = false;
};

// One point as one rank runs it.
struct CollectivePoint {
  CollectiveSpec spec;
  std::uint64_t chunk = 0;  // elements per rank chunk (see chunk_elements)
  int rank = 0;             // rank within the group
  int ranks = 1;            // ranks in the group
};

// A backend's communicator for one group (an ncclComm_t, or just the MPI communicator).
class CommGroup {
 public:
  virtual ~CommGroup() = default;
};

class CommBackend {
 public:
  virtual ~CommBackend() = default;
  virtual std::string_view name() const = 0;
  // The most elements one call takes (MPI counts are int).
  virtual std::uint64_t max_elements() const = 0;
  // MPI's broadcast has one buffer, so it has no out-of-place form.
  virtual bool supports_out_of_place(Collective c) const = 0;
  // Collective over `group`, an MPI communicator of the group's ranks.
  virtual std::unique_ptr<CommGroup> connect(MPI_Comm group) = 0;
  virtual std::unique_ptr<Operation> make_operation(const CollectivePoint& point,
                                                    CommGroup& group) = 0;
};

// Backends by name; nullptr for an unknown name.
std::unique_ptr<CommBackend> make_backend(std::string_view name);
std::vector<std::string> backend_names();

}  // namespace preflight::comm
