#include "comm/comm_family.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include "comm/backend.hpp"
#include "comm/collective_case.hpp"
#include "harness/sizes.hpp"
#include "harness/usage_error.hpp"

namespace preflight::comm {
namespace {

struct CommOptions {
  std::string backend = "mpi";
  std::vector<std::string> ops = {"allreduce"};
  std::vector<std::string> dtypes = {"float32"};
  std::vector<std::string> redops = {"sum"};
  std::vector<std::string> topologies = {"world"};
  std::string placement = "out-of-place";
  std::string sizes;  // a written sweep; when empty, -b/-e/-f/-i
  std::string min_bytes = "8";
  std::string max_bytes = "16M";
  double factor = 2;
  std::string step = "0";
};

template <typename T, typename Lookup>
std::vector<T> resolve(const std::vector<std::string>& names, Lookup lookup,
                       std::string_view option, const std::string& allowed) {
  std::vector<T> out;
  for (const auto& n : names) {
    const auto v = lookup(n);
    if (!v) throw UsageError(fmt::format("{}: expected one of {}, found '{}'", option, allowed, n));
    if (std::find(out.begin(), out.end(), *v) == out.end()) out.push_back(*v);
  }
  if (out.empty())
    throw UsageError(fmt::format("{}: expected at least one of {}, found none", option, allowed));
  return out;
}

std::vector<Collective> resolve_ops(const std::vector<std::string>& names) {
  if (names.size() == 1 && names.front() == "all") return all_collectives();
  return resolve<Collective>(names, collective_named, "--op", names_of_collectives() + " or all");
}

std::vector<bool> resolve_placements(const std::string& placement) {
  if (placement == "out-of-place") return {false};
  if (placement == "in-place") return {true};
  if (placement == "both") return {false, true};
  throw UsageError(
      fmt::format("--placement: expected out-of-place, in-place or both, found '{}'", placement));
}

class CommFamily final : public Family {
 public:
  std::string name() const override { return "comm"; }
  std::string summary() const override {
    return "collectives (all-reduce, all-gather, ...) across topologies";
  }

  void add_options(CLI::App& cmd) override {
    cmd.add_option("--backend", o_.backend,
                   fmt::format("Communication library: {}", fmt::join(backend_names(), ", ")))
        ->capture_default_str();
    cmd.add_option("--op", o_.ops, "Collectives: " + names_of_collectives() + ", or all")
        ->delimiter(',')
        ->capture_default_str();
    cmd.add_option("-d,--dtype", o_.dtypes, "Element types: " + names_of_dtypes())
        ->delimiter(',')
        ->capture_default_str();
    cmd.add_option("--redop", o_.redops, "Reductions: " + names_of_redops())
        ->delimiter(',')
        ->capture_default_str();
    cmd.add_option("--topology", o_.topologies, "Groupings: " + names_of_topologies())
        ->delimiter(',')
        ->capture_default_str();
    cmd.add_option("--placement", o_.placement, "out-of-place, in-place or both")
        ->capture_default_str();
    cmd.add_option(
        "--sizes", o_.sizes,
        "Sizes as a sweep (8:1M:x2, 0:64K:+8K) or a list (8,1K,1M); replaces -b/-e/-f/-i");
    cmd.add_option("-b,--min-bytes", o_.min_bytes, "Smallest size (K/M/G = 1024-based)")
        ->capture_default_str();
    cmd.add_option("-e,--max-bytes", o_.max_bytes, "Largest size")->capture_default_str();
    cmd.add_option("-f,--step-factor", o_.factor, "Multiply the size by this each step")
        ->capture_default_str();
    cmd.add_option("-i,--step-bytes", o_.step,
                   "Add this to the size each step instead of multiplying")
        ->capture_default_str();
  }

  void validate() const override {
    if (!make_backend(o_.backend))
      throw UsageError(fmt::format("--backend: expected one of {}, found '{}'",
                                   fmt::join(backend_names(), ", "), o_.backend));
    resolve_ops(o_.ops);
    resolve<DType>(o_.dtypes, dtype_named, "--dtype", names_of_dtypes());
    resolve<RedOp>(o_.redops, redop_named, "--redop", names_of_redops());
    resolve<Topology>(o_.topologies, topology_named, "--topology", names_of_topologies());
    resolve_placements(o_.placement);
    sizes();
  }

  nlohmann::json config() const override {
    return {{"backend", o_.backend},
            {"ops", o_.ops},
            {"dtypes", o_.dtypes},
            {"redops", o_.redops},
            {"topologies", o_.topologies},
            {"placement", o_.placement},
            {"sizes", sizes()}};
  }

  std::vector<std::unique_ptr<Case>> make_cases(const RankContext& ctx) override {
    backend_ = make_backend(o_.backend);
    const auto ops = resolve_ops(o_.ops);
    const auto dtypes = resolve<DType>(o_.dtypes, dtype_named, "--dtype", names_of_dtypes());
    const auto redops = resolve<RedOp>(o_.redops, redop_named, "--redop", names_of_redops());
    const auto topologies =
        resolve<Topology>(o_.topologies, topology_named, "--topology", names_of_topologies());
    const auto placements = resolve_placements(o_.placement);
    const auto sweep = sizes();
    std::vector<std::unique_ptr<Case>> cases;
    for (Topology t : topologies)
      for (auto& layout :
           make_layouts(t, ctx.node_of_rank, ctx.local_rank_of_rank, ctx.node_count)) {
        auto groups = std::make_shared<GroupSet>(std::move(layout), ctx, *backend_);
        for (Collective op : ops)
          for (DType dtype : dtypes)
            for (RedOp redop : reduces(op) ? redops : std::vector<RedOp>{RedOp::kSum})
              for (bool in_place : placements_of(op, placements))
                cases.push_back(std::make_unique<CollectiveCase>(
                    CollectiveSpec{op, dtype, redop, in_place}, groups, sweep, *backend_));
      }
    return cases;
  }

 private:
  std::vector<std::uint64_t> sizes() const {
    if (!o_.sizes.empty()) return parse_sweep(o_.sizes, "--sizes");
    SweepSpec spec;
    spec.min_bytes = parse_size(o_.min_bytes, "--min-bytes");
    spec.max_bytes = parse_size(o_.max_bytes, "--max-bytes");
    spec.step = parse_size(o_.step, "--step-bytes");
    spec.factor = spec.step > 0 ? 0 : o_.factor;  // -i, when given, wins over -f
    if (o_.factor < 1)
      throw UsageError(
          fmt::format("--step-factor: expected 1 (use -i) or more, found {}", o_.factor));
    return expand_sweep(spec, "--min-bytes/--max-bytes");
  }

  // A backend without an out-of-place form of a collective runs it in place, once.
  std::vector<bool> placements_of(Collective op, const std::vector<bool>& wanted) const {
    if (backend_->supports_out_of_place(op)) return wanted;
    return {true};
  }

  CommOptions o_;
  std::unique_ptr<CommBackend> backend_;
};

}  // namespace

std::unique_ptr<Family> make_comm_family() {
  return std::make_unique<CommFamily>();
}

}  // namespace preflight::comm
