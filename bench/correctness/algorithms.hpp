// Which algorithms the collective sweep runs (docs/correctness.md), and how each is forced.
//
// Open MPI: the algorithms are the library's own, read through MPI_T (the enum of the control
// variable coll_tuned_<collective>_algorithm: 0 ignore, 1 basic_linear, ...), not a table of
// ours, so a new Open MPI brings its new algorithms into the sweep. One is forced per
// communicator: the variable is written, the communicator duplicated (tuned reads its forced
// choice when a communicator is made) and the variable put back. That takes effect only when
// coll_tuned_use_dynamic_rules was true at MPI_Init; preflight sets it before MPI_Init where the
// user did not (set_dynamic_rules_default, the family table's before_mpi_init). Some algorithms do
// not run every call they are forced on: Open MPI 4.1's coll/base hands the call to another
// algorithm, or fails it (ompi_runs_instead); the sweep leaves those points out, rather than claim
// an algorithm that did not run.
//
// NCCL: NCCL_ALGO x NCCL_PROTO, set around one communicator's init (NCCL reads both there:
// nccl_env.hpp, kPerCommunicator); the names NCCL's version has (nccl_algorithms).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "comm/collective.hpp"

namespace preflight::correctness {

// The name of the library's own choice: no algorithm forced.
inline constexpr std::string_view kDefaultAlgorithm = "default";

// Before MPI_Init: OMPI_MCA_coll_tuned_use_dynamic_rules=1 unless the user set it. With no rules
// file and no algorithm forced, tuned's dynamic path falls back to its fixed decisions
// (coll_tuned_<collective>_intra_dec_dynamic), so every other family runs as before.
void set_dynamic_rules_default();

// What the text selects from `offered` (in offered's order): "all" selects every one and the
// default; a comma-separated list selects the names it holds ("default" among them). `unknown`:
// the names of the list that are not offered, in the list's order.
struct Selection {
  bool default_too = false;
  std::vector<std::string> chosen;
  std::vector<std::string> unknown;
};
Selection select_algorithms(std::string_view text, const std::vector<std::string>& offered);

// Open MPI's tuned algorithms of one collective, from MPI_T.
struct MpiAlgorithm {
  int value = 0;     // the control variable's value
  std::string name;  // its enum item's name, spaces as underscores ("segmented_ring")
};
struct MpiAlgorithms {
  std::string cvar;  // coll_tuned_allreduce_algorithm; empty: the collective has none
  std::vector<MpiAlgorithm> list;
  int current = 0;  // the variable's value as the job started (not 0: the user forces one)
  // Empty where algorithms can be forced; else why not and what to do (no tuned component,
  // use_dynamic_rules false, not Open MPI, another component serving: tuned_not_serving).
  std::string why_not_forced;
};
// The coll components that would serve a communicator's collectives in coll/tuned's place, as
// their control variables say (nullopt: the variable is absent, i.e. the component is not built
// or is excluded with --mca coll ^name). Open MPI gives each collective to the highest-priority
// component that takes the communicator: where that is hcoll, ucc or han, writing
// coll_tuned_*_algorithm changes nothing and every forced case would run the same path.
struct CollComponents {
  std::optional<int> tuned_priority;                // coll_tuned_priority (default 30)
  std::optional<int> hcoll_enable, hcoll_priority;  // coll_hcoll_enable, coll_hcoll_priority
  std::optional<int> ucc_enable, ucc_priority;      // coll_ucc_enable, coll_ucc_priority
  std::optional<int> han_priority;                  // coll_han_priority (han has no enable)
};
// Empty where coll/tuned serves the collectives; else which component would, and how to turn it
// off. Pure: tests/unit/correctness_sweep_test.cpp.
std::string tuned_not_serving(const CollComponents& c);

// Collective over nothing: every rank reads the same library. Needs MPI initialised.
MpiAlgorithms mpi_algorithms(comm::Collective c);

// The MPI library and its version, e.g. "Open MPI v4.1.4".
std::string mpi_library();

// Collective over `comm`: its duplicate made while each control variable held its value; the
// variables are put back before returning. The duplicate returns errors (MPI_ERRORS_RETURN)
// instead of aborting the job. Throws std::runtime_error when a variable cannot be written.
MPI_Comm forced_duplicate(MPI_Comm comm, const std::vector<std::pair<std::string, int>>& cvars);

// The segment size (bytes) the sweep gives segmented_ring, whose default (0) is one segment:
// with it Open MPI runs plain ring, so the sweep forces segments of this size.
inline constexpr int kSegmentBytes = 4096;

// What Open MPI 4.1's coll/base runs instead of `algorithm` for one call of `count` elements
// of `element_bytes` each on `ranks` ranks (the call's count: all-reduce's whole vector,
// all-gather's block), with `segment_bytes` the forced segment size; nullopt where it runs the
// algorithm. The rules are coll_base_allreduce.c's and coll_base_allgather.c's fall-backs:
//   allreduce ring: count < ranks -> recursive_doubling;
//   allreduce segmented_ring: count < ranks x segment count (segment size / element size, or
//     the whole count where that is 0 or larger) -> ring's rule;
//   allreduce rabenseifner: count < the largest power of two <= ranks -> basic_linear;
//   allgather recursive_doubling: ranks not a power of two -> bruck;
//   allgather neighbor: odd ranks -> ring;
//   allgather two_proc: ranks != 2 -> the call fails (MPI_ERR_UNSUPPORTED_OPERATION).
std::optional<std::string> ompi_runs_instead(comm::Collective c, std::string_view algorithm,
                                             int ranks, std::uint64_t count, int element_bytes,
                                             int segment_bytes);

// NCCL's algorithms and protocols by the version code ncclGetVersion gives (22809 for 2.28.9):
// the names NCCL_ALGO and NCCL_PROTO take in that version.
std::vector<std::string> nccl_algorithms(int version);
std::vector<std::string> nccl_protocols(int version);
// "NCCL 2.28.9" -> 22809; 0 where the text holds no version.
int nccl_version_code(std::string_view library);

}  // namespace preflight::correctness
