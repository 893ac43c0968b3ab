#include "memory/memory_family.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harness/config/options.hpp"
#include "memory/backend.hpp"
#include "memory/memory_peak.hpp"
#include "memory/stream_case.hpp"
#include "preflight/common/sizes.hpp"
#include "preflight/schema/family_names.hpp"
#include "telemetry/rank_threads.hpp"

namespace preflight::memory {
namespace {

using kernels::StreamKernel;

constexpr std::array kKernelEntries = {
    std::pair{StreamKernel::kCopy, std::string_view("copy")},
    std::pair{StreamKernel::kScale, std::string_view("scale")},
    std::pair{StreamKernel::kAdd, std::string_view("add")},
    std::pair{StreamKernel::kTriad, std::string_view("triad")},
};
constexpr NameTable<StreamKernel> kKernelNames{kKernelEntries};

// Which ranks run at once: one per node (the rank's own bandwidth) or all (the node's).
enum class Layout { kRank, kNode };
constexpr std::array kLayoutEntries = {
    std::pair{Layout::kRank, std::string_view("rank")},
    std::pair{Layout::kNode, std::string_view("node")},
};
constexpr NameTable<Layout> kLayoutNames{kLayoutEntries};

constexpr std::array kGpuCopyEntries = {
    std::pair{GpuCopy::kHbmTriad, std::string_view("hbm_triad")},
    std::pair{GpuCopy::kDeviceToDevice, std::string_view("d2d")},
    std::pair{GpuCopy::kHostToDevice, std::string_view("h2d")},
    std::pair{GpuCopy::kDeviceToHost, std::string_view("d2h")},
    std::pair{GpuCopy::kPeer, std::string_view("p2p")},
};
constexpr NameTable<GpuCopy> kGpuCopyNames{kGpuCopyEntries};

struct MemoryConfig {
  std::string backend;
  std::vector<StreamKernel> kernels;
  std::vector<GpuCopy> copies;
  std::vector<std::uint64_t> sizes;
  std::vector<Layout> layouts;
  int threads = 0;
  double interval_s = 1;
  double memory_peak = 0;
};

const OptionTable<MemoryConfig>& options_table() {
  using C = MemoryConfig;
  static const OptionTable<C> table({
      opt::one_of({.key = "backend",
                   .flags = "--backend",
                   .help = "Memory of the host (cpu) or of the rank's GPU (cuda)",
                   .default_value = "cpu"},
                  &C::backend, {"cpu", "cuda"}),
      opt::names({.key = "copies",
                  .flags = "--copies",
                  .help = "GPU (backend cuda): device memory (hbm_triad, d2d), the host link "
                          "from and to pinned memory (h2d, d2h), GPU to GPU for every ordered "
                          "pair of a node's GPUs (p2p)",
                  .default_value = "hbm_triad,d2d,h2d,d2h,p2p"},
                 &C::copies, kGpuCopyNames, "all"),
      opt::names({.key = "kernels",
                  .flags = "--kernel",
                  .help = "STREAM kernels",
                  .default_value = "copy,scale,add,triad"},
                 &C::kernels, kKernelNames, "all"),
      opt::sizes({.key = "sizes",
                  .flags = "--sizes",
                  .help = "Bytes of each of a rank's three arrays, one point each; STREAM's rule: "
                          "4x the last-level cache or more",
                  .default_value = "64M"},
                 &C::sizes),
      opt::choice({.key = "layout",
                   .flags = "--layout",
                   .help = "One rank per node alone (rank; on GPUs each GPU alone in turn), every "
                           "rank at once (node)",
                   .default_value = "both",
                   .record = "layouts"},
                  &C::layouts, kLayoutNames, "both"),
      opt::integer({.key = "threads",
                    .flags = "--threads",
                    .help = "Threads per rank; 0: the host's CPUs shared among its ranks",
                    .default_value = "0"},
                   &C::threads, 0, 4096),
      opt::duration({.key = "interval",
                     .flags = "--interval",
                     .help = "Time one row of series/interval_bw covers",
                     .default_value = "1s"},
                    &C::interval_s, 1e-3, "a duration of at least 1ms"),
      opt::number({.key = "memory_peak",
                   .flags = "--memory-peak",
                   .help = "Theoretical bandwidth of a node, GB/s; 0: unknown",
                   .default_value = "0"},
                  &C::memory_peak, 0, 1e6),
  });
  return table;
}

class MemoryFamily final : public Family {
 public:
  std::string name() const override { return std::string(schema::kMemoryFamily); }
  std::string summary() const override {
    return "STREAM copy, scale, add and triad bandwidth per rank and per node";
  }
  std::vector<OptionSpec> options() const override { return options_table().specs(); }
  void configure(const ConfigNode& entry) override {
    MemoryConfig c;
    options_table().read(entry, c);
    if (entry.has("sizes") && c.sizes.empty()) entry.fail("sizes", "at least one size", "none");
    for (std::uint64_t s : c.sizes)
      if (s < 4096)
        entry.fail("sizes", "arrays of 4K or more (a few pages: smaller ones time the clock)",
                   format_bytes(s));
    config_ = c;
  }
  nlohmann::json config() const override { return options_table().json(config_); }

