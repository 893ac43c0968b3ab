// The GEMM determinism check's case (docs/correctness.md): one backend and dtype, its points the
// square sizes then the shapes. Every run of its operation is the GEMM on inputs made from the
// config's seed alone (the same on every rank), the hash of C where C is, and one all-gather of
// the hashes over the world; on a mismatch (rare) the dissenter fetches the reference result from
// the rank gemm_verdict.hpp names and records where they differ. The run is timed whole, so
// checked_tflops is the check's own rate.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "harness/run/case.hpp"
#include "matmul/backend.hpp"

namespace preflight::correctness {

struct GemmCheckSpec {
  matmul::DType dtype = matmul::DType::kFloat32;
  std::vector<matmul::Shape> shapes;
  int threads = 1;
  std::int64_t seed = 1;
  int events_kept = 16;
  std::string library;          // this rank's, as a deterministic point runs it
  std::string determinism;      // what makes it repeatable
  std::vector<int> class_of;    // world rank -> its class (gemm_checks.cpp: same device
                                // model, library, threads or SMs and driver)
  std::string compare_classes;  // describe_classes()
};

class GemmCheckCase final : public Case {
 public:
  GemmCheckCase(GemmCheckSpec spec, std::shared_ptr<matmul::GemmBackend> backend,
                std::shared_ptr<MPI_Comm> comm, int rank);
  std::string name() const override;
  std::string backend() const override { return std::string(backend_->name()); }
  std::vector<Param> params() const override;
  const schema::FamilySchema& declaration() const override;
  schema::OwnMeaning own_meaning() const override { return {.subject = name()}; }
  const std::vector<int>& group_of_rank() const override { return group_of_rank_; }
  std::size_t point_count() const override { return spec_.shapes.size(); }
  std::vector<Param> point_columns(std::size_t point, int group) const override;
  std::vector<Metric> metrics(std::size_t point, int group, double seconds) const override;
  std::vector<Metric> sample_metrics(std::size_t point, int group,
                                     const SampleView& view) const override;
  bool back_to_back() const override { return false; }
  std::vector<CounterSpec> counters() const override;
  std::vector<CounterSpec> series() const override;
  std::unique_ptr<Operation> make_operation(std::size_t point) override;

 private:
  GemmCheckSpec spec_;
  std::shared_ptr<matmul::GemmBackend> backend_;
  std::shared_ptr<MPI_Comm> comm_;  // its own (gemm_checks.cpp), shared by the family's cases
  int rank_ = 0;
  std::vector<int> group_of_rank_;
};

}  // namespace preflight::correctness
