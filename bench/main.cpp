// preflight: one MPI launch, one campaign of benchmarks, one results file.
#include <mpi.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "families.hpp"
#include "harness/console_sink.hpp"
#include "harness/duration.hpp"
#include "harness/environment.hpp"
#include "harness/exit_codes.hpp"
#include "harness/hdf5_sink.hpp"
#include "harness/runner.hpp"
#include "harness/usage_error.hpp"
#include "preflight/schema/h5.hpp"

namespace preflight {
namespace {

// Before MPI_Init the launcher's environment says which rank this is, so a bad argument is
// reported once, not once per rank.
bool launched_as_rank_zero() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* v = std::getenv(name)) return std::string(v) == "0";
  return true;
}

struct CommonOptions {
  int ranks_per_node = 0;
  std::string output;
  std::string budget = "0.2s";
  TimingOptions timing;
};

void add_common_options(CLI::App& cmd, CommonOptions& o) {
  cmd.add_option("--ranks-per-node", o.ranks_per_node,
                 "Group every N consecutive ranks into a virtual node (0: group by host)")
      ->capture_default_str();
  cmd.add_option("-o,--output", o.output, "Write the results to this HDF5 file (must not exist)");
  cmd.add_option("-w,--warmup", o.timing.warmup, "Untimed operations per size before timing")
      ->capture_default_str();
  cmd.add_option("-n,--iters", o.timing.max_iterations, "Timed iterations per size at most")
      ->capture_default_str();
  cmd.add_option("--min-iters", o.timing.min_iterations, "Timed iterations per size at least")
      ->capture_default_str();
  cmd.add_option("--budget", o.budget,
                 "Time for the per-iteration phase of each size (0.5s, 200ms)")
      ->capture_default_str();
  cmd.add_option("--batch-blocks", o.timing.batch_blocks, "Back-to-back timed blocks per size")
      ->capture_default_str();
  cmd.add_option("--test-corrupt-rank", o.timing.corrupt_rank,
                 "Testing only: this rank damages its result before the check")
      ->group("");  // hidden from --help
}

void validate(CommonOptions& o) {
  o.timing.budget_s = parse_duration(o.budget, "--budget");
  preflight::validate(o.timing);
  if (o.ranks_per_node < 0)
    throw UsageError(
        fmt::format("--ranks-per-node: expected 0 or more, found {}", o.ranks_per_node));
}

std::string command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + std::string(argv[i]);
  return line;
}

void print_environment(const std::vector<RankEnvironment>& env) {
  fmt::print("{:>5} {:<20} {:>4} {:>5} {:<28} {:>5} {:>8} {:<22} {:<16} {}\n", "rank", "host",
             "node", "local", "cpu", "cores", "mem(GiB)", "kernel", "mpi", "gpu");
  for (const auto& e : env) {
    const std::string gpu =
        e.gpu_count > 0 ? fmt::format("{} {} (driver {}, CUDA {}, NCCL {})", e.gpu_model,
                                      e.gpu_uuid, e.gpu_driver, e.cuda_runtime, e.nccl_version)
                        : fmt::format("none ({})", e.gpu_note);
    fmt::print("{:>5} {:<20} {:>4} {:>5} {:<28.28} {:>5} {:>8.1f} {:<22.22} {:<16.16} {}\n", e.rank,
               e.host, e.node, e.local_rank, e.cpu_model, e.cpu_cores,
               static_cast<double>(e.memory_bytes) / (1 << 30), e.kernel, e.mpi_library, gpu);
  }
}

// Rank 0 creates the results file; every rank learns whether that worked, so a bad path ends
// the job cleanly on all ranks before anything runs.
std::unique_ptr<Hdf5Sink> open_results(const CommonOptions& o, const RunInfo& run,
                                       const std::vector<RankEnvironment>& env,
                                       const RankContext& ctx) {
  std::unique_ptr<Hdf5Sink> sink;
  std::string error;
  if (ctx.is_root() && !o.output.empty()) {
    const std::filesystem::path path(o.output);
    const auto parent = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    if (std::filesystem::exists(path))
      error = fmt::format("'{}' already exists", o.output);
    else if (!std::filesystem::is_directory(parent))
      error = fmt::format("directory '{}' does not exist", parent.string());
    else
      try {
        sink = std::make_unique<Hdf5Sink>(o.output, run, env);
      } catch (const h5::Error& e) {
        error = e.what();
      }
  }
  int failed = error.empty() ? 0 : 1;
  MPI_Bcast(&failed, 1, MPI_INT, 0, ctx.world);
  if (failed)
    throw UsageError(
        fmt::format("--output: {}; choose a new file name (preflight never overwrites results)",
                    ctx.is_root() ? error : std::string("cannot create the results file")));
  return sink;
}

