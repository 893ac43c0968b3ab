// The GEMM determinism check's cases (docs/correctness.md): which backend (auto: cuBLASLt where
// every rank has a GPU, else OpenBLAS), which dtypes it runs, the classes of ranks compared (same
// device model and library, OpenBLAS's thread count, cuBLASLt's SM count and driver, exchanged
// once here), and one case per dtype.
#include "correctness/gemm_checks.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include "correctness/gemm_check_case.hpp"
#include "correctness/gemm_verdict.hpp"
#include "harness/run/mpi_strings.hpp"
#include "matmul/backend.hpp"
#include "matmul/shape_list.hpp"
#include "telemetry/rank_threads.hpp"

namespace preflight::correctness {
namespace gemm_check {

constexpr std::string_view kAuto = "auto";

// This rank's view of `auto`: cuBLASLt where its GPU can run it.
std::string local_backend_name(const CorrectnessConfig& config, int local_rank) {
  if (config.gemm_backend != kAuto) return config.gemm_backend;
  return matmul::make_backend("cublaslt", local_rank)->unavailable().empty() ? "cublaslt"
                                                                             : "openblas";
}

std::vector<matmul::Shape> points_of(const CorrectnessConfig& config) {
  std::vector<matmul::Shape> out;
  for (int n : config.sizes) out.push_back({n, n, n});
  for (const auto& s : config.shapes) out.push_back(s);
  return out;
}

// The cases' own communicator (their hash exchange and result fetches never meet the harness's
// messages), freed with the last case unless MPI is already finalised.
std::shared_ptr<MPI_Comm> own_communicator(MPI_Comm world) {
  auto comm = std::shared_ptr<MPI_Comm>(new MPI_Comm(MPI_COMM_NULL), [](MPI_Comm* c) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && *c != MPI_COMM_NULL) MPI_Comm_free(c);
    delete c;
  });
  MPI_Comm_dup(world, comm.get());
  return comm;
}

}  // namespace gemm_check

void check_gemm_config(const ConfigNode& entry, CorrectnessConfig& config) {
  if (entry.has("shapes")) config.shapes = matmul::parse_shapes(config.shapes_text, entry);
  if (config.sizes.empty() && config.shapes.empty())
    entry.fail("sizes", "at least one square size or one of shapes for the gemm check", "neither");
}

std::vector<std::unique_ptr<Case>> make_gemm_checks(const CorrectnessConfig& config,
                                                    const RankContext& ctx) {
  std::vector<std::unique_ptr<Case>> cases;
  // auto: cuBLASLt only where every rank has a GPU.
  std::string name = gemm_check::local_backend_name(config, ctx.local_rank);
  if (config.gemm_backend == gemm_check::kAuto) {
    int gpu = name == "cublaslt" ? 1 : 0, every = 0;
    MPI_Allreduce(&gpu, &every, 1, MPI_INT, MPI_MIN, ctx.world);
    name = every ? "cublaslt" : "openblas";
  }
  auto backend = matmul::make_backend(name, ctx.local_rank);
  int missing = backend->unavailable().empty() ? 0 : 1, any_missing = 0;
  MPI_Allreduce(&missing, &any_missing, 1, MPI_INT, MPI_MAX, ctx.world);
  if (any_missing) return cases;  // skipped_gemm_checks says why
  const int threads = backend->on_gpu() ? 1 : telemetry::chosen_threads(ctx, config.threads);
  const std::string library = backend->deterministic_library();
  // The class: what must match for bit-identical results (device model, library, and the
  // backend's own: OpenBLAS's thread count, cuBLASLt's SM count and driver).
  std::string key = library + " | " + backend->device_model();
  if (const std::string more = backend->determinism_class(threads); !more.empty())
    key += " | " + more;
  const auto keys = all_gather_strings(ctx.world, key);
  GemmCheckSpec spec;
  spec.shapes = gemm_check::points_of(config);
  spec.threads = threads;
  spec.seed = config.seed;
  spec.events_kept = config.events_kept;
  spec.library = library;
  spec.determinism = backend->determinism(threads);
  spec.class_of = classes_of(keys);
  spec.compare_classes = describe_classes(keys, spec.class_of);
  auto comm = gemm_check::own_communicator(ctx.world);
  for (matmul::DType d : config.dtypes) {
    // Every rank makes the same cases: a dtype any rank's device lacks is left out.
    int runs = backend->supports(d) ? 1 : 0, everywhere = 0;
    MPI_Allreduce(&runs, &everywhere, 1, MPI_INT, MPI_MIN, ctx.world);
    if (!everywhere) continue;
    spec.dtype = d;
    cases.push_back(std::make_unique<GemmCheckCase>(spec, backend, comm, ctx.rank));
  }
  return cases;
}

std::vector<std::string> skipped_gemm_checks(const CorrectnessConfig& config,
                                             const RankContext& ctx) {
  std::vector<std::string> out;
  const std::string name = gemm_check::local_backend_name(config, ctx.local_rank);
  const auto backend = matmul::make_backend(name, ctx.local_rank);
  if (const std::string why = backend->unavailable(); !why.empty()) {
    out.push_back(
        fmt::format("gemm check, backend {}: {}; every gemm check of it left out", name, why));
    return out;
  }
  for (matmul::DType d : config.dtypes)
    if (!backend->supports(d))
      out.push_back(fmt::format("gemm check, dtype {}: backend {} does not run it on this device",
                                matmul::kDTypeNames.name(d), name));
  return out;
}

}  // namespace preflight::correctness
