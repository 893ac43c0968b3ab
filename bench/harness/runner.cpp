#include "harness/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "harness/exit_codes.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double seconds(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

// One operation started right after a barrier, timed on this rank alone.
double timed_iteration(Operation* op, MPI_Comm world) {
  MPI_Barrier(world);
  const auto start = Clock::now();
  if (op != nullptr) op->run();
  const auto end = Clock::now();
  return op != nullptr ? seconds(start, end) : kNaN;
}

// `ops` operations back to back after one barrier; time per operation on this rank.
double timed_block(Operation* op, int ops, MPI_Comm world) {
  MPI_Barrier(world);
  const auto start = Clock::now();
  if (op != nullptr)
    for (int i = 0; i < ops; ++i) op->run();
  const auto end = Clock::now();
  return op != nullptr ? seconds(start, end) / ops : kNaN;
}

std::uint64_t check_result(Operation* op, const RankContext& ctx, const TimingOptions& options) {
  if (op != nullptr) op->fill();
  MPI_Barrier(ctx.world);
  if (op == nullptr) return 0;
  op->run();
  if (ctx.rank == options.corrupt_rank) op->corrupt_result();
  return op->count_wrong();
}

double estimate_cost(Operation* op, const RankContext& ctx, int warmup) {
  std::vector<double> times;
  for (int i = 0; i < warmup; ++i) times.push_back(timed_iteration(op, ctx.world));
  double local = 0;
  if (op != nullptr && !times.empty()) {
    std::sort(times.begin(), times.end());
    local = times[times.size() / 2];
  }
  double slowest = 0;
  MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, ctx.world);
  return slowest;
}

std::vector<double> gather_matrix(const std::vector<double>& mine, const RankContext& ctx) {
  // mine is one column (this rank's values); the result is rows x ranks, row-major.
  const std::size_t rows = mine.size();
  std::vector<double> by_rank(ctx.is_root() ? rows * static_cast<std::size_t>(ctx.size) : 0);
  MPI_Gather(mine.data(), static_cast<int>(rows), MPI_DOUBLE, by_rank.data(),
             static_cast<int>(rows), MPI_DOUBLE, 0, ctx.world);
  if (!ctx.is_root()) return {};
  std::vector<double> matrix(by_rank.size());
  const auto n = static_cast<std::size_t>(ctx.size);
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t i = 0; i < rows; ++i) matrix[i * n + r] = by_rank[r * rows + i];
  return matrix;
}

// Per row, the slowest rank among `members`: a collective is done when its last rank is.
std::vector<double> slowest_per_row(const std::vector<double>& matrix, std::size_t ranks,
                                    const std::vector<int>& members) {
  const std::size_t rows = ranks == 0 ? 0 : matrix.size() / ranks;
  std::vector<double> out(rows, kNaN);
  for (std::size_t i = 0; i < rows; ++i) {
    double slowest = kNaN;
    for (int r : members) {
      const double t = matrix[i * ranks + static_cast<std::size_t>(r)];
      if (!std::isnan(t) && (std::isnan(slowest) || t > slowest)) slowest = t;
    }
    out[i] = slowest;
  }
  return out;
}

GroupResult group_result(Case& c, const PointResult& p, int group, const std::vector<int>& members,
                         std::size_t ranks) {
  GroupResult g;
  g.group = group;
  g.ranks = static_cast<int>(members.size());
  g.per_iteration = summarize(slowest_per_row(p.samples, ranks, members));
  g.batched = summarize(slowest_per_row(p.batched, ranks, members));
  for (int r : members) g.wrong += p.wrong_per_rank[static_cast<std::size_t>(r)];
  g.columns = c.point_columns(p.index, group);
  g.metrics = c.metrics(p.index, group, g.per_iteration.median);
  g.batched_metrics = c.metrics(p.index, group, g.batched.median);
  return g;
}

