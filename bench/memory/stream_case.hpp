// One STREAM kernel (or GPU copy) on one rank layout (one rank per node alone, or every rank of
// every node at once), swept over array sizes. Every active rank runs on its own arrays; a
// node's figure is its ranks' together. The operation comes from the backend (memory/backend.hpp).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/run/case.hpp"
#include "preflight/schema/memory.hpp"
#include "telemetry/sampler.hpp"

namespace preflight::memory {

struct StreamCaseSpec {
  std::string backend = "cpu";  // cpu or cuda
  std::string kernel_label;     // copy, ..., triad; on a GPU hbm_triad, d2d, h2d, d2h
  int arrays = 3;               // bytes moved per element of an array, in arrays of doubles
  // This rank's operation over `elements` doubles per array, its inputs from `seed`.
  std::function<std::unique_ptr<Operation>(std::size_t elements, std::uint64_t seed)> make;
  std::vector<std::uint64_t> sizes;  // bytes of each array
  int threads = 1;
  double interval_s = 1;
  double memory_peak_gbs = 0;  // NaN: unknown
  std::string memory_peak_source;
  std::string bytes_counted;  // what `arrays` counts, and whose convention that is
  std::string layout;         // "1 rank per node" or "all ranks"
  int ranks_per_node = 1, nodes = 1, ranks = 1;
};

class StreamCase final : public Case {
 public:
  StreamCase(StreamCaseSpec spec, std::vector<int> group_of_rank,
             std::shared_ptr<const telemetry::TelemetryPlan> telemetry, int rank);
  std::string name() const override;
  std::string backend() const override { return spec_.backend; }
  std::vector<Param> params() const override;
  const schema::FamilySchema& declaration() const override { return schema::memory::kDeclaration; }
  schema::OwnMeaning own_meaning() const override;
  const std::vector<int>& group_of_rank() const override { return group_of_rank_; }
  std::size_t point_count() const override { return spec_.sizes.size(); }
  std::vector<Param> point_columns(std::size_t point, int group) const override;
  std::vector<Metric> metrics(std::size_t point, int group, double seconds) const override;
  std::vector<Metric> sample_metrics(std::size_t point, int group,
                                     const SampleView& view) const override;
  std::vector<CounterSpec> series() const override;
  std::unique_ptr<Operation> make_operation(std::size_t point) override;

 private:
  std::string subject() const;
  double bytes_moved(std::size_t point) const;

  StreamCaseSpec spec_;
  std::vector<int> group_of_rank_;
  std::shared_ptr<const telemetry::TelemetryPlan> telemetry_;
  int rank_ = 0;
};

}  // namespace preflight::memory
