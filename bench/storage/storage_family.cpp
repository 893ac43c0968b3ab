#include "storage/storage_family.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <set>

#include "harness/config/options.hpp"
#include "preflight/common/sizes.hpp"
#include "preflight/common/usage_error.hpp"
#include "preflight/schema/family_names.hpp"
#include "storage/cache_state.hpp"
#include "storage/dataset.hpp"
#include "storage/dataset_options.hpp"
#include "storage/engine.hpp"
#include "storage/storage_case.hpp"

namespace preflight::storage {
namespace {

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

constexpr std::array kAccess = {
    std::pair{false, std::string_view("sequential")},
    std::pair{true, std::string_view("random")},
};
const OptionTable<StorageConfig>& options_table() {
  using C = StorageConfig;
  static const OptionTable<C> table({
      dataset_opt::dir(&C::dir,
                       "Directory on the storage to measure; the data set goes in "
                       "<dir>/preflight-<id>/"),
      dataset_opt::dataset(&C::dataset_id, "Data set id: <dir>/preflight-<id>/", "<ranks>r-<size>"),
      opt::names(
          {.key = "engines", .flags = "--engine", .help = "I/O engines", .default_value = "psync"},
          &C::engines, engine_names()),
      opt::names(
          {.key = "cache", .flags = "--cache", .help = "Cache states", .default_value = "evicted"},
          &C::caches, cache_state_names()),
      opt::names(
          {.key = "access", .flags = "--access", .help = "Access", .default_value = "sequential"},
          &C::random, NameTable<bool>{kAccess}, "both"),
      dataset_opt::file_layout(&C::shared),
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
      dataset_opt::scale_ranks_per_node(&C::scale_ranks_per_node),
      dataset_opt::node_ladder(&C::node_ladder),
      opt::boolean({.key = "verify",
                    .flags = "--verify",
                    .help = "Check every block's pattern before timing",
                    .default_value = "false"},
                   &C::verify),
      dataset_opt::keep(&C::keep, "Keep the data set for later runs"),
  });
  return table;
}

class StorageFamily final : public Family {
 public:
  std::string name() const override { return std::string(schema::kStorageFamily); }
  std::string summary() const override {
    return "read throughput from every rank (psync, io_uring, mmap) with proof of cache state";
  }

  std::vector<OptionSpec> options() const override { return options_table().specs(); }

  // The table reads and checks each key; what remains are the rules between keys.
  void configure(const ConfigNode& entry) override {
    StorageConfig c;
    options_table().read(entry, c);
    check_dir_and_id(entry, c.dir, c.dataset_id);
    check_block_sizes(entry, c.block_sizes, c.size);
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
    check_queue_depths(entry, c.queue_depths, c.engines);
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
    if (other_node) require_other_node_layout(ctx, "storage: cache");
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
    if (other_node) warn_other_node_on_one_host(ctx, schema::kStorageFamily);
    std::vector<std::unique_ptr<Case>> cases;
    const auto layouts = make_rank_layouts(c.scale_ranks_per_node, c.node_ladder, ctx);
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
