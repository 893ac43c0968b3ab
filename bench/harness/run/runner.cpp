#include "harness/run/runner.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <thread>

#include "harness/run/clock_sync.hpp"
#include "harness/run/exit_codes.hpp"
#include "harness/run/host_load.hpp"
#include "harness/run/idle_wait.hpp"
#include "harness/run/rank_span.hpp"
#include "harness/run/soak.hpp"
#include "preflight/common/stats.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kPrecisionChunk = 10;  // iterations between collective precision checks
constexpr int kClockRounds = 10;     // ping-pongs per rank that measure its clock's offset

double seconds(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

// A time stamp as seconds on this rank's clock (clock_sync.hpp's monotonic_seconds).
double seconds_on_clock(Clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

// Test-only faults planted in this rank's timed operations; 0: none.
struct Plants {
  double slow_factor = 0;  // after each operation, wait this many times its duration
  double late_s = 0;       // leave each starting barrier this much later than the others
};

// One timed region on this rank: when it started (this rank's clock) and its time per operation.
struct TimedRegion {
  double start_s = kNaN;
  double seconds = kNaN;
};

void set_phase(Watchdog* w, Phase p) {
  if (w != nullptr) w->set_phase(p);
}

// Test-only: a planted slow node waits after each operation for `factor` times its duration,
// as a rank with a slower GPU, memory or link would take longer. It yields while it waits, so
// on an oversubscribed machine it does not slow the other ranks too. Returns the operation's
// time with the wait. Out of line and behind one comparison, so that without a plant the timed
// path reads no more clocks than the two around the operation.
[[gnu::noinline]] double plant_slowness(double elapsed, double factor) {
  const auto begin = Clock::now();
  const auto until = begin + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(elapsed * factor));
  auto now = begin;
  while ((now = Clock::now()) < until) std::this_thread::yield();  // leave the core to others
  return elapsed + seconds(begin, now);
}

// Test-only: a planted late rank sleeps between the barrier's release and its start, as a rank
// of an oversubscribed host descheduled as the barrier released would: its own time is then
// shorter than the span from the first start to the last finish. Out of line, like the above.
[[gnu::noinline]] void plant_lateness(double late_s) {
  std::this_thread::sleep_for(std::chrono::duration<double>(late_s));
}

// `ops` operations launched right after a barrier and waited for once (ops == 1: one timed
// iteration), timed on this rank alone: with the operation's device timer when it has one,
// else with the host clock around the launches and the wait. Returns the time per operation
// and the host clock's reading at the start (with a device timer, right before its start mark).
// This is the harness's hot path: between the two clock reads (or the device marks) there is
// nothing but the operation's own calls, and outside them only relaxed stores of the
// watchdog's phase. `allowance_s`: how long the block may go without a phase change beyond the
// watchdog's timeout (a block of many operations changes phase once).
TimedRegion timed_ops(Operation* op, DeviceTimer* timer, int ops, MPI_Comm world, Watchdog* w,
                      const Plants& plants, double allowance_s = 0) {
  set_phase(w, Phase::kBarrier);
  MPI_Barrier(world);
  if (allowance_s > 0 && w != nullptr)
    w->set_phase_allowing(Phase::kOperation, allowance_s);
  else
    set_phase(w, Phase::kOperation);
  if (op == nullptr) return {};
  if (plants.late_s > 0) [[unlikely]]
    plant_lateness(plants.late_s);
  double elapsed = 0;
  Clock::time_point start;
  if (timer == nullptr) [[likely]] {
    start = Clock::now();
    op->launch_batch(ops);
    op->wait();
    const auto end = Clock::now();
    elapsed = seconds(start, end);
  } else {
    start = Clock::now();
    timer->start();
    op->launch_batch(ops);
    timer->stop();
    op->wait();
    elapsed = timer->seconds();
  }
  if (plants.slow_factor > 0) [[unlikely]]
    elapsed = plant_slowness(elapsed, plants.slow_factor);
  return {seconds_on_clock(start), elapsed / ops};
}

double slowest_sample(const std::vector<double>& samples) {
  double slowest = 0;
  for (double x : samples)
    if (!std::isnan(x)) slowest = std::max(slowest, x);
  return slowest;
}

// One timed iteration. The operation's untimed set-up (before_iteration) comes before the
// barrier; with `quiet` also after one, so that no rank is still in the previous operation
// while another sets up.
TimedRegion timed_iteration(Operation* op, DeviceTimer* timer, MPI_Comm world, Watchdog* w,
                            const Plants& plants, bool quiet) {
  if (quiet) {
    set_phase(w, Phase::kBarrier);
    MPI_Barrier(world);
    set_phase(w, Phase::kHarness);
  }
  if (op != nullptr) op->before_iteration();
  return timed_ops(op, timer, 1, world, w, plants);
}

// Test-only: whether this rank's operations in this case carry a planted corruption.
bool corruption_planted(const Case& c, const RankContext& ctx, const RunControls& controls) {
  return ctx.rank == controls.corrupt_rank &&
         (controls.corrupt_case.empty() || names_words(c.name(), controls.corrupt_case));
}

std::vector<std::string_view> words_of(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = std::min(text.find(' ', begin), text.size());
    if (end > begin) out.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

// The correctness check: the operation waited for, then its result counted. `damage`: test-only,
// the result damaged before it is counted.
std::uint64_t check_result(Operation* op, const RankContext& ctx, bool damage, Watchdog* w) {
  if (op != nullptr) op->fill();
  set_phase(w, Phase::kBarrier);
  idle_barrier(ctx.world);  // after the last point's results, which rank 0 alone writes
  set_phase(w, Phase::kOperation);
  if (op == nullptr) return 0;
  op->launch();
  op->wait();
  set_phase(w, Phase::kHarness);
  if (damage) op->corrupt_result();
  return op->count_wrong();
}

double estimate_cost(Operation* op, DeviceTimer* timer, const RankContext& ctx, int warmup,
                     Watchdog* w, const Plants& plants, bool quiet) {
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(warmup));
  for (int i = 0; i < warmup; ++i)
    times.push_back(timed_iteration(op, timer, ctx.world, w, plants, quiet).seconds);
  double local = 0;
  if (op != nullptr && !times.empty()) {
    std::sort(times.begin(), times.end());
    local = times[times.size() / 2];
  }
  double slowest = 0;
  set_phase(w, Phase::kBarrier);
  MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, ctx.world);
  return slowest;
}

