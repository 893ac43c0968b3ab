#include "comm/comm_family.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>

#include "comm/backend.hpp"
#include "comm/collective_case.hpp"
#include "comm/expected.hpp"
#include "comm/nccl_env.hpp"
#include "harness/config/options.hpp"
#include "preflight/common/sizes.hpp"
#include "preflight/common/usage_error.hpp"
#include "preflight/schema/family_names.hpp"

namespace preflight::comm {
namespace {

// The family's configuration after reading and checking. The defaults are the option table's.
struct CommConfig {
  std::string backend;  // a backend's name, or "auto": NCCL where every rank has a GPU, else MPI
  bool cuda_graph = false;
  std::string registration;
  double abort_after_s = 0;
  std::vector<Collective> ops;
  std::vector<DType> dtypes;
  std::vector<RedOp> redops;
  std::vector<Topology> topologies;
  std::vector<bool> placements;  // in place?
  std::vector<std::uint64_t> sizes;
  // nccl-tests' way to write the sweep, when `sizes` is not given.
  std::uint64_t min_bytes = 0, max_bytes = 0, step_bytes = 0;
  double step_factor = 0;
};

constexpr std::array kPlacements = {
    std::pair{false, std::string_view("out-of-place")},
    std::pair{true, std::string_view("in-place")},
};
constexpr NameTable<bool> kPlacementNames{kPlacements};

constexpr std::string_view kAutoBackend = "auto";

std::vector<std::string> backend_choices() {
  auto names = backend_names();
  names.emplace_back(kAutoBackend);
  return names;
}

const OptionTable<CommConfig>& options_table() {
  using C = CommConfig;
  static const OptionTable<C> table({
      opt::one_of({.key = "backend",
                   .flags = "--backend",
                   .help = "Communication library (auto: nccl where every rank has a GPU, "
                           "else mpi; each case records which ran)",
                   .default_value = "mpi"},
                  &C::backend, backend_choices()),
      opt::boolean({.key = "cuda_graph",
                    .flags = "-G,--cuda-graph",
                    .help = "NCCL: replay each operation from a captured CUDA graph",
                    .default_value = "false"},
                   &C::cuda_graph),
      opt::one_of({.key = "registration",
                   .flags = "-R,--registration",
                   .help = "NCCL: register buffers (local: ncclCommRegister, window: "
                           "ncclCommWindowRegister, symmetric)",
                   .default_value = "off"},
                  &C::registration, registration_names().names()),
      opt::duration({.key = "abort_after",
                     .flags = "--abort-after",
                     .help = "NCCL: abort the communicators when an operation makes no progress "
                             "this long (0: never; the watchdog ends the job at timing.timeout)",
                     .default_value = "0"},
                    &C::abort_after_s, 0, "0 (never) or a time such as 120s"),
      opt::names(
          {.key = "ops", .flags = "--op", .help = "Collectives", .default_value = "allreduce"},
          &C::ops, collective_names(), "all"),
      opt::names({.key = "dtypes",
                  .flags = "-d,--dtype",
                  .help = "Element types",
                  .default_value = "float32"},
                 &C::dtypes, dtype_names()),
      opt::names(
          {.key = "redops", .flags = "--redop", .help = "Reductions", .default_value = "sum"},
          &C::redops, redop_names()),
      opt::names({.key = "topologies",
                  .flags = "--topology",
                  .help = "Groupings",
                  .default_value = "world"},
                 &C::topologies, topology_names()),
      opt::choice({.key = "placement",
                   .flags = "--placement",
                   .help = "Buffers",
                   .default_value = "out-of-place",
                   .record = "placements"},
                  &C::placements, kPlacementNames, "both"),
      opt::sizes(
          {.key = "sizes",
           .flags = "--sizes",
           .help =
               "Sizes: a sweep 8:1M:x2 or 0:64K:+8K, or a list 8,1K,1M (in YAML also [8, 1K, 1M])"},
          &C::sizes),
      // Not recorded as themselves: they make `sizes`.
      opt::size({.key = "min_bytes",
                 .flags = "-b,--min-bytes",
                 .help = "Smallest size; K/M/G are powers of 1024",
                 .default_value = "8",
                 .record = ""},
                &C::min_bytes),
      opt::size({.key = "max_bytes",
                 .flags = "-e,--max-bytes",
                 .help = "Largest size",
                 .default_value = "16M",
                 .record = ""},
                &C::max_bytes),
      opt::number({.key = "step_factor",
                   .flags = "-f,--step-factor",
                   .help = "Multiply the size by this each step",
                   .default_value = "2",
                   .record = ""},
                  &C::step_factor, 1, 1e6),
      opt::size({.key = "step_bytes",
                 .flags = "-i,--step-bytes",
                 .help = "Add this to the size each step instead",
                 .default_value = "0",
                 .shown_default = "",
                 .record = ""},
                &C::step_bytes),
  });
  return table;
}

class CommFamily final : public Family {
 public:
  std::string name() const override { return std::string(schema::kCommFamily); }
  std::string summary() const override {
    return "collectives (all-reduce, all-gather, ...) across topologies";
  }

