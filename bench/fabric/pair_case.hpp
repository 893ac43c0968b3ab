// One pair test (latency, one-way or bidirectional bandwidth) on one round of the pair
// schedule: the round's pairs run at the same time, each pair a group of two ranks, swept over
// message sizes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fabric/pair_schedule.hpp"
#include "fabric/transport.hpp"
#include "harness/run/case.hpp"
#include "preflight/schema/fabric.hpp"

namespace preflight::fabric {

enum class PairTest { kLatency, kBandwidth, kBidirectional };
std::string_view name_of(PairTest t);

struct PairCaseSpec {
  PairTest test = PairTest::kLatency;
  int round = 0;
  int pass = 0;
  int window = 16;                         // bandwidth tests: messages in flight per iteration
  std::vector<std::pair<int, int>> pairs;  // world ranks, first < second
};

class PairCase final : public Case {
 public:
  PairCase(PairCaseSpec spec, int world_size, int my_rank, std::vector<std::uint64_t> sizes,
           std::shared_ptr<Transport> transport);
  std::string name() const override;
  std::string backend() const override { return std::string(transport_->name()); }
  std::vector<Param> params() const override;
  const schema::FamilySchema& declaration() const override { return schema::fabric::kDeclaration; }
  schema::OwnMeaning own_meaning() const override;
  const std::vector<int>& group_of_rank() const override { return group_of_rank_; }
  std::size_t point_count() const override { return sizes_.size(); }
  std::vector<Param> point_columns(std::size_t point, int group) const override;
  std::vector<Metric> metrics(std::size_t point, int group, double seconds) const override;
  std::unique_ptr<Operation> make_operation(std::size_t point) override;

 private:
  PairCaseSpec spec_;
  int my_rank_;
  std::vector<int> group_of_rank_;
  std::vector<std::uint64_t> sizes_;
  std::shared_ptr<Transport> transport_;
};

}  // namespace preflight::fabric