  std::vector<std::string> skipped(const RankContext& ctx) const override {
    std::vector<std::string> out;
    if (config_.backend == "cuda") {
      if (const std::string why = cuda_unavailable(ctx.local_rank); !why.empty())
        return {fmt::format("backend cuda: {}; every memory case of it left out", why)};
      if (asks(GpuCopy::kPeer) && cuda_device_count() < 2)
        out.push_back(fmt::format(
            "copies p2p: one GPU: no pairs (cudaGetDeviceCount gives {} on this rank; where a "
            "node has more, CUDA_VISIBLE_DEVICES may hide them)",
            cuda_device_count()));
    }
    if (duplicate(Layout::kNode, ranks_per_node(ctx)) &&
        (config_.backend != "cuda" || std::any_of(config_.copies.begin(), config_.copies.end(),
                                                  [](GpuCopy c) { return c != GpuCopy::kPeer; })))
      out.push_back(
          "layout node: every node has one rank, so it is the layout rank again; run more ranks "
          "per node, or give ranks_per_node (--ranks-per-node) to make virtual nodes");
    return out;
  }

  std::vector<std::unique_ptr<Case>> make_cases(const RankContext& ctx) override {
    return config_.backend == "cuda" ? gpu_cases(ctx) : cpu_cases(ctx);
  }

 private:
  std::vector<std::unique_ptr<Case>> cpu_cases(const RankContext& ctx) const {
    auto telemetry =
        std::make_shared<const telemetry::TelemetryPlan>(telemetry::plan_telemetry(ctx, ""));
    const MemoryPeak peak = memory_peak(config_.memory_peak);
    const int per_node = ranks_per_node(ctx);
    // The same threads in both layouts, so that a rank's figure alone and with its node's
    // other ranks compare like for like.
    const int threads = telemetry::chosen_threads(ctx, config_.threads);
    std::vector<std::unique_ptr<Case>> cases;
    for (Layout layout : config_.layouts) {
      if (duplicate(layout, per_node)) continue;  // see skipped()
      const bool alone = layout == Layout::kRank;
      std::vector<int> groups(static_cast<std::size_t>(ctx.size), -1);
      for (std::size_t r = 0; r < groups.size(); ++r)
        groups[r] = !alone || ctx.local_rank_of_rank[r] == 0 ? 0 : -1;
      const int ranks = static_cast<int>(std::count(groups.begin(), groups.end(), 0));
      for (StreamKernel k : config_.kernels) {
        StreamCaseSpec spec;
        spec.kernel_label = std::string(kKernelNames.name(k));
        spec.arrays = kernels::stream_arrays(k);
        spec.bytes_counted =
            fmt::format("{} arrays: every array read or written (STREAM's)", spec.arrays);
        spec.make = [k, threads](std::size_t elements, std::uint64_t seed) {
          return make_cpu_stream(k, elements, threads, seed);
        };
        spec.sizes = config_.sizes;
        spec.threads = threads;
        spec.interval_s = config_.interval_s;
        spec.memory_peak_gbs = peak.gbs;
        spec.memory_peak_source = peak.source;
        spec.ranks_per_node = alone ? 1 : per_node;
        spec.nodes = ctx.node_count;
        spec.ranks = ranks;
        spec.layout = alone || per_node == 1 ? std::string("1 rank per node")
                                             : fmt::format("{} ranks per node", per_node);
        cases.push_back(std::make_unique<StreamCase>(spec, groups, telemetry, ctx.rank));
      }
    }
    return cases;
  }