  std::vector<OptionSpec> options() const override { return options_table().specs(); }

  void configure(const ConfigNode& entry) override {
    CommConfig c;
    options_table().read(entry, c);
    // `sizes` as a sweep or list, or nccl-tests' min_bytes/max_bytes/step_factor/step_bytes.
    const bool by_range = entry.has("min_bytes") || entry.has("max_bytes") ||
                          entry.has("step_factor") || entry.has("step_bytes");
    if (entry.has("sizes") && by_range)
      entry.fail("sizes", "either sizes or min_bytes/max_bytes/step_*", "both");
    if (!entry.has("sizes")) {
      SweepSpec spec;
      spec.min_bytes = c.min_bytes;
      spec.max_bytes = c.max_bytes;
      spec.step = c.step_bytes;
      spec.factor = spec.step > 0 ? 0 : c.step_factor;  // a step in bytes, when given, wins
      c.sizes = expand_sweep(spec, entry.where(entry.has("max_bytes") ? "max_bytes" : "min_bytes"));
    }
    // The GPU options mean nothing to MPI: asking for them with it is a mistake, not a no-op.
    if (c.backend == "mpi")
      for (const char* key : {"cuda_graph", "registration", "abort_after"})
        if (entry.has(key))
          entry.fail(key, "backend nccl or auto (a NCCL option)", "it with backend mpi");
    config_ = c;
  }

  void check_environment(const ConfigNode& env) const override {
    if (!env.yaml().IsMap()) return;  // the campaign reader has refused it already
    for (const auto& item : env.yaml()) {
      const auto name = item.first.as<std::string>();
      if (name.rfind("NCCL_", 0) != 0 && name.rfind("nccl_", 0) != 0) continue;
      if (name.rfind("nccl_", 0) == 0)
        env.fail(name, "NCCL variables in capitals (NCCL reads only those)", name);
      if (auto problem = check_nccl_variable(name, item.second.as<std::string>()))
        env.fail(name, problem->expected, problem->found);
    }
  }

  void check_variants(const std::vector<ConfigNode>& variants) const override {
    check_nccl_variants(variants);
  }

  nlohmann::json config() const override { return options_table().json(config_); }

  std::vector<std::string> skipped(const RankContext& ctx) const override {
    std::vector<std::string> out;
    if (const auto& why = resolve(ctx).unavailable; !why.empty()) {
      out.push_back(fmt::format(
          "backend {}: {}: none of its cases ran; run it where every rank has a GPU, or use "
          "backend auto (NCCL where a GPU is present, MPI where not)",
          config_.backend, why));
      return out;
    }
    for (Topology t : config_.topologies)
      for (const auto& layout :
           make_layouts(t, ctx.node_of_rank, ctx.local_rank_of_rank, ctx.node_count))
        if (degenerate(layout, ctx))
          out.push_back(fmt::format(
              "topology {}: every group has one rank on this job's layout ({} rank{} on {} "
              "node{}): a collective of one rank measures nothing; run on more nodes, or give "
              "ranks_per_node (--ranks-per-node) to make virtual nodes",
              layout.label.empty() ? std::string(name_of(t)) : layout.label, ctx.size,
              ctx.size == 1 ? "" : "s", ctx.node_count, ctx.node_count == 1 ? "" : "s"));
    return out;
  }

  std::vector<std::unique_ptr<Case>> make_cases(const RankContext& ctx) override {
    const Resolved& resolved = resolve(ctx);
    if (!resolved.unavailable.empty()) return {};  // see skipped()
    const std::shared_ptr<CommBackend>& backend = resolved.backend;
    std::vector<std::unique_ptr<Case>> cases;
    for (Topology t : config_.topologies)
      for (auto& layout :
           make_layouts(t, ctx.node_of_rank, ctx.local_rank_of_rank, ctx.node_count)) {
        if (degenerate(layout, ctx)) continue;  // see skipped()
        check_fits(*backend, layout);
        auto groups = std::make_shared<GroupSet>(std::move(layout), ctx, backend);
        for (Collective op : config_.ops)
          for (DType dtype : config_.dtypes)
            for (RedOp redop : reduces(op) ? config_.redops : std::vector<RedOp>{RedOp::kSum})
              for (bool in_place : placements_of(*backend, op))
                cases.push_back(std::make_unique<CollectiveCase>(
                    CollectiveSpec{op, dtype, redop, in_place}, groups, config_.sizes, backend));
      }
    return cases;
  }

