#include "fabric/fabric_family.hpp"

#include <fmt/format.h>

#include <array>

#include "fabric/pair_case.hpp"
#include "fabric/pair_schedule.hpp"
#include "fabric/transport.hpp"
#include "harness/config/options.hpp"
#include "preflight/common/sizes.hpp"
#include "preflight/common/usage_error.hpp"
#include "preflight/schema/family_names.hpp"

namespace preflight::fabric {
namespace {

struct FabricConfig {
  std::string transport;
  std::string provider, domain, address;
  std::vector<PairTest> tests;
  std::vector<std::uint64_t> sizes;
  int window = 16;
  int passes = 2;
};

constexpr std::array kTests = {
    std::pair{PairTest::kLatency, std::string_view("latency")},
    std::pair{PairTest::kBandwidth, std::string_view("bandwidth")},
    std::pair{PairTest::kBidirectional, std::string_view("bidirectional")},
};
constexpr NameTable<PairTest> kTestNames{kTests};

const OptionTable<FabricConfig>& options_table() {
  using C = FabricConfig;
  static const OptionTable<C> table({
      opt::one_of({.key = "transport",
                   .flags = "--transport",
                   .help = "What carries the messages: ofi (libfabric) or mpi (send/recv)",
                   .default_value = "ofi"},
                  &C::transport, transport_names()),
      opt::text({.key = "provider",
                 .flags = "--provider",
                 .help = "libfabric provider with RDM endpoints (tcp, shm, verbs, efa, ...); ofi "
                         "only",
                 .default_value = "tcp"},
                &C::provider),
      opt::text({.key = "domain",
                 .flags = "--domain",
                 .help = "libfabric domain (a NIC, e.g. mlx5_0); the provider's first when not "
                         "given; ofi only"},
                &C::domain),
      opt::text({.key = "address",
                 .flags = "--address",
                 .help = "local address the endpoints bind to (e.g. 127.0.0.1); the provider's "
                         "choice when not given; ofi only"},
                &C::address),
      opt::names({.key = "tests",
                  .flags = "--tests",
                  .help = "Pair tests",
                  .default_value = "latency,bandwidth"},
                 &C::tests, kTestNames, "all"),
      opt::sizes({.key = "sizes",
                  .flags = "--sizes",
                  .help = "Message sizes: a sweep 8:1M:x4 or a list 8,64K,1M",
                  .default_value = "8,64K,1M"},
                 &C::sizes),
      opt::integer({.key = "window",
                    .flags = "--window",
                    .help = "Messages in flight per bandwidth iteration",
                    .default_value = "16"},
                   &C::window, 1, 1024),
      opt::integer({.key = "passes",
                    .flags = "--passes",
                    .help = "Passes over the pair schedule; a second pass retests every pair",
                    .default_value = "2"},
                   &C::passes, 1, 8),
  });
  return table;
}

TransportOptions transport_options(const FabricConfig& c) {
  return {c.provider, c.domain, c.address};
}

// One world rank per node takes part, its lowest: a pair measures the two nodes' link.
std::vector<int> node_representatives(const RankContext& ctx) {
  std::vector<int> rep(static_cast<std::size_t>(ctx.node_count), -1);
  for (int r = ctx.size - 1; r >= 0; --r)
    rep[static_cast<std::size_t>(ctx.node_of_rank[static_cast<std::size_t>(r)])] = r;
  return rep;
}

class FabricFamily final : public Family {
 public:
  std::string name() const override { return std::string(schema::kFabricFamily); }
  std::string summary() const override {
    return "point-to-point latency and bandwidth between every node pair (libfabric or MPI)";
  }
  std::vector<OptionSpec> options() const override { return options_table().specs(); }

  void configure(const ConfigNode& entry) override {
    FabricConfig c;
    options_table().read(entry, c);
    if (c.transport == "ofi") {
      if (c.provider.empty()) entry.fail("provider", "a libfabric provider name", "''");
      check_transport(c.transport, transport_options(c));
    }
    config_ = c;
  }

  nlohmann::json config() const override {
    auto j = options_table().json(config_);
    j["found"] = transport_inventory(config_.transport);
    return j;
  }

  std::vector<std::string> skipped(const RankContext& ctx) const override {
    if (ctx.node_count >= 2) return {};
    return {fmt::format(
        "fabric: the pair sweep needs 2 or more nodes, this job has {} ({} rank{}); run on more "
        "nodes, or give ranks_per_node (--ranks-per-node 1) to make virtual nodes",
        ctx.node_count, ctx.size, ctx.size == 1 ? "" : "s")};
  }

  std::vector<std::unique_ptr<Case>> make_cases(const RankContext& ctx) override {
    std::vector<std::unique_ptr<Case>> cases;
    if (ctx.node_count < 2) return cases;  // see skipped()
    std::shared_ptr<Transport> transport =
        make_transport(config_.transport, transport_options(config_));
    for (std::uint64_t bytes : config_.sizes)
      if (bytes > transport->max_message_bytes())
        throw UsageError(fmt::format(
            "sizes: {} is more than {} takes in one message ({} B); use a smaller largest size",
            format_bytes(bytes), transport->provider(), transport->max_message_bytes()));
    transport->connect(ctx.world);
    const auto rep = node_representatives(ctx);
    auto rounds = round_robin(ctx.node_count);
    for (int pass = 0; pass < config_.passes; ++pass) {
      // A retest pass runs the rounds in the other order, so a pair meets other conditions.
      for (std::size_t k = 0; k < rounds.size(); ++k) {
        const std::size_t r = pass % 2 == 0 ? k : rounds.size() - 1 - k;
        std::vector<std::pair<int, int>> pairs;
        for (const auto& [a, b] : rounds[r])
          pairs.emplace_back(rep[static_cast<std::size_t>(a)], rep[static_cast<std::size_t>(b)]);
        for (PairTest test : config_.tests)
          cases.push_back(std::make_unique<PairCase>(
              PairCaseSpec{test, static_cast<int>(r), pass, config_.window, pairs}, ctx.size,
              ctx.rank, config_.sizes, transport));
      }
    }
    return cases;
  }

 private:
  FabricConfig config_;
};

}  // namespace

std::unique_ptr<Family> make_fabric_family() {
  return std::make_unique<FabricFamily>();
}

}  // namespace preflight::fabric