  // Each GPU alone in turn (layout rank: the ranks of local rank l on every node), then every
  // GPU at once (layout node): shared PCIe switches show as a fall from the one to the other.
  std::vector<std::unique_ptr<Case>> gpu_cases(const RankContext& ctx) const {
    std::vector<std::unique_ptr<Case>> cases;
    int missing = cuda_unavailable(ctx.local_rank).empty() ? 0 : 1, any_missing = 0;
    MPI_Allreduce(&missing, &any_missing, 1, MPI_INT, MPI_MAX, ctx.world);
    if (any_missing) return cases;  // see skipped()
    auto telemetry = std::make_shared<const telemetry::TelemetryPlan>(
        telemetry::plan_telemetry(ctx, cuda_pci_bus(ctx.local_rank)));
    const int per_node = ranks_per_node(ctx);
    std::vector<std::pair<std::vector<int>, std::string>> layouts;
    for (Layout layout : config_.layouts) {
      if (duplicate(layout, per_node)) continue;  // see skipped()
      if (layout == Layout::kNode) {
        layouts.push_back({std::vector<int>(static_cast<std::size_t>(ctx.size), 0),
                           fmt::format("{} GPUs per node at once", per_node)});
        continue;
      }
      for (int l = 0; l < per_node; ++l) {
        std::vector<int> groups(static_cast<std::size_t>(ctx.size), -1);
        for (std::size_t r = 0; r < groups.size(); ++r)
          groups[r] = ctx.local_rank_of_rank[r] == l ? 0 : -1;
        layouts.push_back({std::move(groups), fmt::format("GPU {} alone", l)});
      }
    }
    for (auto& [groups, label] : layouts) {
      const int ranks = static_cast<int>(std::count(groups.begin(), groups.end(), 0));
      for (GpuCopy copy : config_.copies) {
        if (copy == GpuCopy::kPeer) continue;  // its own layout: below
        StreamCaseSpec spec = gpu_spec(copy, ctx, ranks);
        spec.make = [copy, local = ctx.local_rank](std::size_t elements, std::uint64_t seed) {
          return make_cuda_copy(copy, local, elements, seed);
        };
        spec.ranks_per_node = ranks == ctx.size ? per_node : 1;
        // The node's peak: its active GPUs' together (layout node), one GPU's alone.
        const GpuMemoryPeak peak = gpu_memory_peak(copy, cuda_device_name(ctx.local_rank));
        spec.memory_peak_gbs = peak.gbs * spec.ranks_per_node;
        spec.memory_peak_source =
            spec.ranks_per_node > 1 ? fmt::format("{} x {} GPUs", peak.source, spec.ranks_per_node)
                                    : peak.source;
        spec.layout = label;
        cases.push_back(std::make_unique<StreamCase>(spec, groups, telemetry, ctx.rank));
      }
    }
    if (asks(GpuCopy::kPeer)) add_peer_cases(ctx, telemetry, cases);
    return cases;
  }

