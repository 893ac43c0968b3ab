// preflight: one MPI launch, one campaign of benchmarks, one results file.
#include <mpi.h>

#include <fmt/format.h>
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "families.hpp"
#include "harness/campaign.hpp"
#include "harness/console_sink.hpp"
#include "harness/environment.hpp"
#include "harness/exit_codes.hpp"
#include "harness/hdf5_sink.hpp"
#include "harness/runner.hpp"
#include "harness/usage_error.hpp"
#include "harness/watchdog.hpp"
#include "preflight/schema/h5.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight {
namespace {

// Before MPI_Init the launcher's environment says which rank this is, so a bad argument is
// reported once, not once per rank.
bool launched_as_rank_zero() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* v = std::getenv(name)) return std::string(v) == "0";
  return true;
}

// What the command line asked for, before MPI starts.
struct Request {
  enum class Kind { kEnv, kRun, kFamily } kind = Kind::kRun;
  std::string config_path;             // run
  YAML::Node built;                    // family command: the campaign its flags describe
  ConfigNode::FlagNames flags;         // family command: YAML path -> flag, for messages
  std::vector<std::string> overrides;  // --set
  std::string output, resume;
  bool dry_run = false;
  int ranks_per_node = 0;  // env
  RunControls controls;    // test-only fault injection
};

const std::vector<std::pair<std::string, std::string>> kTimingFlags = {
    {"warmup", "-w,--warmup"}, {"min_iters", "--min-iters"}, {"max_iters", "-n,--iters"},
    {"budget", "--budget"},    {"precision", "--precision"}, {"batch_blocks", "--batch-blocks"},
    {"timeout", "--timeout"}};

// Help for the timing flags, with the defaults TimingOptions actually has.
std::string timing_help(const std::string& key) {
  const TimingOptions d;
  if (key == "warmup")
    return fmt::format("Untimed operations per size before timing ({})", d.warmup);
  if (key == "min_iters")
    return fmt::format("Timed iterations per size at least ({})", d.min_iterations);
  if (key == "max_iters")
    return fmt::format("Timed iterations per size at most ({})", d.max_iterations);
  if (key == "budget")
    return fmt::format("Time for the per-iteration phase of each size, e.g. 0.5s, 200ms ({:g}s)",
                       d.budget_s);
  if (key == "precision")
    return fmt::format(
        "Stop a size once the median's 95% CI is within +-this, e.g. 0.01; 0 is off ({:g})",
        d.precision);
  if (key == "batch_blocks")
    return fmt::format("Back-to-back timed blocks per size ({})", d.batch_blocks);
  return fmt::format("Watchdog limit for one case, e.g. 60s, 10m ({:g}s)", d.timeout_s);
}

std::string long_flag(const std::string& flags) {
  return flags.substr(flags.rfind(',') + 1);
}

void add_output_options(CLI::App& cmd, Request& r) {
  auto* out = cmd.add_option("-o,--output", r.output,
                             "Write the results to this HDF5 file (must not exist)");
  cmd.add_option("--resume", r.resume,
                 "Complete the campaign in this results file, skipping its finished cases")
      ->excludes(out);
  cmd.add_flag("--dry-run", r.dry_run, "Check the config and list the cases it makes; run nothing");
  cmd.add_option("--test-corrupt-rank", r.controls.corrupt_rank, "")->group("");
  cmd.add_option("--test-hang-rank", r.controls.hang_rank, "")->group("");
  cmd.add_option("--test-hang-case", r.controls.hang_case, "")->group("");
  cmd.add_option("--test-hang-point", r.controls.hang_point, "")->group("");
  cmd.add_option("--test-hang-seconds", r.controls.hang_seconds, "")->group("");
  cmd.add_option("--test-internal-error-rank", r.controls.internal_error_rank, "")->group("");
  cmd.add_option("--test-slow-node", r.controls.slow_node, "")->group("");
  cmd.add_option("--test-slow-factor", r.controls.slow_factor, "")->group("");
}

// The family command's flags, stored as text and turned into a one-benchmark campaign.
struct FamilyFlags {
  std::map<std::string, std::string> scalars;
  std::map<std::string, std::vector<std::string>> lists;
  std::map<std::string, std::string> timing;
  std::string ranks_per_node;
};

void add_family_options(CLI::App& cmd, const Family& family, FamilyFlags& f) {
  for (const auto& o : family.options()) {
    if (o.list)
      cmd.add_option(o.flags, f.lists[o.key], o.help)->delimiter(',');
    else
      cmd.add_option(o.flags, f.scalars[o.key], o.help);
  }
  for (const auto& [key, flags] : kTimingFlags)
    cmd.add_option(flags, f.timing[key], timing_help(key));
  cmd.add_option("--ranks-per-node", f.ranks_per_node,
                 "Group every N consecutive ranks into a virtual node; 0 groups by host (0)");
}