int run_family(Family& family, CommonOptions& o, const std::string& line, const RankContext& ctx) {
  if (o.timing.corrupt_rank >= ctx.size)
    throw UsageError(fmt::format("--test-corrupt-rank: expected a rank below {}, found {}",
                                 ctx.size, o.timing.corrupt_rank));
  auto cases = family.make_cases(ctx);
  const auto env = gather_environment(ctx);
  const nlohmann::json config = {{"family", family.name()},
                                 {family.name(), family.config()},
                                 {"timing",
                                  {{"warmup", o.timing.warmup},
                                   {"min_iterations", o.timing.min_iterations},
                                   {"max_iterations", o.timing.max_iterations},
                                   {"budget_s", o.timing.budget_s},
                                   {"batch_blocks", o.timing.batch_blocks}}},
                                 {"ranks_per_node", o.ranks_per_node}};
  const RunInfo run{line, config.dump(), utc_timestamp(), ctx.size, ctx.node_count};
  auto file = open_results(o, run, env, ctx);
  ConsoleSink console(stdout);
  std::vector<ResultSink*> sinks;
  if (ctx.is_root()) {
    fmt::print("# preflight {} · {} ranks on {} node{} · results: {}\n", family.name(), ctx.size,
               ctx.node_count, ctx.node_count == 1 ? "" : "s",
               o.output.empty() ? "not written (no -o)" : o.output);
    sinks.push_back(&console);
    if (file) sinks.push_back(file.get());
  }
  return run_cases(cases, ctx, o.timing, sinks);
}

int run_with_mpi(int argc, char** argv, Family* family, CommonOptions& o, bool env_only) {
  MPI_Init(&argc, &argv);
  int code = exit_code::kSuccess;
  {
    const RankContext ctx = make_rank_context(MPI_COMM_WORLD, o.ranks_per_node);
    try {
      if (env_only) {
        const auto env = gather_environment(ctx);
        if (ctx.is_root()) print_environment(env);
      } else {
        code = run_family(*family, o, command_line(argc, argv), ctx);
      }
    } catch (const UsageError& e) {
      // Every rank meets the same bad input at the same point: all end here together.
      if (ctx.is_root()) fmt::print(stderr, "preflight: {}\n", e.what());
      code = exit_code::kBadInput;
    } catch (const std::exception& e) {
      fmt::print(stderr, "preflight: internal error on rank {} ({}): {}\n", ctx.rank, ctx.host,
                 e.what());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, exit_code::kInternalError);
    }
  }
  MPI_Finalize();
  return code;
}

int main_impl(int argc, char** argv) {
  h5::silence_library_errors();
  CLI::App app{
      "preflight: is this cluster fit for a large training run? Run under mpirun or srun."};
  app.require_subcommand(1);
  app.set_version_flag("--version",
                       std::string(PREFLIGHT_VERSION) + " (" + PREFLIGHT_GIT_REVISION + ")");
  CommonOptions common;
  CLI::App* env =
      app.add_subcommand("env", "Print where each rank runs: host, node, CPU, memory, MPI, GPU");
  env->add_option("--ranks-per-node", common.ranks_per_node,
                  "Group every N consecutive ranks into a virtual node");
  auto families = make_families();
  std::vector<std::pair<CLI::App*, Family*>> commands;
  for (auto& f : families) {
    CLI::App* cmd = app.add_subcommand(f->name(), f->summary());
    f->add_options(*cmd);
    add_common_options(*cmd, common);
    commands.emplace_back(cmd, f.get());
  }
  const bool rank_zero = launched_as_rank_zero();
  Family* chosen = nullptr;
  try {
    app.parse(argc, argv);
    for (auto& [cmd, f] : commands)
      if (cmd->parsed()) chosen = f;
    validate(common);
    if (chosen) chosen->validate();
  } catch (const CLI::CallForHelp& e) {
    return rank_zero ? app.exit(e) : 0;
  } catch (const CLI::CallForVersion& e) {
    return rank_zero ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    if (rank_zero)
      fmt::print(stderr, "preflight: {}\nRun 'preflight --help' for the options.\n", e.what());
    return exit_code::kBadInput;
  } catch (const UsageError& e) {
    if (rank_zero) fmt::print(stderr, "preflight: {}\n", e.what());
    return exit_code::kBadInput;
  }
  return run_with_mpi(argc, argv, chosen, common, env->parsed());
}

}  // namespace
}  // namespace preflight

int main(int argc, char** argv) {
  return preflight::main_impl(argc, argv);
}
