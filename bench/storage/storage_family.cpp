#include "storage/storage_family.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "harness/options.hpp"
#include "harness/sizes.hpp"
#include "harness/usage_error.hpp"
#include "storage/cache_state.hpp"
#include "storage/dataset.hpp"
#include "storage/engine.hpp"
#include "storage/storage_case.hpp"

namespace preflight::storage {
namespace {

constexpr std::uint64_t kPage = 4096;

// The family's configuration after reading and checking. The defaults are the option table's.
struct StorageConfig {
  std::string dir;
  std::string dataset_id;  // empty: derived from the ranks and the size
  std::vector<std::string> engines;
  std::vector<CacheState> caches;
  std::vector<bool> random;
  std::vector<bool> shared;
  std::vector<std::uint64_t> block_sizes;
  std::uint64_t size = 0;
  std::vector<int> queue_depths;
  std::vector<int> threads;
  double stonewall_s = 0;
  double interval_s = 0;
  std::vector<int> scale_ranks_per_node;  // empty: every rank of each node
  bool node_ladder = false;
  bool verify = false;
  bool keep = false;
};

std::string default_dir() {
  const char* t = std::getenv("TMPDIR");
  return t != nullptr && *t != 0 ? std::string(t) : std::string("/var/tmp");
}

constexpr std::array kAccess = {
    std::pair{false, std::string_view("sequential")},
    std::pair{true, std::string_view("random")},
};
constexpr std::array kFileLayouts = {
    std::pair{false, std::string_view("file-per-rank")},
    std::pair{true, std::string_view("shared")},
};

const OptionTable<StorageConfig>& options_table() {
  using C = StorageConfig;
  static const OptionTable<C> table({
      opt::text({.key = "dir",
                 .flags = "--dir",
                 .help = "Directory on the storage to measure; the data set goes in "
                         "<dir>/preflight-<id>/",
                 .default_value = default_dir(),
                 .shown_default = "$TMPDIR, else /var/tmp"},
                &C::dir),
      opt::text({.key = "dataset",
                 .flags = "--dataset",
                 .help = "Data set id: <dir>/preflight-<id>/",
                 .shown_default = "<ranks>r-<size>"},
                &C::dataset_id),
      opt::names(
          {.key = "engines", .flags = "--engine", .help = "I/O engines", .default_value = "psync"},
          &C::engines, engine_names()),
      opt::names(
          {.key = "cache", .flags = "--cache", .help = "Cache states", .default_value = "evicted"},
          &C::caches, cache_state_names()),
      opt::names(
          {.key = "access", .flags = "--access", .help = "Access", .default_value = "sequential"},
          &C::random, NameTable<bool>{kAccess}, "both"),
      opt::names({.key = "file_layout",
                  .flags = "--file-layout",
                  .help = "File layout",
                  .default_value = "file-per-rank"},
                 &C::shared, NameTable<bool>{kFileLayouts}, "both"),
      opt::sizes({.key = "block_sizes",
                  .flags = "--block-sizes",
                  .help = "Bytes per read, multiples of 4K: 1M, 4K,64K,1M, 4K:1M:x4",
                  .default_value = "1M"},
                 &C::block_sizes),
      opt::size({.key = "size",
                 .flags = "--size",
                 .help = "Bytes each rank reads (its file or its segment of the shared file)",
                 .default_value = "64M"},
                &C::size),
      opt::integers({.key = "queue_depths",
                     .flags = "--queue-depth",
                     .help = "Reads in flight per thread, io_uring only",
                     .default_value = "1"},
                    &C::queue_depths, 1, 4096),
      opt::integers({.key = "threads",
                     .flags = "--threads",
                     .help = "Reader threads per rank",
                     .default_value = "1"},
                    &C::threads, 1, 256),
      opt::duration({.key = "stonewall",
                     .flags = "--stonewall",
                     .help = "Time-bound each read, e.g. 5s; 0 reads all of size",
                     .default_value = "0",
                     .record = "stonewall_s"},
                    &C::stonewall_s, 0, "0 (off) or a positive duration"),
      opt::duration({.key = "interval",
                     .flags = "--interval",
                     .help = "Interval of the per-rank bandwidth series",
                     .default_value = "100ms",
                     .record = "interval_s"},
                    &C::interval_s, 0.001, "a duration of at least 1ms, e.g. 100ms"),
      opt::integers({.key = "scale_ranks_per_node",
                     .flags = "--scale-ranks-per-node",
                     .help = "Also run with only the first N ranks of each node, e.g. 1,2,4",
                     .shown_default = "all"},
                    &C::scale_ranks_per_node, 1, 1 << 20),
      opt::boolean({.key = "node_ladder",
                    .flags = "--node-ladder",
                    .help = "Also run on 1, 2, 4, ... nodes",
                    .default_value = "false"},
                   &C::node_ladder),
      opt::boolean({.key = "verify",
                    .flags = "--verify",
                    .help = "Check every block's pattern before timing",
                    .default_value = "false"},
                   &C::verify),
      opt::boolean({.key = "keep",
                    .flags = "--keep",
                    .help = "Keep the data set for later runs",
                    .default_value = "false"},
                   &C::keep),
  });
  return table;
}

bool valid_id(const std::string& id) {
  if (id.empty() || id == "." || id == ".." || id.size() > 100) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

// The scaling steps: ranks per node on every node, then the node ladder at full nodes.
std::vector<RankLayout> make_rank_layouts(const StorageConfig& c, const RankContext& ctx) {
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
  std::vector<int> steps = c.scale_ranks_per_node;
  if (steps.empty()) steps.push_back(widest);
  for (int k : steps) {
    std::vector<int> g(n, -1);
    for (std::size_t r = 0; r < n; ++r) g[r] = ctx.local_rank_of_rank[r] < k ? 0 : -1;
    add(g);
  }
  if (c.node_ladder) {
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

class StorageFamily final : public Family {
 public:
  std::string name() const override { return "storage"; }
  std::string summary() const override {
    return "read throughput from every rank (psync, io_uring, mmap) with proof of cache state";
  }

  std::vector<OptionSpec> options() const override { return options_table().specs(); }

  // The table reads and checks each key; what remains are the rules between keys.
  void configure(const ConfigNode& entry) override {
    StorageConfig c;
    options_table().read(entry, c);
    if (c.dir.empty()) entry.fail("dir", "a directory", "an empty string");
    c.dir = std::filesystem::absolute(c.dir).lexically_normal().string();
    if (c.dir.size() > 1 && c.dir.back() == '/') c.dir.pop_back();
    if (entry.has("dataset") && !valid_id(c.dataset_id))
      entry.fail("dataset", "a name of letters, digits, '-', '_' and '.' (it names a directory)",
                 "'" + c.dataset_id + "'");
    for (std::uint64_t b : c.block_sizes)
      if (b < kPage || b % kPage != 0 || b > (1ull << 30))
        entry.fail("block_sizes",
                   "multiples of 4K (4096 bytes) up to 1G (O_DIRECT and verification work in 4 KiB "
                   "pages)",
                   format_bytes(b));
    for (std::uint64_t b : c.block_sizes)
      if (c.size % b != 0)
        entry.fail("size", fmt::format("a multiple of every block size (here {})", format_bytes(b)),
                   format_bytes(c.size));

    const bool direct =
        std::find(c.caches.begin(), c.caches.end(), CacheState::kDirect) != c.caches.end();
    for (const auto& e : c.engines)
      if (direct && !engine_supports_direct(e))
        entry.fail("cache",
                   fmt::format("cache states engine {} can read with: direct (O_DIRECT) does not "
                               "combine with {}, whose reads always go through the page cache; "
                               "use cache evicted for it, or list it in another benchmark entry",
                               e, e),
                   "direct with engine " + e);
    const bool deep =
        std::any_of(c.queue_depths.begin(), c.queue_depths.end(), [](int q) { return q > 1; });
    const bool uring = std::any_of(c.engines.begin(), c.engines.end(), [](const std::string& e) {
      return engine_supports_queue_depth(e);
    });
    if (deep && !uring)
      entry.fail("queue_depths", "1 unless an engine keeps several reads in flight (io_uring)",
                 fmt::format("{} with engines {}", fmt::join(c.queue_depths, ","),
                             fmt::join(c.engines, ",")));
    config_ = c;
  }

  nlohmann::json config() const override { return options_table().json(config_); }

  FamilyNeeds needs() const override {
    FamilyNeeds n;
    n.directories.push_back(config_.dir);
    return n;
  }

  std::vector<std::unique_ptr<Case>> make_cases(const RankContext& ctx) override {
    const auto& c = config_;
    const bool other_node =
        std::find(c.caches.begin(), c.caches.end(), CacheState::kOtherNode) != c.caches.end();
    if (other_node && ctx.node_count < 2)
      throw UsageError(
          "storage: cache other-node reads what a rank on another node wrote (like IOR -C), so it "
          "needs at least 2 nodes; this job has 1. Run on 2+ nodes (or, to test, make virtual "
          "nodes with campaign.ranks_per_node / --ranks-per-node: they share one page cache, "
          "which resident_before then shows)");
    if (other_node && ctx.node_count >= 2)
      if (const auto uneven = uneven_nodes(ctx.node_of_rank, ctx.node_count); !uneven.empty())
        throw UsageError(fmt::format(
            "storage: cache: other-node needs the same number of ranks on every node, so that "
            "each rank reads a different rank's file from the next node; here {} (two ranks "
            "would read one file, the second from the page cache the first filled). Run the "
            "same number of ranks on every node (with --ranks-per-node N, a multiple of N "
            "ranks)",
            uneven));
    DatasetSpec spec;
    spec.dir = c.dir;
    spec.id = c.dataset_id.empty() ? fmt::format("{}r-{}", ctx.size, c.size) : c.dataset_id;
    spec.bytes_per_rank = c.size;
    spec.per_rank_files = std::find(c.shared.begin(), c.shared.end(), false) != c.shared.end();
    spec.shared_file = std::find(c.shared.begin(), c.shared.end(), true) != c.shared.end();
    spec.keep = c.keep;
    // One data set for every variant and repetition of this benchmark in the run.
    if (!dataset_ || dataset_->spec().dir != spec.dir || dataset_->spec().id != spec.id)
      dataset_ = std::make_shared<Dataset>(spec, ctx);
    const bool evict = std::any_of(c.caches.begin(), c.caches.end(), evicts);
    const bool direct =
        std::find(c.caches.begin(), c.caches.end(), CacheState::kDirect) != c.caches.end();
    dataset_->check(evict, direct);
    if (other_node && ctx.is_root()) {
      const int source =
          other_node_source(0, ctx.node_of_rank, ctx.local_rank_of_rank, ctx.node_count);
      if (ctx.host_of_rank[static_cast<std::size_t>(source)] == ctx.host)
        fmt::print(stderr,
                   "preflight: storage: other-node on virtual nodes of one host: the ranks share "
                   "one page cache, so its reads are only as cold as the eviction before each "
                   "(see resident_before)\n");
    }
    std::vector<std::unique_ptr<Case>> cases;
    const auto layouts = make_rank_layouts(c, ctx);
    for (const auto& engine : c.engines)
      for (CacheState cache : c.caches)
        for (bool random : c.random)
          for (bool shared : c.shared)
            for (int qd :
                 engine_supports_queue_depth(engine) ? c.queue_depths : std::vector<int>{1})
              for (int threads : c.threads)
                for (const auto& layout : layouts) {
                  ReadSpec r;
                  r.engine = engine;
                  r.cache = cache;
                  r.random = random;
                  r.shared = shared;
                  r.queue_depth = qd;
                  r.threads = threads;
                  r.stonewall_s = c.stonewall_s;
                  r.interval_s = c.interval_s;
                  r.verify = c.verify;
                  cases.push_back(
                      std::make_unique<StorageCase>(r, layout, c.block_sizes, dataset_, ctx));
                }
    return cases;
  }

 private:
  StorageConfig config_;
  std::shared_ptr<Dataset> dataset_;
};

}  // namespace

std::unique_ptr<Family> make_storage_family() {
  return std::make_unique<StorageFamily>();
}

}  // namespace preflight::storage
