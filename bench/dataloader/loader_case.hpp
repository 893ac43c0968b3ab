// One dataloader case: this rank's pipeline over its share of the images, one pass per timed
// iteration (batches_per_iteration batches), swept over worker counts (the points) on one rank
// layout (a scaling step over ranks per node).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dataloader/image_set.hpp"
#include "dataloader/pipeline.hpp"
#include "harness/run/case.hpp"
#include "harness/run/rank_context.hpp"
#include "preflight/schema/dataloader.hpp"
#include "storage/cache_state.hpp"
#include "storage/storage_case.hpp"

namespace preflight::dataloader {

struct LoaderSpec {
  PipelineSpec pipeline;  // workers set per point
  storage::CacheState cache = storage::CacheState::kWarm;
  std::size_t batches = 0;  // per rank and iteration
  double au_target = 0.9;
  std::string compute_source;
  std::string batches_pageable_why;  // "" when the batch buffers are pinned
};

class LoaderCase final : public Case {
 public:
  LoaderCase(LoaderSpec spec, storage::RankLayout layout, std::vector<int> workers,
             std::shared_ptr<ImageSource> images, const RankContext& ctx);
  std::string name() const override;
  std::string backend() const override { return spec_.pipeline.engine; }
  std::vector<Param> params() const override;
  const schema::FamilySchema& declaration() const override {
    return schema::dataloader::kDeclaration;
  }
  schema::OwnMeaning own_meaning() const override;
  const std::vector<int>& group_of_rank() const override { return layout_.group_of_rank; }
  std::size_t point_count() const override { return workers_.size(); }
  std::vector<Param> point_columns(std::size_t point, int group) const override;
  std::vector<Metric> metrics(std::size_t, int, double) const override { return {}; }
  std::unique_ptr<Operation> make_operation(std::size_t point) override;
  // Each pass starts from the cache state; an eviction must not meet another rank's reads.
  // Collective: makes and indexes a synthetic set that is not there yet (the first case only).
  void start() override;
  bool back_to_back() const override { return false; }
  bool quiet_setup() const override { return true; }
  std::vector<CounterSpec> counters() const override;
  std::vector<Metric> sample_metrics(std::size_t point, int group,
                                     const SampleView& view) const override;

 private:
  std::string subject() const;

  LoaderSpec spec_;
  storage::RankLayout layout_;
  std::vector<int> workers_;
  std::shared_ptr<ImageSource> images_;
  RankContext ctx_;
};

}  // namespace preflight::dataloader
