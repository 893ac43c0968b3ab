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
#include "harness/config/name_table.hpp"
#include "harness/run/case.hpp"

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

// How a GPU backend registers its buffers with the library (nccl-tests -R): not at all, each
// rank's buffers on their own (ncclCommRegister), or as a symmetric window over the group
// (ncclCommWindowRegister, NCCL 2.27 and later).
enum class Registration { kOff, kLocal, kWindow };
const NameTable<Registration>& registration_names();

// The options a backend takes from the family's config; a backend ignores what it has no use
// for (the MPI backend all of them: the family refuses non-defaults with it).
struct BackendSettings {
  MPI_Comm world = MPI_COMM_WORLD;  // for the node-local rank that picks this rank's GPU
  bool cuda_graph = false;          // replay each operation from a captured CUDA graph
  Registration registration = Registration::kOff;
  // Abort the communicators when an operation makes no progress this long (0: never; the
  // harness's watchdog then ends the job).
  double abort_after_s = 0;
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
  // Whether it has the element type (MPI has no 16-bit floating types).
  virtual bool supports(DType t) const {
    (void)t;
    return true;
  }
  // NCCL documents no in-place form of all-to-all and send/recv.
  virtual bool supports_in_place(Collective c) const {
    (void)c;
    return true;
  }
  // Collective over `world`: why this backend cannot run on this job (no GPU on some rank,
  // built without the library), the same on every rank; empty when it can.
  virtual std::string unavailable(MPI_Comm world) {
    (void)world;
    return {};
  }
  // The library and its version where the backend knows it ("NCCL 2.28.9"); empty if not.
  virtual std::string library() const { return {}; }
  // What the case records of how its figures were taken (launch mode, registration).
  virtual std::vector<Param> case_params() const { return {}; }
  // Collective over `group`, an MPI communicator of the group's ranks.
  virtual std::unique_ptr<CommGroup> connect(MPI_Comm group) = 0;
  virtual std::unique_ptr<Operation> make_operation(const CollectivePoint& point,
                                                    CommGroup& group) = 0;
};

// Backends by name; nullptr for an unknown name.
std::unique_ptr<CommBackend> make_backend(std::string_view name, const BackendSettings& settings);
std::vector<std::string> backend_names();

}  // namespace preflight::comm
