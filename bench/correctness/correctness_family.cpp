#include "correctness/correctness_family.hpp"

#include <fmt/format.h>

#include "comm/backend.hpp"
#include "correctness/collective_checks.hpp"
#include "correctness/correctness_config.hpp"
#include "correctness/gemm_checks.hpp"
#include "harness/config/options.hpp"
#include "matmul/backend.hpp"
#include "preflight/schema/correctness.hpp"
#include "preflight/schema/family_names.hpp"

namespace preflight::correctness {
namespace {

namespace sc = schema::correctness;

constexpr std::string_view kAuto = "auto";

std::vector<std::string> with_auto(std::vector<std::string> names) {
  names.emplace_back(kAuto);
  return names;
}

const OptionTable<CorrectnessConfig>& options_table() {
  using C = CorrectnessConfig;
  static const OptionTable<C> table({
      opt::names(
          {.key = "checks",
           .flags = "--checks",
           .help = "Which checks run",
           .default_value = "gemm,collective"},
          &C::checks,
          std::vector<std::string>{std::string(sc::kCheckGemm), std::string(sc::kCheckCollective)}),
      opt::integer({.key = "events_kept",
                    .flags = "--events-kept",
                    .help = "Wrong results each rank records in detail per point (all are counted)",
                    .default_value = "16"},
                   &C::events_kept, 1, 4096),
      opt::one_of({.key = "gemm_backend",
                   .flags = "--gemm-backend",
                   .help = "GEMM library of the determinism check (auto: cublaslt where every "
                           "rank has a GPU, else openblas)",
                   .default_value = "auto"},
                  &C::gemm_backend, with_auto(matmul::backend_names())),
      opt::names({.key = "dtypes",
                  .flags = "-d,--dtype",
                  .help = "GEMM element types (a backend runs those its device has)",
                  .default_value = "float32"},
                 &C::dtypes, matmul::kDTypeNames, "all"),
      opt::integers({.key = "sizes",
                     .flags = "--sizes",
                     .help = "Square GEMM sizes m = n = k, one point each; none: only shapes",
                     .default_value = "256,1024"},
                    &C::sizes, 1, 65536),
      opt::text({.key = "shapes",
                 .flags = "--shapes",
                 .help = "GEMM shapes MxNxK, comma-separated, e.g. 4096x11008x4096",
                 .default_value = "",
                 .record = "shapes"},
                &C::shapes_text),
      opt::integer({.key = "threads",
                    .flags = "--threads",
                    .help = "BLAS threads per rank, fixed for the whole run (the result may "
                            "depend on it); 0: the host's CPUs shared among its ranks",
                    .default_value = "0"},
                   &C::threads, 0, 4096),
      opt::integer({.key = "seed",
                    .flags = "--seed",
                    .help = "Seed of the GEMM inputs, the same on every rank",
                    .default_value = "1"},
                   &C::seed, 0, std::int64_t{1} << 52),
      opt::one_of({.key = "comm_backend",
                   .flags = "--comm-backend",
                   .help = "Communication library of the collective sweep (auto: nccl where "
                           "every rank has a GPU, else mpi)",
                   .default_value = "auto"},
                  &C::comm_backend, with_auto(comm::backend_names())),
      opt::names({.key = "collectives",
                  .flags = "--collectives",
                  .help = "Collectives swept",
                  .default_value = "allreduce,allgather"},
                 &C::collectives, comm::collective_names(), "all"),
      opt::text({.key = "algorithms",
                 .flags = "--algorithms",
                 .help = "Algorithms swept, comma-separated (Open MPI tuned's names, NCCL_ALGO's "
                         "values), or all: every one the library offers",
                 .default_value = "all"},
                &C::algorithms),
      opt::text({.key = "protocols",
                 .flags = "--protocols",
                 .help = "NCCL protocols swept (NCCL_PROTO's values), comma-separated, or all",
                 .default_value = "all"},
                &C::protocols),
      opt::names({.key = "comm_dtypes",
                  .flags = "--comm-dtypes",
                  .help = "Element types of the collective sweep",
                  .default_value = "float32"},
                 &C::comm_dtypes, comm::dtype_names()),
      opt::sizes({.key = "comm_sizes",
                  .flags = "--comm-sizes",
                  .help = "Sizes of the collective sweep: a sweep 8:1M:x16 or a list",
                  .default_value = "8:1M:x16"},
                 &C::comm_sizes),
  });
  return table;
}

bool has(const CorrectnessConfig& c, std::string_view check) {
  for (const auto& x : c.checks)
    if (x == check) return true;
  return false;
}

class CorrectnessFamily final : public Family {
 public:
  std::string name() const override { return std::string(schema::kCorrectnessFamily); }
  std::string summary() const override {
    return "silent data corruption: the same GEMMs on every device compared bit for bit, and "
           "each collective algorithm's full result checked every iteration; the device that "
           "disagrees is named";
  }
  std::vector<OptionSpec> options() const override { return options_table().specs(); }

  void configure(const ConfigNode& entry) override {
    CorrectnessConfig c;
    options_table().read(entry, c);
    if (c.checks.empty()) entry.fail("checks", "gemm, collective or both", "an empty list");
    if (has(c, sc::kCheckGemm)) check_gemm_config(entry, c);
    if (has(c, sc::kCheckCollective)) check_collective_config(entry, c);
    config_ = c;
  }

  nlohmann::json config() const override { return options_table().json(config_); }

  std::vector<std::string> skipped(const RankContext& ctx) const override {
    std::vector<std::string> out;
    if (has(config_, sc::kCheckGemm))
      for (auto& s : skipped_gemm_checks(config_, ctx)) out.push_back(std::move(s));
    if (has(config_, sc::kCheckCollective))
      for (auto& s : skipped_collective_checks(config_, ctx)) out.push_back(std::move(s));
    return out;
  }

  std::vector<std::unique_ptr<Case>> make_cases(const RankContext& ctx) override {
    std::vector<std::unique_ptr<Case>> cases;
    if (has(config_, sc::kCheckGemm))
      for (auto& c : make_gemm_checks(config_, ctx)) cases.push_back(std::move(c));
    if (has(config_, sc::kCheckCollective))
      for (auto& c : make_collective_checks(config_, ctx)) cases.push_back(std::move(c));
    return cases;
  }

 private:
  CorrectnessConfig config_;
};

}  // namespace

std::unique_ptr<Family> make_correctness_family() {
  return std::make_unique<CorrectnessFamily>();
}

}  // namespace preflight::correctness
