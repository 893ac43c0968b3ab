#include "checkpoint/save_case.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <utility>

#include "harness/run/rank_span.hpp"
#include "preflight/common/stats.hpp"
#include "preflight/schema/checkpoint.hpp"
#include "storage/cache_state.hpp"
#include "storage/engine.hpp"
#include "storage/pattern.hpp"

namespace preflight::checkpoint {
namespace {

using storage::Clock;
constexpr std::size_t kVerifyChunk = 1 << 20;
// Where each counter sits among an operation's counters: its place in the declared table.
constexpr std::size_t counter(const schema::Column& c) {
  return schema::index_in(schema::kCheckpointCounters, c);
}
constexpr std::size_t kBytes = counter(schema::checkpoint::kBytesCounter),
                      kHandoff = counter(schema::checkpoint::kHandoffSCounter),
                      kDurable = counter(schema::checkpoint::kDurableSCounter),
                      kCounterCount = schema::kCheckpointCounters.size();

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// This rank's part of the checkpoint: its file, or its segment of the shared file.
struct Shard {
  std::string path;
  std::uint32_t file_id = 0;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
};

// Gives each block the pattern of its place in the file before the engine writes it. The
// engine's buffers last the run and nothing else writes to them, so a buffer that held a block
// of the same offset modulo the pattern's period needs only its sectors' first words changed:
// what a save times is the writing, not making up the data (fio fills its buffers once).
class PatternSource final : public storage::Completions {
 public:
  PatternSource(std::size_t block_bytes, std::uint32_t file_id)
      : block_bytes_(block_bytes), buffers_(file_id) {}
  void fill(const storage::BlockRef& block, std::byte* data) override {
    buffers_.fill(data, block_bytes_, block.offset);
  }
  void done(const storage::BlockRef&, const std::byte*, Clock::time_point,
            Clock::time_point) override {
    bytes += static_cast<double>(block_bytes_);
  }
  double bytes = 0;