// The per-iteration phase. Without a precision target it runs the budget's worth of
// iterations; with one it stops early once the median's 95% interval is narrow enough, a
// decision every rank takes from the same numbers (the slowest rank's time per iteration).
// After each timed iteration, the operation's counters (one column per counter) are kept too.
class CounterColumns {
 public:
  explicit CounterColumns(std::size_t n) : columns_(n) {}
  // Inline, one comparison, for the cases that declare no counters (every collective).
  void take(Operation* op) {
    if (!columns_.empty()) [[unlikely]]
      take_some(op);
  }
  const std::vector<std::vector<double>>& columns() const { return columns_; }

 private:
  [[gnu::noinline]] void take_some(Operation* op) {
    std::vector<double> v;
    if (op != nullptr) v = op->iteration_counters();
    if (op != nullptr && v.size() != columns_.size())
      throw std::logic_error(fmt::format("an operation reported {} counters, its case declares {}",
                                         v.size(), columns_.size()));
    for (std::size_t i = 0; i < columns_.size(); ++i)
      columns_[i].push_back(op != nullptr ? v[i] : kNaN);
  }
  std::vector<std::vector<double>> columns_;
};

std::vector<TimedRegion> timed_iterations(Operation* op, DeviceTimer* timer, const RankContext& ctx,
                                          const TimingOptions& t, int planned, StopReason& reason,
                                          Watchdog* w, const Plants& plants,
                                          CounterColumns& counters, bool quiet) {
  std::vector<TimedRegion> samples;
  samples.reserve(static_cast<std::size_t>(planned));
  reason = planned >= t.max_iterations ? StopReason::kMaxIterations : StopReason::kBudget;
  if (t.precision <= 0) {
    for (int i = 0; i < planned; ++i) {
      samples.push_back(timed_iteration(op, timer, ctx.world, w, plants, quiet));
      counters.take(op);
    }
    return samples;
  }
  std::vector<double> slowest;
  while (static_cast<int>(samples.size()) < planned) {
    const int chunk = std::min(kPrecisionChunk, planned - static_cast<int>(samples.size()));
    std::vector<double> mine;
    for (int i = 0; i < chunk; ++i) {
      samples.push_back(timed_iteration(op, timer, ctx.world, w, plants, quiet));
      mine.push_back(samples.back().seconds);
      counters.take(op);
    }
    for (double& x : mine) x = std::isnan(x) ? 0 : x;  // idle ranks take no part in the maximum
    std::vector<double> chunk_slowest(mine.size());
    set_phase(w, Phase::kBarrier);
    MPI_Allreduce(mine.data(), chunk_slowest.data(), chunk, MPI_DOUBLE, MPI_MAX, ctx.world);
    slowest.insert(slowest.end(), chunk_slowest.begin(), chunk_slowest.end());
    if (static_cast<int>(slowest.size()) < t.min_iterations) continue;
    std::vector<double> sorted = slowest;
    std::sort(sorted.begin(), sorted.end());
    const Interval ci = median_interval(sorted);
    const double median = sorted[sorted.size() / 2];
    if (median > 0 && (ci.high - ci.low) / 2 <= t.precision * median) {
      reason = StopReason::kPrecision;
      break;
    }
  }
  return samples;
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

// Each rank's series of any length, as rows x ranks on rank 0, NaN below a rank's last value.
std::vector<double> gather_series(const std::vector<double>& mine, const RankContext& ctx,
                                  std::size_t& rows) {
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(ctx.is_root() ? static_cast<std::size_t>(ctx.size) : 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, ctx.world);
  std::vector<int> offsets(lengths.size(), 0);
  int total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::vector<double> all(static_cast<std::size_t>(total));
  MPI_Gatherv(mine.data(), length, MPI_DOUBLE, all.data(), lengths.data(), offsets.data(),
              MPI_DOUBLE, 0, ctx.world);
  rows = 0;
  if (!ctx.is_root()) return {};
  for (int l : lengths) rows = std::max(rows, static_cast<std::size_t>(l));
  const auto n = static_cast<std::size_t>(ctx.size);
  std::vector<double> matrix(rows * n, kNaN);
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t i = 0; i < static_cast<std::size_t>(lengths[r]); ++i)
      matrix[i * n + r] = all[static_cast<std::size_t>(offsets[r]) + i];
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
  const auto per_iteration = slowest_per_row(p.samples, ranks, members);
  g.per_iteration = summarize(per_iteration);
  std::vector<double> sorted;
  for (double x : per_iteration)
    if (!std::isnan(x)) sorted.push_back(x);
  std::sort(sorted.begin(), sorted.end());
  g.median_ci = sorted.empty() ? Interval{kNaN, kNaN} : median_interval(sorted);
  g.batched = summarize(slowest_per_row(p.batched, ranks, members));
  for (int r : members) g.wrong += p.wrong_per_rank[static_cast<std::size_t>(r)];
  g.columns = c.point_columns(p.index, group);
  g.metrics = c.metrics(p.index, group, g.per_iteration.median);
  if (p.batch_blocks > 0) g.batched_metrics = c.metrics(p.index, group, g.batched.median);
  const SampleView view{ranks,       static_cast<std::size_t>(p.iterations), &members, &p.samples,
                        &p.counters, c.measures_span() ? &p.starts : nullptr};
  for (auto& m : c.sample_metrics(p.index, group, view)) g.metrics.push_back(std::move(m));
  return g;
}

