// The workload's step on groups of `nodes` nodes each, every group at once (so every node is as
// busy as in training at that scale): one case per node count, one point.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "comm/collective_case.hpp"
#include "harness/run/case.hpp"
#include "matmul/backend.hpp"
#include "preflight/common/step/workload.hpp"
#include "preflight/schema/step.hpp"
#include "step/data_feed.hpp"

namespace preflight::step {

struct StepRun {
  Workload workload;
  std::shared_ptr<matmul::GemmBackend> gemm;
  std::shared_ptr<comm::CommBackend> comm;
  int threads = 1;
  int rank = 0;
  matmul::DType gemm_dtype = matmul::DType::kFloat32;
  DataFeedSpec data;  // data.images null: no data feed
  std::string data_dir, data_cache;
};

class StepCase final : public Case {
 public:
  StepCase(StepRun run, std::shared_ptr<comm::GroupSet> groups, StepLayout layout);
  std::string name() const override;
  std::string backend() const override;
  std::vector<Param> params() const override;
  const schema::FamilySchema& declaration() const override { return schema::step::kDeclaration; }
  schema::OwnMeaning own_meaning() const override;
  const std::vector<int>& group_of_rank() const override { return groups_->layout().group_of_rank; }
  std::size_t point_count() const override { return 1; }
  std::vector<Param> point_columns(std::size_t point, int group) const override;
  std::vector<Metric> metrics(std::size_t point, int group, double seconds) const override;
  std::vector<Metric> sample_metrics(std::size_t point, int group,
                                     const SampleView& view) const override;
  std::vector<CounterSpec> counters() const override;
  bool back_to_back() const override { return false; }
  std::unique_ptr<Operation> make_operation(std::size_t point) override;

 private:
  StepRun run_;
  std::shared_ptr<comm::GroupSet> groups_;
  StepLayout layout_;
};

}  // namespace preflight::step
