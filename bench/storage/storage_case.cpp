#include "storage/storage_case.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <random>
#include <stdexcept>
#include <thread>

#include "harness/run/rank_span.hpp"
#include "preflight/common/sizes.hpp"
#include "preflight/common/stats.hpp"
#include "preflight/schema/storage.hpp"
#include "storage/engine.hpp"
#include "storage/pattern.hpp"

namespace preflight::storage {
namespace {

constexpr double kWarnResident = 0.05;  // cached after eviction: worth a warning

// Where each counter sits among an operation's counters: its place in the declared table.
constexpr std::size_t counter(const schema::Column& c) {
  return schema::index_in(schema::kStorageCounters, c);
}
constexpr std::size_t kBytes = counter(schema::storage::kBytesCounter),
                      kOps = counter(schema::storage::kOpsCounter),
                      kResident = counter(schema::storage::kResidentBeforeCounter),
                      kP50 = counter(schema::storage::kLatP50Counter),
                      kP99 = counter(schema::storage::kLatP99Counter),
                      kP999 = counter(schema::storage::kLatP999Counter),
                      kCounterCount = schema::kStorageCounters.size();

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// Nearest-rank percentile of sorted values; NaN when there are none.
double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return kNaN;
  const auto n = static_cast<double>(sorted.size());
  const auto i = static_cast<std::size_t>(std::clamp(std::ceil(q * n) - 1, 0.0, n - 1));
  return sorted[i];
}

double median_of(std::vector<double> v) {
  std::erase_if(v, [](double x) { return std::isnan(x); });
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// One reader thread's completions in one iteration.
class Recorder final : public Completions {
 public:
  Recorder(Clock::time_point start, std::size_t block_bytes, const std::string* path,
           std::uint32_t file_id, bool verify)
      : start_(start), block_bytes_(block_bytes), path_(path), file_id_(file_id), verify_(verify) {}

  void done(const BlockRef& block, const std::byte* data, Clock::time_point submitted,
            Clock::time_point completed) override {
    latencies.push_back(seconds(completed - submitted));
    finished.emplace_back(seconds(completed - start_), static_cast<double>(block_bytes_));
    bytes += static_cast<double>(block_bytes_);
    if (verify_) check(block, data);
  }

  std::vector<double> latencies;
  std::vector<std::pair<double, double>> finished;  // (seconds since the start, bytes)
  double bytes = 0;
  BadPages bad;

 private:
  void check(const BlockRef& block, const std::byte* data) {
    for (std::size_t p = 0; p < block_bytes_; p += kPatternPage) {
      const std::uint64_t offset = block.offset + p;
      const long at = first_mismatch(data + p, kPatternPage, file_id_, offset);
      if (at < 0) continue;
      bad.add(bad_page_message(*path_, file_id_, offset, data + p, at));
    }
  }

  Clock::time_point start_;
  std::size_t block_bytes_;
  const std::string* path_;
  std::uint32_t file_id_;
  bool verify_;
};

struct Region {
  std::string path;
  std::uint32_t file_id = 0;
  std::uint64_t offset = 0;  // of this rank's bytes in the file
  std::uint64_t bytes = 0;
};

class StorageOperation final : public Operation {
 public:
  StorageOperation(const ReadSpec& spec, std::size_t block_bytes, Region region, int rank)
      : spec_(spec), block_bytes_(block_bytes), region_(std::move(region)), rank_(rank) {
    const bool direct = spec_.cache == CacheState::kDirect;
    // Never through a symbolic link: the data set holds only regular files (Dataset::check).
    read_fd_ =
        open(region_.path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (direct ? O_DIRECT : 0));
    if (read_fd_ < 0)
      throw std::runtime_error(fmt::format("cannot open {}{}: {}", region_.path,
                                           direct ? " with O_DIRECT" : "", std::strerror(errno)));
    // The access hint fio gives by default (fadvise_hint=1): it sets the readahead window.
    posix_fadvise(read_fd_, 0, 0, spec_.random ? POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL);
    cache_fd_ = open(region_.path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (cache_fd_ < 0)
      throw std::runtime_error(
          fmt::format("cannot open {}: {}", region_.path, std::strerror(errno)));
    struct stat st {};
    fstat(read_fd_, &st);
    if (static_cast<std::uint64_t>(st.st_size) < region_.offset + region_.bytes)
      throw std::runtime_error(fmt::format("{} has {} bytes, expected at least {}", region_.path,
                                           st.st_size, region_.offset + region_.bytes));
    files_.push_back({read_fd_, static_cast<std::uint64_t>(st.st_size)});
    for (std::uint64_t o = 0; o + block_bytes_ <= region_.bytes; o += block_bytes_)
      blocks_.push_back({0, region_.offset + o});
    for (int t = 0; t < spec_.threads; ++t) engines_.push_back(make_engine(spec_.engine));
  }

  ~StorageOperation() override {
    for (auto& e : engines_) e->detach();
    if (read_fd_ >= 0) close(read_fd_);
    if (cache_fd_ >= 0) close(cache_fd_);
  }

  void fill() override { checking_ = true; }  // the data set is the input: nothing to fill

  void before_iteration() override {
    detach();  // mapped pages cannot be evicted
    if (evicts(spec_.cache)) {
      const std::string error = evict_range(cache_fd_, region_.offset, region_.bytes);
      if (!error.empty())
        throw std::runtime_error(fmt::format("evicting {}: {}", region_.path, error));
    }
    resident_ = resident_fraction(cache_fd_, region_.offset, region_.bytes);
    if (evicts(spec_.cache) && resident_ > kWarnResident && !warned_) {
      // The figure stays, labelled by resident_before; say it once per rank and point.
      std::fprintf(stderr,
                   "preflight: rank %d: warning: %.0f%% of %s was still in the page cache after "
                   "eviction (this file system may ignore POSIX_FADV_DONTNEED): this read is "
                   "partly warm, see resident_before\n",
                   rank_, resident_ * 100, region_.path.c_str());
      warned_ = true;
    }
    if (evicts(spec_.cache) && std::isnan(resident_) && !warned_) {
      std::fprintf(stderr,
                   "preflight: rank %d: warning: could not measure how much of %s is in the page "
                   "cache (mmap/mincore failed): this read is not proven cold, resident_before "
                   "is NaN\n",
                   rank_, region_.path.c_str());
      warned_ = true;
    }
    if (spec_.random) {
      std::mt19937_64 rng(static_cast<std::uint64_t>(rank_) * 1000003 + iteration_++);
      std::shuffle(blocks_.begin(), blocks_.end(), rng);
    }
    attach();
  }

  void run() override {
    if (checking_ && !spec_.verify) return;  // nothing to check without verification
    attach();
    const auto start = Clock::now();
    IoJob base;
    base.files = files_;
    base.block_bytes = block_bytes_;
    base.queue_depth = spec_.queue_depth;
    base.direct = spec_.cache == CacheState::kDirect;
    if (spec_.stonewall_s > 0 && !checking_)
      base.deadline = start + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(spec_.stonewall_s));
    const bool verify = checking_ && spec_.verify;
    const std::size_t threads = engines_.size();
    std::vector<Recorder> recorders;
    for (std::size_t t = 0; t < threads; ++t)
      recorders.emplace_back(start, block_bytes_, &region_.path, region_.file_id, verify);
    auto job_of = [&](std::size_t t) {
      IoJob job = base;
      const std::size_t n = blocks_.size();
      const std::size_t from = n * t / threads, to = n * (t + 1) / threads;
      job.blocks = std::span<const BlockRef>(blocks_).subspan(from, to - from);
      return job;
    };
    if (threads == 1) {
      engines_[0]->run(job_of(0), recorders[0]);
    } else {
      std::vector<std::exception_ptr> errors(threads);
      std::vector<std::thread> workers;
      for (std::size_t t = 0; t < threads; ++t)
        workers.emplace_back([&, t] {
          try {
            engines_[t]->run(job_of(t), recorders[t]);
          } catch (...) {
            errors[t] = std::current_exception();
          }
        });
      for (auto& w : workers) w.join();
      for (auto& e : errors)
        if (e) std::rethrow_exception(e);
    }
    const auto end = Clock::now();
    last_ = {};
    last_.duration = seconds(end - start);
    for (auto& r : recorders) {
      last_.bytes += r.bytes;
      last_.latencies.insert(last_.latencies.end(), r.latencies.begin(), r.latencies.end());
      last_.finished.insert(last_.finished.end(), r.finished.begin(), r.finished.end());
      bad_.add(r.bad);
    }
  }

  std::uint64_t count_wrong() override {
    checking_ = false;
    return bad_.report(rank_, "verify");
  }

  // Test-only: as if one page of the region had been read wrong.
  void corrupt_result() override { bad_.plant(region_.path, region_.offset); }

  std::vector<double> iteration_counters() override {
    std::vector<double> v(kCounterCount, kNaN);
    v[kBytes] = last_.bytes;
    v[kOps] = static_cast<double>(last_.latencies.size());
    v[kResident] = resident_;
    std::sort(last_.latencies.begin(), last_.latencies.end());
    v[kP50] = percentile(last_.latencies, 0.5);
    v[kP99] = percentile(last_.latencies, 0.99);
    v[kP999] = percentile(last_.latencies, 0.999);
    // This iteration's reads join the rank's interval series after the earlier iterations.
    for (const auto& [t, b] : last_.finished) {
      const auto bin = static_cast<std::size_t>((elapsed_ + t) / spec_.interval_s);
      if (interval_bytes_.size() <= bin) interval_bytes_.resize(bin + 1, 0);
      interval_bytes_[bin] += b;
    }
    elapsed_ += last_.duration;
    return v;
  }

  std::vector<std::vector<double>> series() override {
    const std::size_t full = static_cast<std::size_t>(elapsed_ / spec_.interval_s);
    const std::size_t rows = std::max(interval_bytes_.size(), full + (elapsed_ > 0 ? 1 : 0));
    std::vector<double> bw(rows, 0);
    for (std::size_t i = 0; i < rows; ++i) {
      const double span =
          std::min(spec_.interval_s, elapsed_ - static_cast<double>(i) * spec_.interval_s);
      const double b = i < interval_bytes_.size() ? interval_bytes_[i] : 0;
      bw[i] = span > 0 ? b / span / 1e9 : 0;
    }
    return {bw};
  }

 private:
  void attach() {
    if (attached_) return;
    for (auto& e : engines_) e->attach(files_, spec_.random);
    attached_ = true;
  }
  void detach() {
    for (auto& e : engines_) e->detach();
    attached_ = false;
  }

  struct Iteration {
    double duration = 0, bytes = 0;
    std::vector<double> latencies;
    std::vector<std::pair<double, double>> finished;
  };

  ReadSpec spec_;
  std::size_t block_bytes_;
  Region region_;
  int rank_;
  int read_fd_ = -1, cache_fd_ = -1;
  std::vector<FileRef> files_;
  std::vector<BlockRef> blocks_;
  std::vector<std::unique_ptr<Engine>> engines_;
  bool attached_ = false, checking_ = false, warned_ = false;
  std::uint64_t iteration_ = 0;
  double resident_ = kNaN;
  Iteration last_;
  double elapsed_ = 0;  // seconds of timed reads so far
  std::vector<double> interval_bytes_;
  BadPages bad_;
};

}  // namespace

std::vector<RankLayout> make_rank_layouts(const std::vector<int>& ranks_per_node, bool node_ladder,
                                          const RankContext& ctx) {
  std::vector<int> per_node(static_cast<std::size_t>(ctx.node_count), 0);
  for (int n : ctx.node_of_rank) ++per_node[static_cast<std::size_t>(n)];
  int widest = 0;
  for (int k : per_node) widest = std::max(widest, k);
  std::vector<RankLayout> out;
  auto add = [&](std::vector<int> groups) {
    for (const auto& l : out)
      if (l.group_of_rank == groups) return;
    RankLayout l;
    std::vector<int> active(static_cast<std::size_t>(ctx.node_count), 0);
    for (std::size_t r = 0; r < groups.size(); ++r)
      if (groups[r] >= 0) ++active[static_cast<std::size_t>(ctx.node_of_rank[r])];
    for (int a : active) {
      l.ranks += a;
      l.nodes += a > 0;
      l.ranks_per_node = std::max(l.ranks_per_node, a);
    }
    l.label = fmt::format("{} rank{} ({}/node x {} node{})", l.ranks, l.ranks == 1 ? "" : "s",
                          l.ranks_per_node, l.nodes, l.nodes == 1 ? "" : "s");
    l.group_of_rank = std::move(groups);
    out.push_back(std::move(l));
  };
  const std::size_t n = ctx.node_of_rank.size();
  std::vector<int> steps = ranks_per_node;
  if (steps.empty()) steps.push_back(widest);
  for (int k : steps) {
    std::vector<int> g(n, -1);
    for (std::size_t r = 0; r < n; ++r) g[r] = ctx.local_rank_of_rank[r] < k ? 0 : -1;
    add(g);
  }
  if (node_ladder) {
    std::vector<int> ladder;
    for (int k = 1; k < ctx.node_count; k *= 2) ladder.push_back(k);
    ladder.push_back(ctx.node_count);
    for (int nodes : ladder) {
      std::vector<int> g(n, -1);
      for (std::size_t r = 0; r < n; ++r) g[r] = ctx.node_of_rank[r] < nodes ? 0 : -1;
      add(g);
    }
  }
  return out;
}

StorageCase::StorageCase(ReadSpec spec, RankLayout layout, std::vector<std::uint64_t> block_sizes,
                         std::shared_ptr<Dataset> dataset, const RankContext& ctx,
                         ReadIdentity identity)
    : spec_(std::move(spec)),
      layout_(std::move(layout)),
      block_sizes_(std::move(block_sizes)),
      dataset_(std::move(dataset)),
      ctx_(ctx),
      identity_(std::move(identity)) {
  source_rank_ =
      spec_.cache == CacheState::kOtherNode
          ? other_node_source(ctx.rank, ctx.node_of_rank, ctx.local_rank_of_rank, ctx.node_count)
          : ctx.rank;
}

// The case name without its layout label: what stays the same along a scaling series.
std::string StorageCase::subject() const {
  std::string tuning = fmt::format("qd{} x{}", spec_.queue_depth, spec_.threads);
  if (spec_.stonewall_s > 0) tuning += fmt::format(" stonewall {:g}s", spec_.stonewall_s);
  return fmt::format("{}{} {} {} {} {}", identity_.prefix, spec_.engine, name_of(spec_.cache),
                     spec_.random ? "random" : "sequential",
                     spec_.shared ? "shared" : "file-per-rank", tuning);
}

std::string StorageCase::name() const {
  return fmt::format("{} {}", subject(), layout_.label);
}

schema::OwnMeaning StorageCase::own_meaning() const {
  return {.subject = subject()};
}

std::vector<Param> StorageCase::params() const {
  std::vector<Param> out{
      attr(schema::storage::kEngine, spec_.engine),
      attr(schema::storage::kDirect, std::int64_t{spec_.cache == CacheState::kDirect}),
      attr(schema::storage::kCacheState, std::string(name_of(spec_.cache))),
      attr(schema::storage::kAccess, std::string(spec_.random ? "random" : "sequential")),
      attr(schema::storage::kFileLayout, std::string(spec_.shared ? "shared" : "file-per-rank")),
      attr(schema::storage::kQueueDepth, std::int64_t{spec_.queue_depth}),
      attr(schema::storage::kThreads, std::int64_t{spec_.threads}),
      attr(schema::storage::kBytesPerRank,
           static_cast<std::int64_t>(dataset_->spec().bytes_per_rank)),
      attr(schema::storage::kStonewallS, spec_.stonewall_s),
      attr(schema::storage::kIntervalS, spec_.interval_s),
      attr(schema::storage::kRanksPerNode, std::int64_t{layout_.ranks_per_node}),
      attr(schema::storage::kNodes, std::int64_t{layout_.nodes}),
      attr(schema::storage::kRanks, std::int64_t{layout_.ranks}),
      attr(schema::storage::kLayout, layout_.label),
      attr(schema::storage::kDatasetDir, dataset_->set_dir()),
      attr(schema::storage::kFsType, dataset_->fs_type()),
      attr(schema::storage::kVerify, std::int64_t{spec_.verify}),
  };
  out.insert(out.end(), identity_.params.begin(), identity_.params.end());
  return out;
}

std::vector<Param> StorageCase::point_columns(std::size_t point, int) const {
  return {column_param(schema::storage::kBlockBytesColumn,
                       static_cast<std::int64_t>(block_sizes_[point]), true)};
}

std::vector<CounterSpec> StorageCase::counters() const {
  std::vector<CounterSpec> out;
  for (const auto& column : schema::kStorageCounters) out.push_back({&column, 0});
  return out;
}

std::vector<CounterSpec> StorageCase::series() const {
  return {{&schema::storage::kIntervalBwSeries, spec_.interval_s}};
}

std::vector<Metric> StorageCase::sample_metrics(std::size_t, int, const SampleView& v) const {
  const auto& c = *v.counters;
  auto at = [&](const std::vector<double>& m, std::size_t i, int r) {
    return m[i * v.ranks + static_cast<std::size_t>(r)];
  };
  std::vector<double> agg, iops, lat50, lat99, lat999, spread;
  // NaN unless some rank's residency was measured: a 0 would claim a cold read never proven.
  double resident_max = kNaN, total = 0;
  // Each iteration from the first rank's start to the last rank's finish, on one clock: when
  // ranks leave the starting barrier apart, longer than the slowest rank's own time.
  const std::vector<IterationSpan> spans = iteration_spans(v);
  for (std::size_t i = 0; i < v.iterations; ++i) {
    double bytes = 0, ops = 0;
    const double span = spans[i].span_s;
    spread.push_back(spans[i].release_spread_s);
    for (int r : *v.members) {
      bytes += at(c[kBytes], i, r);
      ops += at(c[kOps], i, r);
      lat50.push_back(at(c[kP50], i, r));
      lat99.push_back(at(c[kP99], i, r));
      lat999.push_back(at(c[kP999], i, r));
      const double resident = at(c[kResident], i, r);
      if (!std::isnan(resident))
        resident_max = std::isnan(resident_max) ? resident : std::max(resident_max, resident);
    }
    total += bytes;
    agg.push_back(span > 0 ? bytes / span / 1e9 : kNaN);
    iops.push_back(span > 0 ? ops / span : kNaN);
  }
  const std::vector<double> per_rank = rank_rates(v, c[kBytes], 1e9);
  const double rank_min =
      per_rank.empty() ? kNaN : *std::min_element(per_rank.begin(), per_rank.end());
  namespace s = schema;
  return {
      metric(schema::storage::kAggBwColumn, median_of(agg)),
      metric(schema::storage::kIopsColumn, median_of(iops)),
      metric(schema::storage::kRankBwMinColumn, rank_min),
      metric(schema::storage::kRankBwMedianColumn, median_of(per_rank)),
      metric(schema::storage::kLatP50Column, median_of(lat50)),
      metric(schema::storage::kLatP99Column, median_of(lat99)),
      metric(schema::storage::kLatP999Column, median_of(lat999)),
      metric(schema::storage::kResidentBeforeMaxColumn, resident_max),
      metric(schema::storage::kBytesTotalColumn, total),  // a figure, not a metric: no direction
      metric(schema::kReleaseSpreadColumn, median_of(spread)),  // how the figure was taken
  };
}

std::unique_ptr<Operation> StorageCase::make_operation(std::size_t point) {
  if (layout_.group_of_rank[static_cast<std::size_t>(ctx_.rank)] < 0) return nullptr;
  const std::uint64_t b = dataset_->spec().bytes_per_rank;
  Region region;
  if (spec_.shared) {
    region = {dataset_->shared_file(), kSharedFileId, b * static_cast<std::uint64_t>(source_rank_),
              b};
  } else {
    region = {dataset_->rank_file(source_rank_), static_cast<std::uint32_t>(source_rank_), 0, b};
  }
  return std::make_unique<StorageOperation>(spec_, block_sizes_[point], std::move(region),
                                            ctx_.rank);
}

}  // namespace preflight::storage
