// One collective with fixed type, reduction and placement on one layout, swept over sizes.
#pragma once

#include <memory>
#include <vector>

#include "comm/backend.hpp"
#include "comm/topology.hpp"
#include "harness/run/case.hpp"
#include "harness/run/rank_context.hpp"
#include "preflight/schema/comm.hpp"

namespace preflight::comm {

// A layout's groups as MPI and backend communicators, shared by the cases on that layout so
// each group is connected once (NCCL communicators are expensive to make).
class GroupSet {
 public:
  // Collective over ctx.world.
  GroupSet(Layout layout, const RankContext& ctx, std::shared_ptr<CommBackend> backend);
  ~GroupSet();
  GroupSet(const GroupSet&) = delete;
  GroupSet& operator=(const GroupSet&) = delete;

  const Layout& layout() const { return layout_; }
  int group_size(int group) const;  // group -1: the largest group
  bool uniform() const;             // every group has the same size
  int my_group() const { return my_group_; }
  int my_rank() const { return my_rank_; }
  bool active() const { return comm_ != MPI_COMM_NULL; }
  // The backend's communicator for this rank's group, connected on first use: collective
  // over the group, and late so that a variant's environment is in place when it connects.
  CommGroup& channel();

 private:
  Layout layout_;
  std::vector<int> sizes_;
  int my_group_ = -1;
  int my_rank_ = -1;
  MPI_Comm comm_ = MPI_COMM_NULL;
  bool owns_comm_ = true;  // false when the group is the whole world
  std::shared_ptr<CommBackend> backend_;
  std::unique_ptr<CommGroup> channel_;
};

class CollectiveCase final : public Case {
 public:
  CollectiveCase(CollectiveSpec spec, std::shared_ptr<GroupSet> groups,
                 std::vector<std::uint64_t> sizes, std::shared_ptr<CommBackend> backend);
  std::string name() const override;
  std::string backend() const override { return std::string(backend_->name()); }
  std::vector<Param> params() const override;
  const schema::FamilySchema& declaration() const override { return schema::comm::kDeclaration; }
  schema::OwnMeaning own_meaning() const override;
  const std::vector<int>& group_of_rank() const override { return groups_->layout().group_of_rank; }
  std::size_t point_count() const override { return sizes_.size(); }
  std::vector<Param> point_columns(std::size_t point, int group) const override;
  std::vector<Metric> metrics(std::size_t point, int group, double seconds) const override;
  std::unique_ptr<Operation> make_operation(std::size_t point) override;

 private:
  std::string subject() const;
  std::uint64_t bytes(std::size_t point, int ranks) const;

  CollectiveSpec spec_;
  std::shared_ptr<GroupSet> groups_;
  std::vector<std::uint64_t> sizes_;
  std::shared_ptr<CommBackend> backend_;
};

}  // namespace preflight::comm