int group_count(const Case& c) {
  const auto& g = c.group_of_rank();
  return 1 + *std::max_element(g.begin(), g.end());
}

void add_group_results(Case& c, PointResult& p, const RankContext& ctx) {
  const auto& group_of_rank = c.group_of_rank();
  const int groups = group_count(c);
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

// Nodes spanned by group 0's ranks (the width of one group: what a scaling curve's x is).
std::int64_t span_nodes(const std::vector<int>& group_of_rank, const RankContext& ctx) {
  std::vector<int> nodes;
  for (std::size_t r = 0; r < group_of_rank.size() && r < ctx.node_of_rank.size(); ++r)
    if (group_of_rank[r] == 0) nodes.push_back(ctx.node_of_rank[r]);
  std::sort(nodes.begin(), nodes.end());
  return std::unique(nodes.begin(), nodes.end()) - nodes.begin();
}

// The most an active rank's start can be off rank 0's clock (clock_sync.hpp).
double clock_error(const std::vector<int>& group_of_rank, const RankClocks& clocks) {
  double worst = 0;
  for (std::size_t r = 0; r < group_of_rank.size() && r < clocks.error_s.size(); ++r)
    if (group_of_rank[r] >= 0) worst = std::max(worst, clocks.error_s[r]);
  return worst;
}

CaseRecord start_record(const PlannedCase& planned, std::size_t index, const RankContext& ctx,
                        const RankClocks& clocks) {
  const Case& c = *planned.c;
  CaseRecord r;
  r.index = index;
  r.name = c.name();
  r.family = c.family();
  r.backend = c.backend();
  namespace h = schema::harness;
  r.params = {attr(h::kBenchmark, planned.benchmark), attr(h::kVariant, planned.variant),
              attr(h::kRepetition, planned.repetition)};
  for (auto& p : c.params()) r.params.push_back(std::move(p));
  if (c.measures_span())
    r.params.push_back(attr(h::kClockErrorS, clock_error(c.group_of_rank(), clocks)));
  r.declaration = &c.declaration();
  r.group_of_rank = c.group_of_rank();
  r.meaning = schema::meaning_of(c.declaration(), c.own_meaning());
  r.meaning.span_nodes = span_nodes(r.group_of_rank, ctx);
  r.group_count = group_count(c);
  r.timeout_s = planned.timing.timeout_s;
  return r;
}

// Sets the variant's environment before its cases run; puts back what was there before.
class VariantEnvironment {
 public:
  void apply(const std::map<std::string, std::string>* env) {
    if (env == current_) return;
    restore();
    current_ = env;
    if (env == nullptr) return;
    for (const auto& [name, value] : *env) {
      const char* old = std::getenv(name.c_str());
      saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
      setenv(name.c_str(), value.c_str(), 1);
    }
  }
  ~VariantEnvironment() { restore(); }

 private:
  void restore() {
    for (const auto& [name, value] : saved_)
      value ? setenv(name.c_str(), value->c_str(), 1) : unsetenv(name.c_str());
    saved_.clear();
    current_ = nullptr;
  }
  const std::map<std::string, std::string>* current_ = nullptr;
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// Every rank's clock against rank 0's, measured once per run when some case measures a span
// (all ranks hold the same plan, so all take part or none); else none, offsets 0.
RankClocks clocks_for(const std::vector<PlannedCase>& plan, const RankContext& ctx,
                      const KernelGroups& kernels) {
  if (std::none_of(plan.begin(), plan.end(),
                   [](const PlannedCase& p) { return p.c->measures_span(); }))
    return {};
  std::vector<bool> shares_rank0_kernel;
  for (int r = 0; r < ctx.size; ++r)
    shares_rank0_kernel.push_back(kernels.measured() &&
                                  kernels.kernel_of_rank[static_cast<std::size_t>(r)] ==
                                      kernels.kernel_of_rank[0]);
  return rank_clocks(measure_clock_offsets(ctx.world, kClockRounds), shares_rank0_kernel);
}

// Rank 0 decides whether the run's time budget allows another case; every rank follows.
bool within_budget(const RunControls& controls, Clock::time_point start, const RankContext& ctx) {
  int go = controls.time_budget_s <= 0 || seconds(start, Clock::now()) < controls.time_budget_s;
  idle_bcast(&go, 1, MPI_INT, 0, ctx.world);  // rank 0 may still be writing the last case
  return go != 0;
}

// Runs the points of one case into progress.record (rank 0's copy is the one that counts).
void run_case(PlannedCase& planned, const CaseHeading& heading, const RankContext& ctx,
              const RunControls& controls, double clock_offset_s,
              const std::vector<ResultSink*>& sinks, Watchdog* watchdog, InProgress& progress) {
  Case& c = *planned.c;
  const bool faulty_case = heading.index == controls.hang_case;
  if (ctx.rank == controls.internal_error_rank && faulty_case)
    throw std::runtime_error("test-only internal error (--test-internal-error-rank)");
  set_phase(watchdog, Phase::kHarness);
  c.start();
  for (std::size_t p = 0; p < c.point_count(); ++p) {
    if (watchdog != nullptr) watchdog->set_point(static_cast<std::int64_t>(p));
    if (ctx.rank == controls.hang_rank && faulty_case && p == controls.hang_point) {
      set_phase(watchdog, Phase::kTestHang);
      std::this_thread::sleep_for(std::chrono::duration<double>(controls.hang_seconds));
    }
    PointResult point = run_point(c, p, ctx, planned.timing, controls, clock_offset_s, watchdog,
                                  planned.repetition);
    if (!ctx.is_root()) continue;
    std::lock_guard lock(progress.mutex);
    progress.record.wrong_elements += point.groups.front().wrong;
    progress.record.points.push_back(std::move(point));
    for (auto* sink : sinks) sink->point_finished(heading, progress.record.points.back());
  }
}

}  // namespace

bool names_words(std::string_view name, std::string_view words) {
  const auto have = words_of(name), want = words_of(words);
  if (want.empty()) return false;
  return std::search(have.begin(), have.end(), want.begin(), want.end()) != have.end();
}

PointResult run_point(Case& c, std::size_t point, const RankContext& ctx,
                      const TimingOptions& timing, const RunControls& controls,
                      double clock_offset_s, Watchdog* w, int round) {
  set_phase(w, Phase::kHarness);
  const double drift = ctx.rank == controls.drift_rank ? controls.drift_per_round * round : 0;
  const Plants plants{(ctx.node == controls.slow_node ? controls.slow_factor : 0) + drift,
                      ctx.rank == controls.late_rank ? controls.late_seconds : 0};
  auto op = c.make_operation(point);
  DeviceTimer* const timer = op != nullptr ? op->device_timer() : nullptr;
  const bool quiet = c.quiet_setup();
  PointResult p;
  p.index = point;
  const bool planted = corruption_planted(c, ctx, controls);
  if (op != nullptr && planted && controls.corrupt_every > 0)
    op->plant_corruption(controls.corrupt_every);
  std::uint64_t wrong = check_result(op.get(), ctx, planted && controls.corrupt_every == 0, w);

  const int planned = decide_iterations(
      timing, estimate_cost(op.get(), timer, ctx, timing.warmup, w, plants, quiet));
  StopReason reason = StopReason::kMaxIterations;
  p.counter_specs = c.counters();
  p.series_specs = c.series();
  CounterColumns counters(p.counter_specs.size());
  std::vector<double> samples, starts;
  for (const TimedRegion& t : timed_iterations(op.get(), timer, ctx, timing, planned, reason, w,
                                               plants, counters, quiet)) {
    samples.push_back(t.seconds);
    starts.push_back(t.start_s - clock_offset_s);  // on rank 0's clock
  }
  p.iterations = static_cast<int>(samples.size());
  p.stop_reason = name_of(reason);

  const bool back_to_back = c.back_to_back();
  p.batch_blocks = back_to_back ? timing.batch_blocks : 0;
  p.batch_ops = back_to_back ? std::max(1, p.iterations / timing.batch_blocks) : 0;
  std::vector<double> batched;
  batched.reserve(static_cast<std::size_t>(p.batch_blocks));
  // A block is batch_ops operations with no phase change between them: the watchdog allows
  // twice what they took one at a time, at the slowest this rank saw.
  const double block_allowance_s = 2 * p.batch_ops * slowest_sample(samples);
  if (op != nullptr && p.batch_blocks > 0) op->prepare_batch(p.batch_ops);
  for (int b = 0; b < p.batch_blocks; ++b)
    batched.push_back(
        timed_ops(op.get(), timer, p.batch_ops, ctx.world, w, plants, block_allowance_s).seconds);
  // After the back-to-back blocks too: an operation's series (telemetry, interval rates) covers
  // every phase that ran it.
  std::vector<std::vector<double>> series;
  if (!p.series_specs.empty()) {
    if (op != nullptr) series = op->series();
    series.resize(p.series_specs.size());
  }

  set_phase(w, Phase::kBarrier);
  p.samples = gather_matrix(samples, ctx);
  if (c.measures_span()) {
    p.starts = gather_matrix(starts, ctx);
    relative_to_first(p.starts, static_cast<std::size_t>(ctx.size));
  }
  p.batched = gather_matrix(batched, ctx);
  for (const auto& column : counters.columns()) p.counters.push_back(gather_matrix(column, ctx));
  for (const auto& one : series) {
    std::size_t rows = 0;
    p.series.push_back(gather_series(one, ctx, rows));
    p.series_rows.push_back(rows);
  }
  if (op != nullptr) wrong += op->wrong_in_runs();
  p.wrong_per_rank.resize(ctx.is_root() ? static_cast<std::size_t>(ctx.size) : 1);
  MPI_Gather(&wrong, 1, MPI_UINT64_T, p.wrong_per_rank.data(), 1, MPI_UINT64_T, 0, ctx.world);
  set_phase(w, Phase::kHarness);
  if (ctx.is_root()) add_group_results(c, p, ctx);
  return p;
}

namespace {

// UTC now, ISO 8601 to the millisecond: a case's start (schema harness::kStartTime).
std::string utc_now_ms() {
  const auto now =
      std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now());
  const auto ms = now.time_since_epoch().count() % 1000;
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03d}Z",
                     std::chrono::time_point_cast<std::chrono::seconds>(now), ms);
}

