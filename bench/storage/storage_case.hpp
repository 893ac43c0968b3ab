// One storage read case: engine, cache state, access pattern, file layout, queue depth and
// threads on one rank layout (scaling step), swept over block sizes. A checkpoint's restore is
// the same read under the checkpoint family's name and stage (ReadIdentity).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/run/case.hpp"
#include "harness/run/rank_context.hpp"
#include "preflight/schema/storage.hpp"
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

// The scaling steps: each of `ranks_per_node` (empty: every rank of each node) on every node,
// then, with `node_ladder`, 1, 2, 4, ... full nodes; duplicates once.
std::vector<RankLayout> make_rank_layouts(const std::vector<int>& ranks_per_node, bool node_ladder,
                                          const RankContext& ctx);

// Whose read a case is: the storage family's own, or another family's that reads the same way
// (a checkpoint's restore), with that family's declaration, a prefix to the case name and its
// parameters.
struct ReadIdentity {
  const schema::FamilySchema* declaration = &schema::storage::kDeclaration;
  std::string prefix;         // "restore ": before the case name
  std::vector<Param> params;  // recorded after the read's own
};

class StorageCase final : public Case {
 public:
  StorageCase(ReadSpec spec, RankLayout layout, std::vector<std::uint64_t> block_sizes,
              std::shared_ptr<Dataset> dataset, const RankContext& ctx, ReadIdentity identity = {});
  std::string name() const override;
  std::string backend() const override { return spec_.engine; }
  std::vector<Param> params() const override;
  const schema::FamilySchema& declaration() const override { return *identity_.declaration; }
  schema::OwnMeaning own_meaning() const override;
  const std::vector<int>& group_of_rank() const override { return layout_.group_of_rank; }
  std::size_t point_count() const override { return block_sizes_.size(); }
  std::vector<Param> point_columns(std::size_t point, int group) const override;
  std::vector<Metric> metrics(std::size_t, int, double) const override { return {}; }
  std::unique_ptr<Operation> make_operation(std::size_t point) override;

  // A restore reads a whole checkpoint: the data set is complete again once it is prepared.
  void start() override {
    dataset_->prepare();
    dataset_->mark_complete(true);
  }
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
  ReadIdentity identity_;
  int source_rank_ = 0;  // whose data this rank reads
};

}  // namespace preflight::storage