  // nvbandwidth's matrix: a copy from GPU i to GPU j for every ordered pair of the GPUs each
  // rank sees, each pair alone (on every node at once: nodes share no link). The rank of local
  // rank i runs pair (i, j), so the source is its own GPU (local rank 0 where there is none).
  void add_peer_cases(const RankContext& ctx,
                      const std::shared_ptr<const telemetry::TelemetryPlan>& telemetry,
                      std::vector<std::unique_ptr<Case>>& cases) const {
    int gpus = cuda_device_count(), fewest = 0;
    MPI_Allreduce(&gpus, &fewest, 1, MPI_INT, MPI_MIN, ctx.world);
    const int per_node = ranks_per_node(ctx);
    for (int from = 0; from < fewest; ++from)
      for (int to = 0; to < fewest; ++to) {
        if (from == to) continue;
        // Direct only where every runner's CUDA says so; otherwise the label says staged.
        int direct = cuda_peer_access(from, to) ? 1 : 0, all_direct = 0;
        MPI_Allreduce(&direct, &all_direct, 1, MPI_INT, MPI_MIN, ctx.world);
        const int runner = from < per_node ? from : 0;
        std::vector<int> groups(static_cast<std::size_t>(ctx.size), -1);
        for (std::size_t r = 0; r < groups.size(); ++r)
          groups[r] = ctx.local_rank_of_rank[r] == runner ? 0 : -1;
        const int ranks = static_cast<int>(std::count(groups.begin(), groups.end(), 0));
        StreamCaseSpec spec = gpu_spec(GpuCopy::kPeer, ctx, ranks);
        spec.make = [from, to](std::size_t elements, std::uint64_t seed) {
          return make_cuda_peer_copy(from, to, elements, seed);
        };
        spec.layout = fmt::format("GPU {} to GPU {}{}", from, to,
                                  all_direct ? "" : " (no peer access: staged through the host)");
        cases.push_back(std::make_unique<StreamCase>(spec, groups, telemetry, ctx.rank));
      }
  }

  // What every GPU case shares; the caller adds its operation, layout and ranks per node.
  StreamCaseSpec gpu_spec(GpuCopy copy, const RankContext& ctx, int ranks) const {
    StreamCaseSpec spec;
    spec.backend = "cuda";
    spec.kernel_label = std::string(gpu_copy_name(copy));
    spec.arrays = gpu_copy_arrays(copy);
    spec.sizes = config_.sizes;
    spec.threads = 1;
    spec.interval_s = config_.interval_s;
    spec.memory_peak_gbs = std::nan("");
    spec.memory_peak_source = "unknown: a copy over a link, not a device-memory figure";
    spec.bytes_counted = std::string(gpu_copy_counting(copy));
    spec.ranks_per_node = 1;
    spec.nodes = ctx.node_count;
    spec.ranks = ranks;
    return spec;
  }

  bool asks(GpuCopy copy) const {
    return std::find(config_.copies.begin(), config_.copies.end(), copy) != config_.copies.end();
  }

  // The most ranks on any node (virtual nodes or real ones).
  static int ranks_per_node(const RankContext& ctx) {
    int most = 0;
    for (int n = 0; n < ctx.node_count; ++n)
      most = std::max<int>(
          most, static_cast<int>(std::count(ctx.node_of_rank.begin(), ctx.node_of_rank.end(), n)));
    return most;
  }
  // With one rank per node, layout node is layout rank again: left out when both are asked for.
  bool duplicate(Layout layout, int per_node) const {
    return layout == Layout::kNode && per_node == 1 &&
           std::find(config_.layouts.begin(), config_.layouts.end(), Layout::kRank) !=
               config_.layouts.end();
  }

  MemoryConfig config_;
};

}  // namespace

std::unique_ptr<Family> make_memory_family() {
  return std::make_unique<MemoryFamily>();
}

}  // namespace preflight::memory