// What the loop over cases shares: where the run is, for the progress lines and the end.
struct CampaignState {
  Clock::time_point start = Clock::now();
  bool any_failed = false;
  bool stopped_early = false;
  std::size_t done = 0, to_run = 0;
};

// Runs plan case `position` as case `index` of the file, of round `round` (0 outside a soak).
// Returns false when the run's time budget stopped it before the case began.
bool run_one(PlannedCase planned, std::size_t index, long round, const RankContext& ctx,
             const RunControls& controls, const std::vector<ResultSink*>& sinks, Watchdog* watchdog,
             InProgress& progress, CampaignState& state, VariantEnvironment& environment,
             const KernelGroups& kernels, const RankClocks& clocks, double clock_offset_s,
             const SoakClock& soak, WorstNode& worst, std::size_t total) {
  planned.repetition = soak.active() ? static_cast<int>(round) : planned.repetition;
  // Armed from before the budget check to after the last broadcast: no gap between cases.
  if (watchdog != nullptr)
    watchdog->arm(static_cast<std::int64_t>(index), planned.c->name(), planned.timing.timeout_s,
                  planned.timing.case_budget_s);
  if (!within_budget(controls, state.start, ctx)) return false;
  environment.apply(planned.env);
  const double elapsed = seconds(state.start, Clock::now());
  const double left = state.done == 0 ? kNaN
                                      : elapsed / static_cast<double>(state.done) *
                                            static_cast<double>(state.to_run - state.done);
  CaseHeading heading{index, total, planned.c.get(), elapsed, left, state.done, state.to_run};
  if (soak.active()) {
    heading.round = round;
    heading.soak_s = soak.soak_s();
    heading.soaked_s = soak.soaked_s(elapsed);
    heading.rounds_left = soak.rounds_left(elapsed);
    heading.worst_node = worst.text();
  }
  const auto case_start = Clock::now();
  {
    std::lock_guard lock(progress.mutex);
    progress.record = start_record(planned, index, ctx, clocks);
    progress.record.params.push_back(attr(schema::harness::kStartTime, utc_now_ms()));
    progress.active = true;
    for (auto* sink : sinks) sink->case_started(heading);
  }
  const HostLoadMeter host_load(ctx, kernels);
  run_case(planned, heading, ctx, controls, clock_offset_s, sinks, watchdog, progress);
  const HostLoad load = host_load.finish(ctx);
  // Rank 0 alone knows the wrong counts of all ranks; every rank must return the same code.
  std::uint64_t wrong = progress.record.wrong_elements;
  idle_bcast(&wrong, 1, MPI_UINT64_T, 0, ctx.world);
  if (watchdog != nullptr) watchdog->disarm();
  state.any_failed = state.any_failed || wrong > 0;
  ++state.done;
  std::lock_guard lock(progress.mutex);
  progress.record.status =
      std::string(wrong > 0 ? schema::case_status::kFailed : schema::case_status::kOk);
  progress.record.host_load = load;
  progress.record.params.push_back(
      attr(schema::harness::kDurationS, seconds(case_start, Clock::now())));
  progress.active = false;
  if (soak.active() && ctx.is_root()) {
    progress.record.node_time_ratios = node_time_ratios(progress.record, ctx);
    worst.take(progress.record.node_time_ratios, progress.record.name, ctx, round);
  }
  for (auto* sink : sinks) sink->case_finished(progress.record);
  progress.record.points.clear();  // rank 0 keeps no finished case's samples
  return true;
}

}  // namespace