void build_family_campaign(CLI::App& cmd, const Family& family, const FamilyFlags& f, Request& r) {
  auto flags = std::make_shared<std::map<std::string, std::string>>();
  YAML::Node entry;
  entry["name"] = family.name();
  entry["family"] = family.name();
  for (const auto& o : family.options()) {
    if (cmd.count(long_flag(o.flags)) == 0) continue;
    (*flags)["benchmarks[0]." + o.key] = long_flag(o.flags);
    if (o.list) {
      for (const auto& v : f.lists.at(o.key)) entry[o.key].push_back(v);
      if (f.lists.at(o.key).empty()) entry[o.key] = "";
    } else {
      entry[o.key] = f.scalars.at(o.key);
    }
  }
  YAML::Node root;
  for (const auto& [key, flag] : kTimingFlags) {
    if (cmd.count(long_flag(flag)) == 0) continue;
    root["timing"][key] = f.timing.at(key);
    (*flags)["timing." + key] = long_flag(flag);
  }
  if (cmd.count("--ranks-per-node")) {
    root["campaign"]["ranks_per_node"] = f.ranks_per_node;
    (*flags)["campaign.ranks_per_node"] = "--ranks-per-node";
  }
  root["benchmarks"].push_back(entry);
  r.built = root;
  r.flags = flags;
}

std::string command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + std::string(argv[i]);
  return line;
}

// Rank 0 reads the config and shares its text, so every rank parses the very same bytes
// (the file need not be visible from every node) and meets any error at the same point.
std::string shared_config_text(const std::string& path, const RankContext& ctx) {
  std::string text, error;
  if (ctx.is_root()) {
    std::ifstream in(path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    if (!in) error = fmt::format("{}: cannot read the campaign config; check the path", path);
    text = error.empty() ? buffer.str() : "\n" + error;
  }
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, ctx.world);
  text.resize(static_cast<std::size_t>(length));
  MPI_Bcast(text.data(), length, MPI_CHAR, 0, ctx.world);
  if (!text.empty() && text.front() == '\n') throw UsageError(text.substr(1));
  return text;
}

Campaign load_campaign(const Request& r, const RankContext* ctx) {
  YAML::Node root = r.kind == Request::Kind::kRun
                        ? parse_yaml(shared_config_text(r.config_path, *ctx), r.config_path)
                        : YAML::Clone(r.built);
  auto labels = std::make_shared<std::map<std::string, std::string>>();
  if (r.flags) *labels = *r.flags;
  apply_overrides(root, r.overrides, *labels);
  return read_campaign(root, r.kind == Request::Kind::kRun ? r.config_path : "command line",
                       make_family, family_names(), labels);
}

// Cases are made once per variant and benchmark (a variant's environment may change how a
// backend connects) and shared by the repetitions, so communicators are not multiplied.
std::vector<PlannedCase> plan_cases(Campaign& campaign, const RankContext& ctx) {
  std::vector<PlannedCase> once;
  for (const auto& variant : campaign.variants)
    for (auto& b : campaign.benchmarks)
      for (auto& c : b.family->make_cases(ctx))
        once.push_back({std::move(c), b.name, variant.name, 0, &variant.env, b.timing});
  std::vector<PlannedCase> plan;
  for (int rep = 0; rep < campaign.repetitions; ++rep)
    for (const auto& p : once) {
      plan.push_back(p);
      plan.back().repetition = rep;
    }
  return plan;
}

