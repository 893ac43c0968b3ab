// The step-time projection (step plug-in): a training step's time at a node count, priced from
// the measured figures. Pure functions of what the reader found, so that the unit tests can
// drive every term with figures made by hand.
//
//   compute     = micro-batches x sum over the step's GEMMs of FLOPs / (rate at that GEMM's
//                 FLOPs x mfu), the rate interpolated between the measured matmul points
//   gradient    = buckets x the collective's time at the bucket size over the data-parallel
//                 ranks: the measured algbw interpolated at that size where that rank count was
//                 measured, else the alpha-beta fit's ring prediction (extrapolation)
//   exposed     = with overlap, what the last micro-batch's backward pass does not hide, and never
//                 less than the last bucket (it starts when the backward pass ends)
//   data        = samples per rank per step / the measured samples/s per rank; the loader
//                 prefetches, so only what outlasts compute and exposed communication shows;
//                 where its workers share the CPUs the GEMMs run on (a CPU GEMM backend), only
//                 what outlasts the exposed communication (the cores are busy computing)
//   checkpoint  = save time x (step time without it / interval): its share of each step
//   step        = compute + exposed gradient + exposed data + checkpoint
// The bottleneck is the largest of the four shown terms.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "preflight/common/step/model.hpp"
#include "preflight/common/step/workload.hpp"

namespace preflight::report::plugins::step_projection {

// A measured figure and where it came from ("case <name> in <file>").
struct Sourced {
  double value;
  std::string source;
};

// The matmul rate per rank (FLOP/s) measured at a GEMM of `flops` (m x n x k; 0 when the shape
// is not known).
struct RatePoint {
  double flops = 0, flops_per_s = 0;
  std::string source;
  std::int64_t m = 0, n = 0, k = 0;
};

// One collective measured at one rank count: median seconds at each size (bytes as nccl-tests
// counts them), ascending.
struct MeasuredScale {
  double ranks = 0, nodes = 0;
  std::vector<double> sizes, seconds;
  std::string source;
};

struct CollectiveFigures {
  std::string collective;  // comm's traits name: allreduce, reducescatter, allgather
  std::vector<MeasuredScale> measured;
  double alpha_s = -1, beta_s_per_byte = -1;  // the alpha-beta fit; < 0: none
  std::string fit_source;
};

struct Inputs {
  step::Workload workload;
  std::vector<RatePoint> rates;  // ascending FLOPs
  std::vector<CollectiveFigures> collectives;
  Sourced data_samples_per_s{-1, ""};      // per rank; < 0: not measured
  bool data_shares_compute_cpus = false;   // the GEMMs run on the CPUs the loader's workers do
  Sourced checkpoint_bytes_per_s{-1, ""};  // per node; < 0: not measured
};

// A time and how it was found, in words (inputs, sources, the rule applied).
struct Priced {
  double seconds = 0;
  std::string how;
};

// Rate at a GEMM of `flops`: interpolated in log(FLOPs) between the measured neighbours (the
// mean of those measured at equal FLOPs), the nearest one's outside them. Throws
// std::invalid_argument when there are none.
Priced gemm_rate(const std::vector<RatePoint>& rates, double flops);
// What a rate point's source ends with when it is the rate over all ranks' span (CPU GEMMs).
inline constexpr std::string_view kSpanRate = " (span of all ranks at once)";
// The rate measured at exactly that shape where there is one, else gemm_rate at its FLOPs.
Priced shape_rate(const std::vector<RatePoint>& rates, const step::Gemm& g);
// One operation of `bytes` on `ranks` ranks (0 s on 1 rank).
Priced collective_time(const CollectiveFigures& c, double ranks, double bytes);

struct Terms {
  double compute_s = 0, backward_s = 0;  // backward_s: the last micro-batch's backward pass
  double comm_s = 0, comm_exposed_s = 0, last_bucket_s = 0;
  double data_s = -1, data_exposed_s = 0;  // data_s < 0: not measured
  double checkpoint_s = -1;                // < 0: not measured or none planned
  double step_s = 0;
  std::string bottleneck;  // compute, communication, data or checkpoint
};

struct Projection {
  step::StepLayout layout;
  Terms terms;
  std::vector<std::string> how;  // one line per term: its inputs and where they came from
};

// Exposed communication: all of it without overlap; with it, what outlasts the window, and at
// least the last bucket.
double exposed_comm(double comm_s, double window_s, double last_bucket_s, bool overlap);
// Fills step_s and bottleneck from the other terms.
void finish(Terms& t);

Projection project(const Inputs& in, int nodes);
// T(1 node) / (nodes x T(nodes)) at a fixed global batch: NaN where either does not fit.
double scaling_efficiency(const Inputs& in, int nodes);

}  // namespace preflight::report::plugins::step_projection
