#include "storage/storage_family.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "harness/sizes.hpp"
#include "harness/usage_error.hpp"
#include "storage/cache_state.hpp"
#include "storage/dataset.hpp"
#include "storage/engine.hpp"
#include "storage/storage_case.hpp"

namespace preflight::storage {
namespace {

constexpr std::uint64_t kPage = 4096;

struct StorageConfig {
  std::string dir;
  std::string dataset_id;  // empty: derived from the ranks and the size
  std::vector<std::string> engines = {"psync"};
  std::vector<CacheState> caches = {CacheState::kEvicted};
  std::vector<bool> random = {false};
  std::vector<bool> shared = {false};
  std::vector<std::uint64_t> block_sizes = {1 << 20};
  std::uint64_t size = 64 << 20;
  std::vector<int> queue_depths = {1};
  std::vector<int> threads = {1};
  double stonewall_s = 0;
  double interval_s = 0.1;
  std::vector<int> scale_ranks_per_node;  // empty: every rank of each node
  bool node_ladder = false;
  bool verify = false;
  bool keep = false;
};

std::string default_dir() {
  const char* t = std::getenv("TMPDIR");
  return t != nullptr && *t != 0 ? std::string(t) : std::string("/var/tmp");
}

bool read_bool(const ConfigNode& entry, const std::string& key, bool fallback) {
  if (!entry.has(key)) return fallback;
  const std::string v = entry.string(key, "");
  if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
  if (v == "false" || v == "no" || v == "off" || v == "0") return false;
  entry.fail(key, "true or false", "'" + v + "'");
}

std::vector<int> read_ints(const ConfigNode& entry, const std::string& key,
                           const std::vector<int>& fallback, int min, int max) {
  if (!entry.has(key)) return fallback;
  std::vector<int> out;
  for (const auto& text : entry.string_list(key, {})) {
    int v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < min || v > max)
      entry.fail(key, fmt::format("whole numbers from {} to {}", min, max), "'" + text + "'");
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  return out;
}

template <typename T>
std::vector<T> read_choices(const ConfigNode& entry, const std::string& key,
                            const std::vector<std::string>& fallback,
                            const std::vector<std::pair<std::string, std::vector<T>>>& names) {
  std::vector<T> out;
  std::string allowed;
  for (const auto& [n, v] : names) allowed += (allowed.empty() ? "" : ", ") + n;
  for (const auto& item : entry.string_list(key, fallback)) {
    const auto it =
        std::find_if(names.begin(), names.end(), [&](const auto& p) { return p.first == item; });
    if (it == names.end()) entry.fail(key, "one of " + allowed, "'" + item + "'");
    for (const T& v : it->second)
      if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
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

  std::vector<OptionSpec> options() const override {
    return {
        {"dir", "--dir",
         "Directory on the storage to measure; the data set goes in <dir>/preflight-<id>/ "
         "($TMPDIR, else /var/tmp)",
         false},
        {"dataset", "--dataset", "Data set id: <dir>/preflight-<id>/ (<ranks>r-<size>)", false},
        {"engines", "--engine",
         fmt::format("I/O engines: {} (psync)", fmt::join(engine_names(), ", ")), true},
        {"cache", "--cache", "Cache states: " + names_of_cache_states() + " (evicted)", true},
        {"access", "--access", "sequential, random or both (sequential)", true},
        {"file_layout", "--file-layout", "file-per-rank, shared or both (file-per-rank)", true},
        {"block_sizes", "--block-sizes",
         "Bytes per read, multiples of 4K: 1M, 4K,64K,1M, 4K:1M:x4 (1M)", false},
        {"size", "--size",
         "Bytes each rank reads (its file or its segment of the shared file) (64M)", false},
        {"queue_depths", "--queue-depth", "Reads in flight per thread, io_uring only (1)", true},
        {"threads", "--threads", "Reader threads per rank (1)", true},
        {"stonewall", "--stonewall", "Time-bound each read, e.g. 5s; 0 reads all of size (0)",
         false},
        {"interval", "--interval", "Interval of the per-rank bandwidth series (100ms)", false},
        {"scale_ranks_per_node", "--scale-ranks-per-node",
         "Also run with only the first N ranks of each node, e.g. 1,2,4 (all)", true},
        {"node_ladder", "--node-ladder", "Also run on 1, 2, 4, ... nodes: true or false (false)",
         false},
        {"verify", "--verify", "Check every block's pattern before timing: true or false (false)",
         false},
        {"keep", "--keep", "Keep the data set for later runs: true or false (false)", false},
    };
  }

  void configure(const ConfigNode& entry) override {
    StorageConfig c;
    c.dir = entry.string("dir", default_dir());
    if (c.dir.empty()) entry.fail("dir", "a directory", "an empty string");
    c.dir = std::filesystem::absolute(c.dir).lexically_normal().string();
    if (c.dir.size() > 1 && c.dir.back() == '/') c.dir.pop_back();
    c.dataset_id = entry.string("dataset", "");
    if (entry.has("dataset") && !valid_id(c.dataset_id))
      entry.fail("dataset", "a name of letters, digits, '-', '_' and '.' (it names a directory)",
                 "'" + c.dataset_id + "'");
    c.engines.clear();
    for (const auto& e : entry.string_list("engines", {"psync"})) {
      if (!make_engine(e))
        entry.fail("engines", fmt::format("one of {}", fmt::join(engine_names(), ", ")),
                   "'" + e + "'");
      if (std::find(c.engines.begin(), c.engines.end(), e) == c.engines.end())
        c.engines.push_back(e);
    }
    c.caches.clear();
    for (const auto& s : entry.string_list("cache", {"evicted"})) {
      const auto state = cache_state_named(s);
      if (!state) entry.fail("cache", "one of " + names_of_cache_states(), "'" + s + "'");
      if (std::find(c.caches.begin(), c.caches.end(), *state) == c.caches.end())
        c.caches.push_back(*state);
    }
    c.random =
        read_choices<bool>(entry, "access", {"sequential"},
                           {{"sequential", {false}}, {"random", {true}}, {"both", {false, true}}});
    c.shared = read_choices<bool>(
        entry, "file_layout", {"file-per-rank"},
        {{"file-per-rank", {false}}, {"shared", {true}}, {"both", {false, true}}});
    try {
      if (entry.has("block_sizes"))
        c.block_sizes = parse_sweep(entry.string("block_sizes", ""), entry.where("block_sizes"));
      if (entry.has("size")) c.size = parse_size(entry.string("size", ""), entry.where("size"));
    } catch (const YAML::Exception& e) {
      throw UsageError(fmt::format("{}: {}", entry.where(), e.what()));
    }
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
    c.queue_depths = read_ints(entry, "queue_depths", {1}, 1, 4096);
    c.threads = read_ints(entry, "threads", {1}, 1, 256);
    c.stonewall_s = entry.duration("stonewall", 0);
    if (c.stonewall_s < 0)
      entry.fail("stonewall", "0 (off) or a positive duration", entry.string("stonewall", ""));
    c.interval_s = entry.duration("interval", 0.1);
    if (!(c.interval_s >= 0.001))
      entry.fail("interval", "a duration of at least 1ms, e.g. 100ms",
                 entry.string("interval", ""));
    c.scale_ranks_per_node = read_ints(entry, "scale_ranks_per_node", {}, 1, 1 << 20);
    c.node_ladder = read_bool(entry, "node_ladder", false);
    c.verify = read_bool(entry, "verify", false);
    c.keep = read_bool(entry, "keep", false);

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

  nlohmann::json config() const override {
    std::vector<std::string> caches, access, layouts;
    for (auto s : config_.caches) caches.emplace_back(name_of(s));
    for (bool r : config_.random) access.emplace_back(r ? "random" : "sequential");
    for (bool s : config_.shared) layouts.emplace_back(s ? "shared" : "file-per-rank");
    return {{"dir", config_.dir},
            {"dataset", config_.dataset_id},
            {"engines", config_.engines},
            {"cache", caches},
            {"access", access},
            {"file_layout", layouts},
            {"block_sizes", config_.block_sizes},
            {"size", config_.size},
            {"queue_depths", config_.queue_depths},
            {"threads", config_.threads},
            {"stonewall_s", config_.stonewall_s},
            {"interval_s", config_.interval_s},
            {"scale_ranks_per_node", config_.scale_ranks_per_node},
            {"node_ladder", config_.node_ladder},
            {"verify", config_.verify},
            {"keep", config_.keep}};
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