 private:
  std::size_t block_bytes_;
  storage::PatternBuffers buffers_;
};

int open_or_throw(const std::string& path, int flags) {
  const int fd = open(path.c_str(), flags | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    throw std::runtime_error(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  return fd;
}

class SaveOperation final : public Operation {
 public:
  SaveOperation(const SaveSpec& spec, std::size_t block_bytes, Shard shard, std::string dir,
                int rank)
      : spec_(spec), block_bytes_(block_bytes), shard_(std::move(shard)), rank_(rank) {
    // Never through a symbolic link: the data set holds only regular files (Dataset::check).
    write_fd_ = open_or_throw(shard_.path, O_WRONLY);
    cache_fd_ = open_or_throw(shard_.path, O_RDONLY);
    dir_fd_ = open_or_throw(dir, O_RDONLY | O_DIRECTORY);
    struct stat st {};
    fstat(write_fd_, &st);
    if (static_cast<std::uint64_t>(st.st_size) < shard_.offset + shard_.bytes)
      throw std::runtime_error(fmt::format("{} has {} bytes, expected at least {}", shard_.path,
                                           st.st_size, shard_.offset + shard_.bytes));
    files_.push_back({write_fd_, static_cast<std::uint64_t>(st.st_size)});
    for (std::uint64_t o = 0; o + block_bytes_ <= shard_.bytes; o += block_bytes_)
      blocks_.push_back({0, shard_.offset + o});
    engine_ = storage::make_engine(spec_.engine);
  }

  ~SaveOperation() override {
    for (int fd : {write_fd_, cache_fd_, dir_fd_})
      if (fd >= 0) close(fd);
  }

  void fill() override { checking_ = true; }  // the check pass writes, then reads back

  // Each save starts with none of the shard cached or dirty: what the last one left is
  // written back and dropped, untimed.
  void before_iteration() override {
    const std::string error = storage::evict_range(cache_fd_, shard_.offset, shard_.bytes);
    if (!error.empty())
      throw std::runtime_error(fmt::format("evicting {}: {}", shard_.path, error));
  }

  void run() override {
    if (checking_ && !spec_.verify) return;  // nothing to read back: no untimed save either
    storage::IoJob job;
    job.files = files_;
    job.blocks = blocks_;
    job.block_bytes = block_bytes_;
    job.queue_depth = spec_.queue_depth;
    job.write = true;
    PatternSource source(block_bytes_, shard_.file_id);
    const auto start = Clock::now();
    engine_->run(job, source);
    const auto handed_off = Clock::now();
    if (spec_.durable) {
      if (fdatasync(write_fd_) != 0)
        throw std::runtime_error(
            fmt::format("fdatasync {}: {}", shard_.path, std::strerror(errno)));
      // A new or renamed file is durable only once its directory entry is.
      if (fsync(dir_fd_) != 0)
        throw std::runtime_error(
            fmt::format("fsync of the directory of {}: {}", shard_.path, std::strerror(errno)));
    }
    const auto end = Clock::now();
    bytes_ = source.bytes;
    handoff_s_ = seconds(handed_off - start);
    durable_s_ = spec_.durable ? seconds(end - start) : kNaN;
  }

  // After the check pass: every page of the shard as written, read back through the page cache.
  std::uint64_t count_wrong() override {
    const bool read_back = checking_ && spec_.verify;
    checking_ = false;
    if (!read_back) return bad_.report(rank_, "save read back");
    auto buffer = storage::aligned_buffer(kVerifyChunk);
    for (std::uint64_t done = 0; done < shard_.bytes;) {
      const std::size_t n =
          static_cast<std::size_t>(std::min<std::uint64_t>(kVerifyChunk, shard_.bytes - done));
      const std::uint64_t at = shard_.offset + done;
      const ssize_t got = pread(cache_fd_, buffer.get(), n, static_cast<off_t>(at));
      if (got != static_cast<ssize_t>(n))
        throw std::runtime_error(fmt::format("reading back {} at offset {}: {}", shard_.path, at,
                                             got < 0 ? std::strerror(errno) : "short read"));
      for (std::size_t p = 0; p < n; p += storage::kPatternPage) {
        const long wrong = storage::first_mismatch(buffer.get() + p, storage::kPatternPage,
                                                   shard_.file_id, at + p);
        if (wrong < 0) continue;
        bad_.add(storage::bad_page_message(shard_.path, shard_.file_id, at + p, buffer.get() + p,
                                           wrong));
      }
      done += n;
    }
    return bad_.report(rank_, "save read back");
  }

  // Test-only: as if one page of the shard had been written wrong.
  void corrupt_result() override { bad_.plant(shard_.path, shard_.offset); }

  std::vector<double> iteration_counters() override {
    std::vector<double> v(kCounterCount, kNaN);
    v[kBytes] = bytes_;
    v[kHandoff] = handoff_s_;
    v[kDurable] = durable_s_;
    return v;
  }

 private:
  SaveSpec spec_;
  std::size_t block_bytes_;
  Shard shard_;
  int rank_;
  int write_fd_ = -1, cache_fd_ = -1, dir_fd_ = -1;
  std::vector<storage::FileRef> files_;
  std::vector<storage::BlockRef> blocks_;
  std::unique_ptr<storage::Engine> engine_;
  bool checking_ = false;
  double bytes_ = 0, handoff_s_ = kNaN, durable_s_ = kNaN;
  storage::BadPages bad_;
};

}  // namespace

SaveCase::SaveCase(SaveSpec spec, storage::RankLayout layout,
                   std::vector<std::uint64_t> block_sizes,
                   std::shared_ptr<storage::Dataset> dataset, const RankContext& ctx,
                   std::vector<Param> params)
    : spec_(std::move(spec)),
      layout_(std::move(layout)),
      block_sizes_(std::move(block_sizes)),
      dataset_(std::move(dataset)),
      ctx_(ctx),
      params_(std::move(params)) {}

std::string SaveCase::subject() const {
  return fmt::format("save {} {} {} qd{}", spec_.engine, spec_.durable ? "durable" : "handed-off",
                     spec_.shared ? "shared" : "file-per-rank", spec_.queue_depth);
}

std::string SaveCase::name() const {
  return fmt::format("{} {}", subject(), layout_.label);
}

schema::OwnMeaning SaveCase::own_meaning() const {
  return {.subject = subject()};
}

std::vector<Param> SaveCase::params() const {
  std::vector<Param> out{
      attr(schema::checkpoint::kEngine, spec_.engine),
      attr(schema::checkpoint::kFileLayout, std::string(spec_.shared ? "shared" : "file-per-rank")),
      attr(schema::checkpoint::kQueueDepth, std::int64_t{spec_.queue_depth}),
      attr(schema::checkpoint::kBytesPerRank,
           static_cast<std::int64_t>(dataset_->spec().bytes_per_rank)),
      attr(schema::checkpoint::kRanksPerNode, std::int64_t{layout_.ranks_per_node}),
      attr(schema::checkpoint::kNodes, std::int64_t{layout_.nodes}),
      attr(schema::checkpoint::kRanks, std::int64_t{layout_.ranks}),
      attr(schema::checkpoint::kLayout, layout_.label),
      attr(schema::checkpoint::kDatasetDir, dataset_->set_dir()),
      attr(schema::checkpoint::kFsType, dataset_->fs_type()),
      attr(schema::checkpoint::kPhase, std::string(schema::kCheckpointSave)),
      attr(schema::checkpoint::kDurable, std::int64_t{spec_.durable}),
  };
  out.insert(out.end(), params_.begin(), params_.end());
  return out;
}

std::vector<Param> SaveCase::point_columns(std::size_t point, int) const {
  return {column_param(schema::checkpoint::kBlockBytesColumn,
                       static_cast<std::int64_t>(block_sizes_[point]), true)};
}

std::vector<CounterSpec> SaveCase::counters() const {
  std::vector<CounterSpec> out;
  for (const auto& column : schema::kCheckpointCounters) out.push_back({&column, 0});
  return out;
}

// Save bandwidth as storage's read bandwidth: bytes of all ranks over the span from the first
// rank's start to the last rank's finish on one clock; the hand-off span ends at the last
// rank's hand-off instead.
std::vector<Metric> SaveCase::sample_metrics(std::size_t, int, const SampleView& v) const {
  const auto& c = *v.counters;
  auto at = [&](const std::vector<double>& m, std::size_t i, int r) {
    return m[i * v.ranks + static_cast<std::size_t>(r)];
  };
  const std::vector<IterationSpan> spans = iteration_spans(v);
  std::vector<double> save_bw, handoff_bw, blocking, handoff, spread;
  double total = 0;
  for (std::size_t i = 0; i < v.iterations; ++i) {
    double bytes = 0;
    for (int r : *v.members) bytes += at(c[kBytes], i, r);
    const IterationSpan handed =
        span_of(v.starts->data() + i * v.ranks, c[kHandoff].data() + i * v.ranks, *v.members);
    total += bytes;
    blocking.push_back(spans[i].span_s);
    handoff.push_back(handed.span_s);
    spread.push_back(spans[i].release_spread_s);
    save_bw.push_back(spans[i].span_s > 0 ? bytes / spans[i].span_s / 1e9 : kNaN);
    handoff_bw.push_back(handed.span_s > 0 ? bytes / handed.span_s / 1e9 : kNaN);
  }
  const std::vector<double> per_rank = rank_rates(v, c[kBytes], 1e9);
  const double rank_min =
      per_rank.empty() ? kNaN : *std::min_element(per_rank.begin(), per_rank.end());
  namespace s = schema;
  return {
      metric(schema::checkpoint::kSaveBwColumn, median(save_bw)),
      metric(schema::checkpoint::kHandoffBwColumn, median(handoff_bw)),
      metric(schema::checkpoint::kBlockingSColumn, median(blocking)),
      metric(schema::checkpoint::kHandoffSColumn, median(handoff)),
      metric(schema::checkpoint::kRankBwMinColumn, rank_min),
      metric(schema::checkpoint::kRankBwMedianColumn, median(per_rank)),
      metric(schema::checkpoint::kBytesTotalColumn, total),
      metric(schema::kReleaseSpreadColumn, median(spread)),
  };
}

std::unique_ptr<Operation> SaveCase::make_operation(std::size_t point) {
  if (layout_.group_of_rank[static_cast<std::size_t>(ctx_.rank)] < 0) return nullptr;
  const std::uint64_t b = dataset_->spec().bytes_per_rank;
  Shard shard;
  if (spec_.shared)
    shard = {dataset_->shared_file(), storage::kSharedFileId,
             b * static_cast<std::uint64_t>(ctx_.rank), b};
  else
    shard = {dataset_->rank_file(ctx_.rank), static_cast<std::uint32_t>(ctx_.rank), 0, b};
  return std::make_unique<SaveOperation>(spec_, block_sizes_[point], std::move(shard),
                                         dataset_->set_dir(), ctx_.rank);
}

}  // namespace preflight::checkpoint
