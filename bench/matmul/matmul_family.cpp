#include "matmul/matmul_family.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "harness/config/options.hpp"
#include "matmul/backend.hpp"
#include "matmul/matmul_case.hpp"
#include "matmul/shape_list.hpp"
#include "preflight/common/usage_error.hpp"
#include "preflight/schema/family_names.hpp"
#include "telemetry/rank_threads.hpp"

namespace preflight::matmul {
namespace {

struct MatmulConfig {
  std::string backend;
  std::vector<DType> dtypes;
  std::vector<int> sizes;
  std::string shapes_text;
  std::string shapes_name;
  int threads = 0;
  int verify_samples = 256;
  double interval_s = 1;
  int fma_units = 0;
  double ghz = 0;
  std::vector<Shape> shapes;  // from shapes_text
};

const OptionTable<MatmulConfig>& options_table() {
  using C = MatmulConfig;
  static const OptionTable<C> table({
      opt::one_of({.key = "backend",
                   .flags = "--backend",
                   .help = "GEMM library",
                   .default_value = "openblas"},
                  &C::backend, backend_names()),
      opt::names({.key = "dtypes",
                  .flags = "-d,--dtype",
                  .help = "Element types (a backend runs those its device has)",
                  .default_value = "float32"},
                 &C::dtypes, kDTypeNames, "all"),
      opt::integers({.key = "sizes",
                     .flags = "--sizes",
                     .help = "Square sizes m = n = k, one point each; none: only shapes",
                     .default_value = "256,512,1024"},
                    &C::sizes, 1, 65536),
      opt::text({.key = "shapes",
                 .flags = "--shapes",
                 .help = "Training-like shapes MxNxK, comma-separated, e.g. 4096x11008x4096",
                 .default_value = "",
                 .record = "shapes"},
                &C::shapes_text),
      opt::text({.key = "shapes_name",
                 .flags = "--shapes-name",
                 .help = "What the shape list is, in the case name",
                 .default_value = "shapes"},
                &C::shapes_name),
      opt::integer({.key = "threads",
                    .flags = "--threads",
                    .help = "BLAS threads per rank; 0: the host's CPUs shared among its ranks",
                    .default_value = "0"},
                   &C::threads, 0, 4096),
      opt::integer({.key = "verify_samples",
                    .flags = "--verify-samples",
                    .help = "Elements of C checked against the long-double reference",
                    .default_value = "256"},
                   &C::verify_samples, 4, 1000000),
      opt::duration({.key = "interval",
                     .flags = "--interval",
                     .help = "Time one row of series/interval_tflops covers",
                     .default_value = "1s"},
                    &C::interval_s, 1e-3, "a duration of at least 1ms"),
      opt::integer({.key = "cpu_fma_units",
                    .flags = "--cpu-fma-units",
                    .help = "FMA units per core for the CPU peak; 0: assume 2 where the CPU has "
                            "FMA (cpuid does not count them)",
                    .default_value = "0"},
                   &C::fma_units, 0, 16),
      opt::number({.key = "cpu_ghz",
                   .flags = "--cpu-ghz",
                   .help = "Clock for the CPU peak; 0: from /sys cpufreq or /proc/cpuinfo",
                   .default_value = "0"},
                  &C::ghz, 0, 10),
  });
  return table;
}

class MatmulFamily final : public Family {
 public:
  std::string name() const override { return std::string(schema::kMatmulFamily); }
  std::string summary() const override {
    return "GEMM throughput of every rank's device at once, verified, against its peak";
  }
  std::vector<OptionSpec> options() const override { return options_table().specs(); }

  void configure(const ConfigNode& entry) override {
    MatmulConfig c;
    options_table().read(entry, c);
    if (entry.has("shapes")) c.shapes = parse_shapes(c.shapes_text, entry);
    if (c.sizes.empty() && c.shapes.empty())
      entry.fail("sizes", "at least one square size or one of shapes", "neither");
    if (entry.has("sizes") && c.sizes.empty() && !entry.has("shapes"))
      entry.fail("sizes", "at least one square size, or shapes", "an empty list");
    config_ = c;
  }

  nlohmann::json config() const override { return options_table().json(config_); }

  std::vector<std::string> skipped(const RankContext& ctx) const override {
    std::vector<std::string> out;
    const auto backend = make_backend(config_.backend, ctx.local_rank);
    if (const std::string why = backend->unavailable(); !why.empty()) {
      out.push_back(
          fmt::format("backend {}: {}; every matmul case of it left out", config_.backend, why));
      return out;
    }
    for (DType d : config_.dtypes)
      if (!backend->supports(d))
        out.push_back(fmt::format("dtype {}: backend {} does not run it on this device; use {}",
                                  kDTypeNames.name(d), config_.backend,
                                  backend->on_gpu() ? "a GPU that has it" : "backend cublaslt"));
    return out;
  }

  std::vector<std::unique_ptr<Case>> make_cases(const RankContext& ctx) override {
    auto backend = make_backend(config_.backend, ctx.local_rank);
    // Every rank makes the same cases: left out when any rank lacks the device.
    int missing = backend->unavailable().empty() ? 0 : 1, any_missing = 0;
    MPI_Allreduce(&missing, &any_missing, 1, MPI_INT, MPI_MAX, ctx.world);
    std::vector<std::unique_ptr<Case>> cases;
    if (any_missing) return cases;
    const int threads = backend->on_gpu() ? 1 : telemetry::chosen_threads(ctx, config_.threads);
    auto telemetry = std::make_shared<const telemetry::TelemetryPlan>(
        telemetry::plan_telemetry(ctx, backend->pci_bus()));
    for (DType d : config_.dtypes) {
      if (!backend->supports(d)) continue;  // see skipped()
      MatmulCaseSpec spec;
      spec.dtype = d;
      spec.threads = threads;
      spec.samples = static_cast<std::size_t>(config_.verify_samples);
      spec.interval_s = config_.interval_s;
      spec.peak = backend->peak(d, {threads, config_.fma_units, config_.ghz, "/"});
      spec.library = backend->library() + backend->dtype_note(d);
      auto add = [&](std::vector<Shape> shapes, std::string label) {
        spec.shapes = std::move(shapes);
        spec.shapes_label = std::move(label);
        cases.push_back(std::make_unique<MatmulCase>(spec, backend, telemetry, ctx.rank, ctx.size));
      };
      if (!config_.sizes.empty()) {
        std::vector<Shape> square;
        for (int n : config_.sizes) square.push_back({n, n, n});
        add(std::move(square), "square");
      }
      if (!config_.shapes.empty()) add(config_.shapes, config_.shapes_name);
    }
    return cases;
  }

 private:
  MatmulConfig config_;
};

}  // namespace

std::unique_ptr<Family> make_matmul_family() {
  return std::make_unique<MatmulFamily>();
}

}  // namespace preflight::matmul
