// One backend, dtype and list of shapes, every rank at once on its own device: the case's
// points are the shapes. Each rank's time is its own GEMM's, so a slow device stands out
// against its peers (peer_slow), and the telemetry says what the device was doing meanwhile.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/run/case.hpp"
#include "matmul/backend.hpp"
#include "preflight/schema/matmul.hpp"
#include "telemetry/sampler.hpp"

namespace preflight::matmul {

struct MatmulCaseSpec {
  DType dtype = DType::kFloat32;
  std::vector<Shape> shapes;
  std::string shapes_label;  // "square" or the config's name of the shape list
  int threads = 1;
  std::size_t samples = 256;
  double interval_s = 1;
  Peak peak;
  std::string library;
};

class MatmulCase final : public Case {
 public:
  MatmulCase(MatmulCaseSpec spec, std::shared_ptr<GemmBackend> backend,
             std::shared_ptr<const telemetry::TelemetryPlan> telemetry, int rank, int ranks);
  std::string name() const override;
  std::string backend() const override { return std::string(backend_->name()); }
  std::vector<Param> params() const override;
  const schema::FamilySchema& declaration() const override { return schema::matmul::kDeclaration; }
  schema::OwnMeaning own_meaning() const override;
  const std::vector<int>& group_of_rank() const override { return group_of_rank_; }
  std::size_t point_count() const override { return spec_.shapes.size(); }
  std::vector<Param> point_columns(std::size_t point, int group) const override;
  std::vector<Metric> metrics(std::size_t point, int group, double seconds) const override;
  // On CPUs every rank's start is kept, so that span_tflops sees ranks that took turns on
  // shared cores (a GPU is a rank's own: no span, and no clock synchronisation for it).
  bool measures_span() const override { return !backend_->on_gpu(); }
  std::vector<Metric> sample_metrics(std::size_t point, int group,
                                     const SampleView& view) const override;
  std::vector<CounterSpec> series() const override;
  std::unique_ptr<Operation> make_operation(std::size_t point) override;

 private:
  MatmulCaseSpec spec_;
  std::shared_ptr<GemmBackend> backend_;
  std::shared_ptr<const telemetry::TelemetryPlan> telemetry_;
  std::vector<int> group_of_rank_;
  std::vector<std::int64_t> algorithm_;  // this rank's kept algorithm per point
  int rank_ = 0;
};

}  // namespace preflight::matmul
