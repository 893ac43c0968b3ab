#include "comm/collective_case.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "preflight/schema/comm.hpp"

namespace preflight::comm {

GroupSet::GroupSet(Layout layout, const RankContext& ctx, std::shared_ptr<CommBackend> backend)
    : layout_(std::move(layout)), backend_(std::move(backend)) {
  const auto& groups = layout_.group_of_rank;
  sizes_.assign(static_cast<std::size_t>(1 + *std::max_element(groups.begin(), groups.end())), 0);
  for (int g : groups)
    if (g >= 0) ++sizes_[static_cast<std::size_t>(g)];
  my_group_ = groups[static_cast<std::size_t>(ctx.rank)];
  // One group of every rank is the world itself: measure on MPI_COMM_WORLD, as peer tools do
  // (a split-off copy measured some percent slower on small messages with Open MPI here).
  owns_comm_ = !(sizes_.size() == 1 && sizes_.front() == ctx.size);
  if (owns_comm_)
    MPI_Comm_split(ctx.world, my_group_ >= 0 ? my_group_ : MPI_UNDEFINED, ctx.rank, &comm_);
  else
    comm_ = ctx.world;
  if (comm_ != MPI_COMM_NULL) MPI_Comm_rank(comm_, &my_rank_);
}

GroupSet::~GroupSet() {
  channel_.reset();
  if (owns_comm_ && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

CommGroup& GroupSet::channel() {
  if (!channel_) channel_ = backend_->connect(comm_);
  return *channel_;
}

int GroupSet::group_size(int group) const {
  if (group >= 0) return sizes_[static_cast<std::size_t>(group)];
  return *std::max_element(sizes_.begin(), sizes_.end());
}

bool GroupSet::uniform() const {
  return std::all_of(sizes_.begin(), sizes_.end(), [&](int s) { return s == sizes_.front(); });
}

CollectiveCase::CollectiveCase(CollectiveSpec spec, std::shared_ptr<GroupSet> groups,
                               std::vector<std::uint64_t> sizes,
                               std::shared_ptr<CommBackend> backend)
    : spec_(spec),
      groups_(std::move(groups)),
      sizes_(std::move(sizes)),
      backend_(std::move(backend)) {}

// The case name without its layout label: what stays the same along a scaling series.
std::string CollectiveCase::subject() const {
  return fmt::format("{} {}{} {}", name_of(spec_.op), name_of(spec_.dtype),
                     reduces(spec_.op) ? fmt::format(" {}", name_of(spec_.redop)) : std::string(),
                     spec_.in_place ? "in-place" : "out-of-place");
}

std::string CollectiveCase::name() const {
  return fmt::format("{} {}", subject(), groups_->layout().label);
}

schema::OwnMeaning CollectiveCase::own_meaning() const {
  return {.subject = subject(), .series = std::string(name_of(groups_->layout().topology))};
}

std::vector<Param> CollectiveCase::params() const {
  const auto& layout = groups_->layout();
  std::vector<Param> out = {
      attr(schema::comm::kCollective, std::string(name_of(spec_.op))),
      attr(schema::comm::kDtype, std::string(name_of(spec_.dtype)), true),
      attr(schema::comm::kRedop,
           reduces(spec_.op) ? std::string(name_of(spec_.redop)) : std::string("none"), true),
      attr(schema::comm::kRoot, std::int64_t{has_root(spec_.op) ? 0 : -1}, true),
      attr(schema::comm::kPlacement, std::string(spec_.in_place ? "in-place" : "out-of-place")),
      attr(schema::comm::kTopology, std::string(name_of(layout.topology))),
      attr(schema::comm::kLayout, layout.label),
      attr(schema::comm::kLadderNodes, std::int64_t{layout.nodes}),
      attr(schema::comm::kMeasures,
           std::string(groups_->group_size(-1) < 2 ? schema::kCommMeasuresLaunch
                                                   : schema::kCommMeasuresBandwidth)),
  };
  for (auto& p : backend_->case_params()) out.push_back(std::move(p));
  return out;
}

std::uint64_t CollectiveCase::bytes(std::size_t point, int ranks) const {
  return reported_bytes(spec_.op, chunk_elements(spec_.op, sizes_[point], spec_.dtype, ranks),
                        spec_.dtype, ranks);
}

std::vector<Param> CollectiveCase::point_columns(std::size_t point, int group) const {
  const int ranks = groups_->group_size(group);
  const std::uint64_t b = bytes(point, ranks);
  return {
      column_param(schema::comm::kSizeBytesColumn, static_cast<std::int64_t>(b), false),
      column_param(schema::comm::kCountColumn, static_cast<std::int64_t>(b / size_of(spec_.dtype)),
                   false),
  };
}

std::vector<Metric> CollectiveCase::metrics(std::size_t point, int group, double seconds) const {
  auto both = [&](double algbw, double busbw) {
    return std::vector<Metric>{
        metric(schema::comm::kAlgbwColumn, algbw, &schema::comm::kBatchedAlgbwColumn),
        metric(schema::comm::kBusbwColumn, busbw, &schema::comm::kBatchedBusbwColumn)};
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Across groups of different sizes one bandwidth would mix unlike figures: show none.
  if (group < 0 && !groups_->uniform()) return both(nan, nan);
  const int ranks = groups_->group_size(group);
  // A group of one rank moves nothing between ranks: its time is a launch (or a local copy),
  // never a bandwidth (the case attribute `measures` says so).
  if (ranks < 2) return both(nan, nan);
  const double algbw = static_cast<double>(bytes(point, ranks)) / seconds / 1e9;
  return both(algbw, algbw * bus_factor(spec_.op, ranks));
}

std::unique_ptr<Operation> CollectiveCase::make_operation(std::size_t point) {
  if (!groups_->active()) return nullptr;
  const int ranks = groups_->group_size(groups_->my_group());
  CollectivePoint p{spec_, chunk_elements(spec_.op, sizes_[point], spec_.dtype, ranks),
                    groups_->my_rank(), ranks};
  return backend_->make_operation(p, groups_->channel());
}

}  // namespace preflight::comm