 private:
  // Every group of one rank in a job of several (a job of one rank asked for that).
  static bool degenerate(const Layout& layout, const RankContext& ctx) {
    std::map<int, int> sizes;
    int largest = 0;
    for (int g : layout.group_of_rank)
      if (g >= 0) largest = std::max(largest, ++sizes[g]);
    return ctx.size >= 2 && largest < 2;
  }

  // Every rank checks every group's buffers before any case runs, so a size too large for
  // the backend, or a sum over more ranks than its type keeps exact (which could not be
  // checked), is bad input (exit 2, nothing run), not a failure hours into the run.
  void check_fits(const CommBackend& backend, const Layout& layout) const {
    std::map<int, int> group_sizes;
    for (int g : layout.group_of_rank)
      if (g >= 0) ++group_sizes[g];
    const auto asks = [&](RedOp r) {
      return std::find(config_.redops.begin(), config_.redops.end(), r) != config_.redops.end();
    };
    const bool sums = asks(RedOp::kSum), products = asks(RedOp::kProd);
    for (DType dtype : config_.dtypes)
      if (!backend.supports(dtype))
        throw UsageError(fmt::format(
            "dtypes: {} is not an element type of the {} backend; use backend nccl (on GPUs) or "
            "another dtype",
            name_of(dtype), backend.name()));
    for (const auto& [group, n] : group_sizes)
      for (Collective op : config_.ops)
        for (DType dtype : config_.dtypes) {
          const auto ranks = static_cast<std::uint64_t>(n);
          if (sums && reduces(op) && ranks > max_exact_sum_ranks(dtype))
            throw UsageError(fmt::format(
                "dtypes: a sum of {} over {} ranks cannot be checked: its values stay exact up to "
                "{} ranks; use a wider dtype (float64: up to {}) or redops max and min",
                name_of(dtype), n, max_exact_sum_ranks(dtype),
                max_exact_sum_ranks(DType::kFloat64)));
          if (products && reduces(op) && ranks > max_exact_product_ranks(dtype))
            throw UsageError(fmt::format(
                "redops: a product of {} over {} ranks cannot be checked: its values stay exact up "
                "to {} rank{}; use a wider dtype (float64: up to {}) or fewer ranks per group",
                name_of(dtype), n, max_exact_product_ranks(dtype),
                max_exact_product_ranks(dtype) == 1 ? "" : "s",
                max_exact_product_ranks(DType::kFloat64)));
          for (std::uint64_t bytes : config_.sizes) {
            const std::uint64_t elements =
                reported_bytes(op, chunk_elements(op, bytes, dtype, n), dtype, n) / size_of(dtype);
            if (elements > backend.max_elements())
              throw UsageError(fmt::format(
                  "sizes: {} of {} on {} ranks needs {} elements in one buffer, more than the {} "
                  "backend takes in one call ({}); use a smaller largest size or a wider dtype",
                  format_bytes(bytes), name_of(op), n, elements, backend.name(),
                  backend.max_elements()));
          }
        }
  }

  // A backend without an out-of-place form of a collective runs it in place, once; one without
  // an in-place form, out of place, once.
  std::vector<bool> placements_of(const CommBackend& backend, Collective op) const {
    if (!backend.supports_out_of_place(op)) return {true};
    if (!backend.supports_in_place(op)) return {false};
    return config_.placements;
  }

  // The backend that runs, decided once (collective: every rank asks the same question), and
  // why it cannot run here, if it cannot.
  struct Resolved {
    std::shared_ptr<CommBackend> backend;
    std::string unavailable;
  };
  const Resolved& resolve(const RankContext& ctx) const {
    if (resolved_) return *resolved_;
    BackendSettings settings;
    settings.world = ctx.world;
    settings.cuda_graph = config_.cuda_graph;
    settings.registration =
        registration_names().parse(config_.registration).value_or(Registration::kOff);
    settings.abort_after_s = config_.abort_after_s;
    const bool automatic = config_.backend == kAutoBackend;
    Resolved r;
    r.backend = make_backend(automatic ? "nccl" : config_.backend, settings);
    r.unavailable = r.backend->unavailable(ctx.world);
    if (automatic && !r.unavailable.empty()) {
      r.backend = make_backend("mpi", settings);
      r.unavailable.clear();
    }
    resolved_ = std::move(r);
    return *resolved_;
  }

  CommConfig config_;
  mutable std::optional<Resolved> resolved_;
};

}  // namespace

std::unique_ptr<Family> make_comm_family() {
  return std::make_unique<CommFamily>();
}

}  // namespace preflight::comm
