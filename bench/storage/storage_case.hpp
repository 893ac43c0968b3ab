// One storage read case: engine, cache state, access pattern, file layout, queue depth and
// threads on one rank layout (scaling step), swept over block sizes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/case.hpp"
#include "harness/rank_context.hpp"
#include "storage/cache_state.hpp"
#include "storage/dataset.hpp"

namespace preflight::storage {

struct ReadSpec {
  std::string engine = "psync";
  CacheState cache = CacheState::kEvicted;
  bool random = false;
  bool shared = false;  // one shared file, else a file per rank
  int queue_depth = 1;
  int threads = 1;
  double stonewall_s = 0;  // 0: read bytes_per_rank each iteration
  double interval_s = 0.1;
  bool verify = false;
};

// Which ranks read in a case: a scaling step.
struct RankLayout {
  std::string label;               // "4 ranks: 2 per node x 2 nodes"
  std::vector<int> group_of_rank;  // 0 active, -1 idle
  int ranks_per_node = 0;
  int nodes = 0;
  int ranks = 0;
};

class StorageCase final : public Case {
 public:
  StorageCase(ReadSpec spec, RankLayout layout, std::vector<std::uint64_t> block_sizes,
              std::shared_ptr<Dataset> dataset, const RankContext& ctx);
  std::string name() const override;
  std::string family() const override { return "storage"; }
  std::string backend() const override { return spec_.engine; }
  std::vector<Param> params() const override;
  CaseMeaning meaning() const override;
  const std::vector<int>& group_of_rank() const override { return layout_.group_of_rank; }
  std::size_t point_count() const override { return block_sizes_.size(); }
  std::vector<Param> point_columns(std::size_t point, int group) const override;
  std::vector<Metric> metrics(std::size_t, int, double) const override { return {}; }
  std::unique_ptr<Operation> make_operation(std::size_t point) override;

  void start() override { dataset_->prepare(); }
  bool back_to_back() const override { return false; }
  bool quiet_setup() const override { return true; }
  // Aggregate bandwidth is total bytes / (last finish - first start), as IOR's.
  bool measures_span() const override { return true; }
  std::vector<CounterSpec> counters() const override;
  std::vector<CounterSpec> series() const override;
  std::vector<Metric> sample_metrics(std::size_t point, int group,
                                     const SampleView& view) const override;

 private:
  std::string subject() const;

  ReadSpec spec_;
  RankLayout layout_;
  std::vector<std::uint64_t> block_sizes_;
  std::shared_ptr<Dataset> dataset_;
  RankContext ctx_;
  int source_rank_ = 0;  // whose data this rank reads
};

}  // namespace preflight::storage
