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

CaseMeaning CollectiveCase::meaning() const {
  namespace s = schema;
  CaseMeaning m;
  m.stage = s::kCommStage;
  m.x_axis = s::kCommXAxis;
  m.bands = s::kCommBands;
  m.scaling = s::kCommScaling;
  m.subject = subject();
  m.series = name_of(groups_->layout().topology);
  m.peer_slow = s::kCommPeerSlow;
  m.peer_late = s::kCommPeerLate;
  m.work_counter = s::kCommWorkCounter;
  if (!s::kCommQuality.empty()) m.quality = {std::string(s::kCommQuality)};
  m.min_samples = s::kCommMinSamples;
  return m;
}

std::vector<Param> CollectiveCase::params() const {
  const auto& layout = groups_->layout();
  std::vector<Param> out = {
      {"collective", std::string(name_of(spec_.op)), "", false},
      {"dtype", std::string(name_of(spec_.dtype)), "", true},
      {"redop", reduces(spec_.op) ? std::string(name_of(spec_.redop)) : std::string("none"), "",
       true},
      {"root", std::int64_t{has_root(spec_.op) ? 0 : -1}, "", true},
      {"placement", std::string(spec_.in_place ? "in-place" : "out-of-place"), "", false},
      {"topology", std::string(name_of(layout.topology)), "", false},
      {"layout", layout.label, "", false},
      {"ladder_nodes", std::int64_t{layout.nodes}, "nodes", false},
      {"measures",
       std::string(groups_->group_size(-1) < 2 ? schema::kCommMeasuresLaunch
                                               : schema::kCommMeasuresBandwidth),
       "", false},
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
  const auto& columns = schema::kCommStatsColumns;
  return {
      column_param(columns[schema::kCommSizeBytes], static_cast<std::int64_t>(b), false),
      column_param(columns[schema::kCommCount], static_cast<std::int64_t>(b / size_of(spec_.dtype)),
                   false),
  };
}

std::vector<Metric> CollectiveCase::metrics(std::size_t point, int group, double seconds) const {
  const auto& columns = schema::kCommStatsColumns;
  auto both = [&](double algbw, double busbw) {
    return std::vector<Metric>{
        metric(columns[schema::kCommAlgbw], algbw, &columns[schema::kCommBatchedAlgbw]),
        metric(columns[schema::kCommBusbw], busbw, &columns[schema::kCommBatchedBusbw])};
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