void add_group_results(Case& c, PointResult& p, const RankContext& ctx) {
  const auto& group_of_rank = c.group_of_rank();
  const int groups = 1 + *std::max_element(group_of_rank.begin(), group_of_rank.end());
  std::vector<std::vector<int>> members(static_cast<std::size_t>(groups));
  std::vector<int> everyone;
  for (int r = 0; r < ctx.size; ++r) {
    const int g = group_of_rank[static_cast<std::size_t>(r)];
    if (g < 0) continue;
    members[static_cast<std::size_t>(g)].push_back(r);
    everyone.push_back(r);
  }
  const auto ranks = static_cast<std::size_t>(ctx.size);
  p.groups.push_back(group_result(c, p, -1, everyone, ranks));
  if (groups > 1)
    for (int g = 0; g < groups; ++g)
      p.groups.push_back(group_result(c, p, g, members[static_cast<std::size_t>(g)], ranks));
}

int group_count(const Case& c) {
  const auto& g = c.group_of_rank();
  return 1 + *std::max_element(g.begin(), g.end());
}

}  // namespace

PointResult run_point(Case& c, std::size_t point, const RankContext& ctx,
                      const TimingOptions& options) {
  auto op = c.make_operation(point);
  PointResult p;
  p.index = point;
  const std::uint64_t wrong = check_result(op.get(), ctx, options);

  p.iterations = decide_iterations(options, estimate_cost(op.get(), ctx, options.warmup));
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(p.iterations));
  for (int i = 0; i < p.iterations; ++i) samples.push_back(timed_iteration(op.get(), ctx.world));

  p.batch_blocks = options.batch_blocks;
  p.batch_ops = std::max(1, p.iterations / options.batch_blocks);
  std::vector<double> batched;
  for (int b = 0; b < p.batch_blocks; ++b)
    batched.push_back(timed_block(op.get(), p.batch_ops, ctx.world));

  p.samples = gather_matrix(samples, ctx);
  p.batched = gather_matrix(batched, ctx);
  p.wrong_per_rank.resize(ctx.is_root() ? static_cast<std::size_t>(ctx.size) : 1);
  MPI_Gather(&wrong, 1, MPI_UINT64_T, p.wrong_per_rank.data(), 1, MPI_UINT64_T, 0, ctx.world);
  if (ctx.is_root()) add_group_results(c, p, ctx);
  return p;
}

int run_cases(std::vector<std::unique_ptr<Case>>& cases, const RankContext& ctx,
              const TimingOptions& options, const std::vector<ResultSink*>& sinks) {
  bool any_failed = false;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    Case& c = *cases[k];
    const CaseHeading heading{k, cases.size(), &c};
    for (auto* sink : sinks) sink->case_started(heading);
    CaseRecord record;
    record.index = k;
    record.name = c.name();
    record.family = c.family();
    record.backend = c.backend();
    record.params = c.params();
    record.group_of_rank = c.group_of_rank();
    record.group_count = group_count(c);
    for (std::size_t p = 0; p < c.point_count(); ++p) {
      record.points.push_back(run_point(c, p, ctx, options));
      if (!ctx.is_root()) continue;
      for (auto* sink : sinks) sink->point_finished(heading, record.points.back());
      record.wrong_elements += record.points.back().groups.front().wrong;
    }
    // Rank 0 alone knows the wrong counts of all ranks; every rank must return the same code.
    std::uint64_t wrong = record.wrong_elements;
    MPI_Bcast(&wrong, 1, MPI_UINT64_T, 0, ctx.world);
    any_failed = any_failed || wrong > 0;
    record.status =
        std::string(wrong > 0 ? schema::case_status::kFailed : schema::case_status::kOk);
    for (auto* sink : sinks) sink->case_finished(record);
  }
  const int code = any_failed ? exit_code::kBenchmarkFailed : exit_code::kSuccess;
  const auto status = any_failed ? schema::run_status::kFailed : schema::run_status::kComplete;
  for (auto* sink : sinks) sink->run_finished(std::string(status), code);
  return code;
}

}  // namespace preflight
