// One checkpoint save case: each active rank writes its shard (its own file, or its segment of
// one shared file) block by block through a storage engine, then, when durable, fdatasyncs its
// file and fsyncs the directory; swept over block sizes on one rank layout (scaling step).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/run/case.hpp"
#include "harness/run/rank_context.hpp"
#include "preflight/schema/checkpoint.hpp"
#include "storage/dataset.hpp"
#include "storage/storage_case.hpp"

namespace preflight::checkpoint {

struct SaveSpec {
  std::string engine = "psync";
  bool shared = false;  // one shared file, else a file per rank
  bool durable = true;  // the save ends when fdatasync and the directory's fsync return
  int queue_depth = 1;  // writes in flight, io_uring only
  bool verify = true;   // the check pass reads the save back and checks every page
};

class SaveCase final : public Case {
 public:
  // `params`: the checkpoint's attributes (model, split, interval inputs), recorded after the
  // save's own.
  SaveCase(SaveSpec spec, storage::RankLayout layout, std::vector<std::uint64_t> block_sizes,
           std::shared_ptr<storage::Dataset> dataset, const RankContext& ctx,
           std::vector<Param> params);
  std::string name() const override;
  std::string backend() const override { return spec_.engine; }
  std::vector<Param> params() const override;
  const schema::FamilySchema& declaration() const override {
    return schema::checkpoint::kDeclaration;
  }
  schema::OwnMeaning own_meaning() const override;
  const std::vector<int>& group_of_rank() const override { return layout_.group_of_rank; }
  std::size_t point_count() const override { return block_sizes_.size(); }
  std::vector<Param> point_columns(std::size_t point, int group) const override;
  std::vector<Metric> metrics(std::size_t, int, double) const override { return {}; }
  std::unique_ptr<Operation> make_operation(std::size_t point) override;

  // The files are laid out once (as fio lays out a file before writing it) and overwritten by
  // each save; while saves run the marker vouches for nothing.
  void start() override {
    dataset_->prepare();
    dataset_->mark_complete(false);
  }
  bool back_to_back() const override { return false; }
  bool quiet_setup() const override { return true; }
  bool measures_span() const override { return true; }
  std::vector<CounterSpec> counters() const override;
  std::vector<Metric> sample_metrics(std::size_t point, int group,
                                     const SampleView& view) const override;

 private:
  std::string subject() const;

  SaveSpec spec_;
  storage::RankLayout layout_;
  std::vector<std::uint64_t> block_sizes_;
  std::shared_ptr<storage::Dataset> dataset_;
  RankContext ctx_;
  std::vector<Param> params_;
};

}  // namespace preflight::checkpoint
