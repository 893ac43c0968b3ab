#include "comm/comm_family.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "comm/backend.hpp"
#include "comm/collective_case.hpp"
#include "harness/sizes.hpp"
#include "harness/usage_error.hpp"

namespace preflight::comm {
namespace {

// The family's configuration after reading and checking.
struct CommConfig {
  std::string backend = "mpi";
  std::vector<Collective> ops = {Collective::kAllReduce};
  std::vector<DType> dtypes = {DType::kFloat32};
  std::vector<RedOp> redops = {RedOp::kSum};
  std::vector<Topology> topologies = {Topology::kWorld};
  std::vector<bool> placements = {false};
  std::vector<std::uint64_t> sizes;
};

template <typename T, typename Lookup>
std::vector<T> read_names(const ConfigNode& entry, const std::string& key,
                          const std::vector<std::string>& fallback, Lookup lookup,
                          const std::string& allowed) {
  std::vector<T> out;
  for (const auto& n : entry.string_list(key, fallback)) {
    const auto v = lookup(n);
    if (!v) entry.fail(key, "one of " + allowed, "'" + n + "'");
    if (std::find(out.begin(), out.end(), *v) == out.end()) out.push_back(*v);
  }
  return out;
}

std::vector<bool> read_placements(const ConfigNode& entry) {
  const std::string p = entry.string("placement", "out-of-place");
  if (p == "out-of-place") return {false};
  if (p == "in-place") return {true};
  if (p == "both") return {false, true};
  entry.fail("placement", "out-of-place, in-place or both", "'" + p + "'");
}

// `sizes` as a sweep or list, or nccl-tests' min_bytes/max_bytes/step_factor/step_bytes.
std::vector<std::uint64_t> read_sizes(const ConfigNode& entry) {
  const bool by_range = entry.has("min_bytes") || entry.has("max_bytes") ||
                        entry.has("step_factor") || entry.has("step_bytes");
  try {
    if (entry.has("sizes")) {
      if (by_range) entry.fail("sizes", "either sizes or min_bytes/max_bytes/step_*", "both");
      return parse_sweep(entry.string("sizes", ""), entry.where("sizes"));
    }
    SweepSpec spec;
    spec.min_bytes = parse_size(entry.string("min_bytes", "8"), entry.where("min_bytes"));
    spec.max_bytes = parse_size(entry.string("max_bytes", "16M"), entry.where("max_bytes"));
    spec.step = parse_size(entry.string("step_bytes", "0"), entry.where("step_bytes"));
    const double factor = entry.number("step_factor", 2, 1, 1e6);
    spec.factor = spec.step > 0 ? 0 : factor;  // a step in bytes, when given, wins
    return expand_sweep(spec, entry.where(entry.has("max_bytes") ? "max_bytes" : "min_bytes"));
  } catch (const YAML::Exception& e) {
    throw UsageError(fmt::format("{}: {}", entry.where(), e.what()));
  }
}

class CommFamily final : public Family {
 public:
  std::string name() const override { return "comm"; }
  std::string summary() const override {
    return "collectives (all-reduce, all-gather, ...) across topologies";
  }

  std::vector<OptionSpec> options() const override {
    return {
        {"backend", "--backend",
         fmt::format("Communication library: {} (mpi)", fmt::join(backend_names(), ", ")), false},
        {"ops", "--op", "Collectives: " + names_of_collectives() + ", or all (allreduce)", true},
        {"dtypes", "-d,--dtype", "Element types: " + names_of_dtypes() + " (float32)", true},
        {"redops", "--redop", "Reductions: " + names_of_redops() + " (sum)", true},
        {"topologies", "--topology", "Groupings: " + names_of_topologies() + " (world)", true},
        {"placement", "--placement", "out-of-place, in-place or both (out-of-place)", false},
        {"sizes", "--sizes", "Sizes: a sweep 8:1M:x2 or 0:64K:+8K, or a list 8,1K,1M", false},
        {"min_bytes", "-b,--min-bytes", "Smallest size; K/M/G are powers of 1024 (8)", false},
        {"max_bytes", "-e,--max-bytes", "Largest size (16M)", false},
        {"step_factor", "-f,--step-factor", "Multiply the size by this each step (2)", false},
        {"step_bytes", "-i,--step-bytes", "Add this to the size each step instead", false},
    };
  }

  void configure(const ConfigNode& entry) override {
    CommConfig c;
    c.backend = entry.string("backend", "mpi");
    if (!make_backend(c.backend))
      entry.fail("backend", fmt::format("one of {}", fmt::join(backend_names(), ", ")),
                 "'" + c.backend + "'");
    const auto ops = entry.string_list("ops", {"allreduce"});
    c.ops = ops.size() == 1 && ops.front() == "all"
                ? all_collectives()
                : read_names<Collective>(entry, "ops", {"allreduce"}, collective_named,
                                         names_of_collectives() + " or all");
    c.dtypes = read_names<DType>(entry, "dtypes", {"float32"}, dtype_named, names_of_dtypes());
    c.redops = read_names<RedOp>(entry, "redops", {"sum"}, redop_named, names_of_redops());
    c.topologies =
        read_names<Topology>(entry, "topologies", {"world"}, topology_named, names_of_topologies());
    c.placements = read_placements(entry);
    c.sizes = read_sizes(entry);
    config_ = c;
  }

  nlohmann::json config() const override {
    auto names = [](const auto& values) {
      std::vector<std::string> out;
      for (const auto& v : values) out.emplace_back(name_of(v));
      return out;
    };
    std::vector<std::string> placements;
    for (bool p : config_.placements) placements.emplace_back(p ? "in-place" : "out-of-place");
    return {{"backend", config_.backend},
            {"ops", names(config_.ops)},
            {"dtypes", names(config_.dtypes)},
            {"redops", names(config_.redops)},
            {"topologies", names(config_.topologies)},
            {"placements", placements},
            {"sizes", config_.sizes}};
  }

  std::vector<std::unique_ptr<Case>> make_cases(const RankContext& ctx) override {
    std::shared_ptr<CommBackend> backend = make_backend(config_.backend);
    std::vector<std::unique_ptr<Case>> cases;
    for (Topology t : config_.topologies)
      for (auto& layout :
           make_layouts(t, ctx.node_of_rank, ctx.local_rank_of_rank, ctx.node_count)) {
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
  // Every rank checks every group's buffers before any case runs, so a size too large for
  // the backend is bad input (exit 2, nothing run), not a failure hours into the run.
  void check_fits(const CommBackend& backend, const Layout& layout) const {
    std::map<int, int> group_sizes;
    for (int g : layout.group_of_rank)
      if (g >= 0) ++group_sizes[g];
    for (const auto& [group, n] : group_sizes)
      for (Collective op : config_.ops)
        for (DType dtype : config_.dtypes)
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

  // A backend without an out-of-place form of a collective runs it in place, once.
  std::vector<bool> placements_of(const CommBackend& backend, Collective op) const {
    if (backend.supports_out_of_place(op)) return config_.placements;
    return {true};
  }

  CommConfig config_;
};

}  // namespace

std::unique_ptr<Family> make_comm_family() {
  return std::make_unique<CommFamily>();
}

}  // namespace preflight::comm