void print_plan(const std::vector<PlannedCase>& plan, const RankContext& ctx) {
  std::size_t points = 0;
  for (const auto& p : plan) {
    const auto& groups = p.c->group_of_rank();
    const long active = std::count_if(groups.begin(), groups.end(), [](int g) { return g >= 0; });
    fmt::print(
        "{:6d}  {:<52} {:>3} sizes  {:>4} of {} ranks  benchmark {} · variant {} · repetition {}\n",
        &p - plan.data(), p.c->name(), p.c->point_count(), active, ctx.size, p.benchmark, p.variant,
        p.repetition);
    points += p.c->point_count();
  }
  fmt::print("# dry run: {} case(s), {} size points, {} ranks on {} node(s); nothing was run\n",
             plan.size(), points, ctx.size, ctx.node_count);
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

// Why a file cannot be resumed by this campaign on this job, or "" when it can.
std::string resume_mismatch(const std::string& path, const ExistingCases& existing,
                            const RunInfo& run, const std::vector<PlannedCase>& plan) {
  if (existing.config != run.config_json)
    return fmt::format(
        "--resume: '{}' was written by a different campaign (config, --set values or "
        "flags differ); resume with exactly the same ones",
        path);
  if (existing.world_size != run.world_size || existing.node_count != run.node_count)
    return fmt::format(
        "--resume: '{}' was written by {} ranks on {} nodes, this job has {} on {}; "
        "resume with the same layout",
        path, existing.world_size, existing.node_count, run.world_size, run.node_count);
  for (std::size_t i = 0; i < existing.finished.size(); ++i)
    if (existing.finished[i] >= plan.size() ||
        plan[existing.finished[i]].c->name() != existing.names[i])
      return fmt::format("--resume: case {} in '{}' is not this campaign's case {}",
                         existing.names[i], path, existing.finished[i]);
  return {};
}

// Rank 0 opens the results file (new, or one to resume); every rank learns whether that
// worked and, on resume, which cases are done, before anything runs.
std::unique_ptr<Hdf5Sink> open_results(const Request& r, const RunInfo& run,
                                       const std::vector<RankEnvironment>& env,
                                       const std::vector<PlannedCase>& plan, const RankContext& ctx,
                                       RunControls& controls) {
  std::unique_ptr<Hdf5Sink> sink;
  std::string error;
  ExistingCases existing;
  if (ctx.is_root() && !r.output.empty()) {
    const std::filesystem::path path(r.output);
    const auto parent = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    if (std::filesystem::exists(path))
      error = fmt::format(
          "--output: '{}' already exists; choose a new file name (preflight never overwrites "
          "results), or --resume it",
          r.output);
    else if (!std::filesystem::is_directory(parent))
      error = fmt::format("--output: directory '{}' does not exist", parent.string());
    else
      try {
        sink = Hdf5Sink::create(r.output, run, env);
      } catch (const h5::Error& e) {
        error = fmt::format("--output: {}", e.what());
      }
  }
  if (ctx.is_root() && !r.resume.empty()) {
    try {
      existing =
          Hdf5Sink::inspect(r.resume);  // changes nothing: a refused resume leaves the file be
      error = resume_mismatch(r.resume, existing, run, plan);
      if (error.empty()) sink = Hdf5Sink::resume(r.resume, run, existing);
    } catch (const h5::Error& e) {
      error = fmt::format("--resume: {}", e.what());
    }
  }
  int failed = error.empty() ? 0 : 1;
  MPI_Bcast(&failed, 1, MPI_INT, 0, ctx.world);
  if (failed) throw UsageError(ctx.is_root() ? error : "cannot open the results file");
  std::vector<std::uint64_t> finished(existing.finished.begin(), existing.finished.end());
  std::uint64_t count = finished.size();
  MPI_Bcast(&count, 1, MPI_UINT64_T, 0, ctx.world);
  finished.resize(count);
  MPI_Bcast(finished.data(), static_cast<int>(count), MPI_UINT64_T, 0, ctx.world);
  int any_failed = existing.any_failed;
  MPI_Bcast(&any_failed, 1, MPI_INT, 0, ctx.world);
  controls.skip.insert(finished.begin(), finished.end());
  controls.earlier_failed = any_failed != 0;
  return sink;
}

int run_request(const Request& r, Campaign& campaign, const RankContext& ctx,
                const std::string& line) {
  RunControls controls = r.controls;
  controls.time_budget_s = campaign.time_budget_s;
  if (controls.corrupt_rank >= ctx.size || controls.hang_rank >= ctx.size)
    throw UsageError(
        fmt::format("--test-corrupt-rank/--test-hang-rank: expected a rank below {}", ctx.size));
  auto plan = plan_cases(campaign, ctx);
  if (r.dry_run) {
    if (ctx.is_root()) print_plan(plan, ctx);
    return exit_code::kSuccess;
  }
  const auto env = gather_environment(ctx);
  const RunInfo run{line, campaign.effective.dump(), utc_timestamp(), ctx.size, ctx.node_count};
  auto file = open_results(r, run, env, plan, ctx, controls);
  ConsoleSink console(stdout);
  std::vector<ResultSink*> sinks;
  if (ctx.is_root()) {
    const std::string where = !r.output.empty()   ? r.output
                              : !r.resume.empty() ? r.resume + " (resumed)"
                                                  : "not written (no -o)";
    fmt::print("# preflight{} · {} case(s){} · {} ranks on {} node{} · results: {}\n",
               campaign.name.empty() ? "" : " " + campaign.name, plan.size(),
               controls.skip.empty() ? "" : fmt::format(", {} already done", controls.skip.size()),
               ctx.size, ctx.node_count, ctx.node_count == 1 ? "" : "s", where);
    sinks.push_back(&console);
    if (file) sinks.push_back(file.get());
  }
  InProgress progress;
  // Runs on rank 0's watchdog thread; ends the process itself, holding the lock, so nothing
  // can touch the sinks after the file is closed. A writer stuck on a hung file system gets
  // 10 s, then the job ends without the last write.
  Watchdog watchdog(ctx, [&](const TimeoutVerdict& verdict) {
    std::unique_lock lock(progress.mutex, std::defer_lock);
    if (lock.try_lock_for(std::chrono::seconds(10))) try {
        const bool same_case = progress.active && progress.record.index ==
                                                      static_cast<std::size_t>(verdict.case_index);
        for (auto* sink : sinks) {
          if (same_case) sink->case_timed_out(progress.record, verdict);
          sink->run_finished(std::string(schema::run_status::kTimeout), exit_code::kTimeout,
                             verdict.message);
        }
        file.reset();  // closes the file
      } catch (const std::exception& e) {
        std::fprintf(stderr, "preflight: could not record the timeout in the results file: %s\n",
                     e.what());
      }
    std::fflush(nullptr);
    _exit(exit_code::kTimeout);
  });
  return run_campaign(plan, ctx, controls, sinks, &watchdog, progress);
}

int run_with_mpi(int argc, char** argv, Request& r) {
  // The watchdog's thread makes no MPI calls; the main thread makes them all.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int code = exit_code::kSuccess;
  {
    const int ranks_per_node = r.kind == Request::Kind::kEnv ? r.ranks_per_node : 0;
    RankContext ctx = make_rank_context(MPI_COMM_WORLD, ranks_per_node);
    try {
      if (r.kind == Request::Kind::kEnv) {
        const auto env = gather_environment(ctx);
        if (ctx.is_root()) print_environment(env);
      } else {
        Campaign campaign = load_campaign(r, &ctx);
        if (campaign.ranks_per_node > 0)
          ctx = make_rank_context(MPI_COMM_WORLD, campaign.ranks_per_node);
        code = run_request(r, campaign, ctx, command_line(argc, argv));
      }
    } catch (const UsageError& e) {
      // Every rank meets the same bad input at the same point: all end here together.
      if (ctx.is_root()) fmt::print(stderr, "preflight: {}\n", e.what());
      code = exit_code::kBadInput;
    } catch (const std::exception& e) {
      fmt::print(stderr, "preflight: internal error on rank {} ({}): {}\n", ctx.rank, ctx.host,
                 e.what());
      std::fflush(nullptr);
      MPI_Abort(MPI_COMM_WORLD, exit_code::kInternalError);
    }
  }
  MPI_Finalize();
  return code;
}

int main_impl(int argc, char** argv) {
  h5::silence_library_errors();
  CLI::App app{
      "preflight: is this cluster fit for a large training run? Run it under mpirun or srun."};
  app.require_subcommand(1);
  app.set_version_flag("--version",
                       std::string(PREFLIGHT_VERSION) + " (" + PREFLIGHT_GIT_REVISION + ")");
  Request request;

  CLI::App* env =
      app.add_subcommand("env", "Print where each rank runs: host, node, CPU, memory, MPI, GPU");
  env->add_option("--ranks-per-node", request.ranks_per_node,
                  "Group every N consecutive ranks into a virtual node");

  CLI::App* run = app.add_subcommand("run", "Run a campaign from a YAML config (see configs/)");
  run->add_option("config", request.config_path, "The campaign config, e.g. configs/quick.yaml")
      ->required();
  run->add_option("--set", request.overrides,
                  "Override a config value: TARGET.KEY=VALUE, e.g. comm.sizes=8:1M:x4");
  add_output_options(*run, request);

  std::vector<std::unique_ptr<Family>> families;
  std::vector<FamilyFlags> family_flags(family_names().size());
  std::vector<CLI::App*> family_commands;
  for (const auto& name : family_names()) {
    families.push_back(make_family(name));
    CLI::App* cmd =
        app.add_subcommand(name, families.back()->summary() + " (one benchmark, from flags)");
    add_family_options(*cmd, *families.back(), family_flags[families.size() - 1]);
    add_output_options(*cmd, request);
    family_commands.push_back(cmd);
  }

  const bool rank_zero = launched_as_rank_zero();
  try {
    app.parse(argc, argv);
    if (env->parsed()) request.kind = Request::Kind::kEnv;
    for (std::size_t i = 0; i < family_commands.size(); ++i)
      if (family_commands[i]->parsed()) {
        request.kind = Request::Kind::kFamily;
        build_family_campaign(*family_commands[i], *families[i], family_flags[i], request);
        load_campaign(request, nullptr);  // all input is local: check it before MPI starts
      }
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
  return run_with_mpi(argc, argv, request);
}

}  // namespace
}  // namespace preflight

int main(int argc, char** argv) {
  return preflight::main_impl(argc, argv);
}