int run_campaign(std::vector<PlannedCase>& plan, const RankContext& ctx,
                 const RunControls& controls, const std::vector<ResultSink*>& sinks,
                 Watchdog* watchdog, InProgress& progress) {
  CampaignState state;
  state.any_failed = controls.earlier_failed;
  const std::size_t per_round = plan.size();
  SoakClock soak(controls.soak_s, controls.soaked_s,
                 per_round == 0
                     ? 0
                     : static_cast<double>(controls.skip.size()) / static_cast<double>(per_round));
  WorstNode worst;
  VariantEnvironment environment;
  const KernelGroups kernels = kernel_groups(ctx);
  const RankClocks clocks = clocks_for(plan, ctx, kernels);
  const double clock_offset_s =
      clocks.offset_s.empty() ? 0 : clocks.offset_s[static_cast<std::size_t>(ctx.rank)];
  long rounds_run = 0;
  for (long round = 0; !state.stopped_early; ++round) {
    const std::size_t first = static_cast<std::size_t>(round) * per_round;
    std::size_t finished_before = 0;
    for (std::size_t j = 0; j < per_round; ++j) finished_before += controls.skip.count(first + j);
    if (soak.active() && finished_before == per_round) continue;  // a round an earlier job ran
    // A round an earlier job began is completed; a new one starts while the soak's time lasts.
    if (soak.active() && finished_before == 0 && round > 0 &&
        !soak.another_round(seconds(state.start, Clock::now()), ctx))
      break;
    state.to_run = per_round - finished_before;
    state.done = 0;
    for (std::size_t j = 0; j < per_round && !state.stopped_early; ++j) {
      const std::size_t index = first + j;
      if (controls.skip.count(index)) continue;
      state.stopped_early =
          !run_one(plan[j], index, round, ctx, controls, sinks, watchdog, progress, state,
                   environment, kernels, clocks, clock_offset_s, soak, worst, per_round);
    }
    ++rounds_run;
    if (!soak.active()) break;
    if (!state.stopped_early) soak.round_ended(seconds(state.start, Clock::now()));
  }
  if (watchdog != nullptr) watchdog->disarm();
  const int code = state.stopped_early ? exit_code::kTimeout
                   : state.any_failed  ? exit_code::kBenchmarkFailed
                                       : exit_code::kSuccess;
  const auto status = state.stopped_early ? schema::run_status::kIncomplete
                      : state.any_failed  ? schema::run_status::kFailed
                                          : schema::run_status::kComplete;
  if (ctx.is_root()) {
    std::lock_guard lock(progress.mutex);
    std::string note;
    if (state.stopped_early)
      note = fmt::format(
          "the run's time budget ({:g} s) ran out after {} of {} cases{}; --resume completes it",
          controls.time_budget_s, state.done, state.to_run,
          soak.active() ? fmt::format(" of round {}", rounds_run - 1) : std::string());
    else if (soak.active())
      note = fmt::format("soak: {} s of {:g} s spent in rounds of the campaign",
                         std::lround(soak.soaked_s(seconds(state.start, Clock::now()))),
                         controls.soak_s);
    for (auto* sink : sinks) sink->run_finished(std::string(status), code, note);
  }
  return code;
}

}  // namespace preflight
