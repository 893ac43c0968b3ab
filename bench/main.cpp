// preflight: one MPI launch, one campaign of benchmarks, one results file.
#include <mpi.h>

#include <fmt/format.h>
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <tuple>

#include "families.hpp"
#include "harness/config/campaign.hpp"
#include "harness/config/family_cli.hpp"
#include "harness/config/plan.hpp"
#include "harness/env/env_probe.hpp"
#include "harness/env/environment.hpp"
#include "harness/env/scheduler.hpp"
#include "harness/run/exit_codes.hpp"
#include "harness/run/runner.hpp"
#include "harness/run/watchdog.hpp"
#include "harness/sinks/console_sink.hpp"
#include "harness/sinks/hdf5_sink.hpp"
#include "harness/sinks/textfile_sink.hpp"
#include "preflight/common/usage_error.hpp"
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
  std::string soak;                    // --soak DURATION: the soak section's duration
  std::string output, resume;
  bool dry_run = false;
  int ranks_per_node = 0;           // env
  bool env_check = false;           // env --check
  std::string results_dir = ".";    // env --check: where results will be written
  std::string env_checks = "stop";  // run: stop, warn or off
  std::string planted_kernel;       // test only: NODE=RELEASE
  RunControls controls;             // test-only fault injection
};

void add_env_check_options(CLI::App& cmd, Request& r) {
  cmd.add_option("--env-check", r.env_checks,
                 "Check the environment before measuring (docs/environment-checks.md): stop on "
                 "a failed check (stop, the default), report it and measure anyway (warn), or "
                 "skip the checks (off)")
      ->check(CLI::IsMember({"stop", "warn", "off"}));
  cmd.add_option("--test-node-kernel", r.planted_kernel, "")->group("");
}

// What the checks found, on rank 0: every line (env --check), or only what needs a look (run),
// then a count of each status.
void print_env_checks(const std::vector<EnvCheck>& checks, bool every_line) {
  std::map<EnvStatus, int> count;
  for (const auto& c : checks) {
    ++count[c.status];
    if (every_line || c.status == EnvStatus::kWarn || c.status == EnvStatus::kFail)
      fmt::print("{}\n", format_check(c));
  }
  fmt::print("# environment: {} checks: {} pass, {} warn, {} fail, {} skipped\n", checks.size(),
             count[EnvStatus::kPass], count[EnvStatus::kWarn], count[EnvStatus::kFail],
             count[EnvStatus::kSkipped]);
}

// The results file's directory, when it exists (a missing one is a usage error of -o).
std::string results_dir_of(const Request& r) {
  const std::string file = !r.output.empty() ? r.output : r.resume;
  if (file.empty()) return "";
  const auto parent = std::filesystem::path(file).parent_path();
  const auto dir = parent.empty() ? std::filesystem::path(".") : parent;
  std::error_code ec;
  return std::filesystem::is_directory(dir, ec) ? dir.string() : "";
}

// Collective. Every rank gets whether a check failed; rank 0 also the checks.
std::pair<std::vector<EnvCheck>, bool> check_environment(const EnvCheckRequest& request,
                                                         const RankContext& ctx, bool every_line) {
  auto checks = run_env_checks(ctx, request);
  int failed = ctx.is_root() && any_failed(checks) ? 1 : 0;
  MPI_Bcast(&failed, 1, MPI_INT, 0, ctx.world);
  if (ctx.is_root()) print_env_checks(checks, every_line);
  return {std::move(checks), failed != 0};
}

void add_output_options(CLI::App& cmd, Request& r) {
  auto* out = cmd.add_option("-o,--output", r.output,
                             "Write the results to this HDF5 file (must not exist)");
  cmd.add_option("--resume", r.resume,
                 "Complete the campaign in this results file, skipping its finished cases")
      ->excludes(out);
  cmd.add_flag("--dry-run", r.dry_run, "Check the config and list the cases it makes; run nothing");
  add_env_check_options(cmd, r);
  cmd.add_option("--test-corrupt-rank", r.controls.corrupt_rank, "")->group("");
  cmd.add_option("--test-corrupt-every", r.controls.corrupt_every, "")
      ->check(CLI::NonNegativeNumber)
      ->group("");
  cmd.add_option("--test-corrupt-case", r.controls.corrupt_case, "")->group("");
  cmd.add_option("--test-hang-rank", r.controls.hang_rank, "")->group("");
  cmd.add_option("--test-hang-case", r.controls.hang_case, "")->group("");
  cmd.add_option("--test-hang-point", r.controls.hang_point, "")->group("");
  cmd.add_option("--test-hang-seconds", r.controls.hang_seconds, "")->group("");
  cmd.add_option("--test-internal-error-rank", r.controls.internal_error_rank, "")->group("");
  cmd.add_option("--test-slow-node", r.controls.slow_node, "")->group("");
  cmd.add_option("--test-slow-factor", r.controls.slow_factor, "")->group("");
  cmd.add_option("--test-late-rank", r.controls.late_rank, "")->group("");
  cmd.add_option("--test-late-seconds", r.controls.late_seconds, "")->group("");
  cmd.add_option("--test-drift-rank", r.controls.drift_rank, "")->group("");
  cmd.add_option("--test-drift-per-round", r.controls.drift_per_round, "")->group("");
}

std::string command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + std::string(argv[i]);
  return line;
}

Campaign load_campaign(const Request& r, const RankContext* ctx) {
  YAML::Node root = !r.config_path.empty()
                        ? parse_yaml(shared_config_text(r.config_path, *ctx), r.config_path)
                        : YAML::Clone(r.built);
  auto labels = std::make_shared<std::map<std::string, std::string>>();
  if (r.flags) *labels = *r.flags;
  apply_overrides(root, r.overrides, *labels);
  if (!r.soak.empty()) {
    apply_overrides(root, {fmt::format("{}.{}={}", kSoakSection, kSoakDurationKey, r.soak)},
                    *labels);
    (*labels)[fmt::format("{}.{}", kSoakSection, kSoakDurationKey)] = "--soak";
  }
  return read_campaign(root, !r.config_path.empty() ? r.config_path : "command line", make_family,
                       family_names(), labels);
}

int run_request(const Request& r, Campaign& campaign, const RankContext& ctx,
                const std::string& line) {
  RunControls controls = r.controls;
  controls.time_budget_s = campaign.time_budget_s;
  controls.soak_s = campaign.soak_s;
  if (controls.corrupt_rank >= ctx.size || controls.hang_rank >= ctx.size ||
      controls.late_rank >= ctx.size || controls.drift_rank >= ctx.size)
    throw UsageError(fmt::format(
        "--test-corrupt-rank/--test-hang-rank/--test-late-rank/--test-drift-rank: expected a rank "
        "below {}",
        ctx.size));
  if (controls.corrupt_every > 0 && controls.corrupt_rank < 0)
    throw UsageError(
        "--test-corrupt-every: expected --test-corrupt-rank too (the rank whose results it "
        "corrupts)");
  auto plan = plan_cases(campaign, ctx);
  const auto skipped = skipped_in(campaign, ctx);
  if (ctx.is_root())
    for (const auto& s : skipped) fmt::print("skipped: {}\n", s);
  if (r.dry_run) {
    if (ctx.is_root()) print_plan(plan, ctx, campaign.soak_s);
    return exit_code::kSuccess;
  }
  check_soak_textfile(campaign.soak_textfile, ctx);
  std::vector<EnvCheck> checks;
  bool env_failed = false;
  if (r.env_checks != "off") {
    auto request = env_check_request(campaign, results_dir_of(r));
    request.planted_kernel = r.planted_kernel;
    std::tie(checks, env_failed) = check_environment(request, ctx, false);
  }
  const auto env = gather_environment(ctx);
  const auto scheduler = scheduler_facts(process_environment());
  const RunInfo run{line,
                    campaign.effective.dump(),
                    utc_timestamp(),
                    ctx.size,
                    ctx.node_count,
                    skipped,
                    checks,
                    scheduler.is_null() ? "" : scheduler.dump(),
                    campaign.soak_s,
                    campaign.soak_s > 0 && campaign.soak_summary_points};
  auto file = open_results(r.output, r.resume, run, env, plan, ctx, controls);
  if (env_failed && r.env_checks == "stop") {
    const std::string note =
        "stopped before measuring: an environment check failed (the fail lines above say what "
        "to fix; --env-check warn measures anyway)";
    if (ctx.is_root()) fmt::print(stderr, "preflight: {}\n", note);
    if (file)
      file->run_finished(std::string(schema::run_status::kFailed), exit_code::kEnvironmentFailed,
                         note);
    return exit_code::kEnvironmentFailed;
  }
  ConsoleSink console(stdout);
  std::unique_ptr<TextfileSink> textfile;  // a soak's, for Grafana (soak.textfile)
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
    if (!campaign.soak_textfile.empty()) {
      textfile = std::make_unique<TextfileSink>(campaign.soak_textfile, campaign.name, ctx);
      sinks.push_back(textfile.get());
    }
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
  // What a family's library reads only at MPI_Init (families.cpp).
  prepare_mpi_init();
  // MPI_THREAD_SINGLE, as nccl-tests and the OSU benchmarks start MPI: the main thread makes
  // every MPI call (the watchdog's thread and the storage workers make none). Any higher level
  // switches Open MPI 4.1 to its multi-threaded wait (a mutex and a condition around every
  // blocking call), which made an 8 B all-reduce on 2 ranks ~0.3 us slower than the bare loop.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  int code = exit_code::kSuccess;
  {
    const int ranks_per_node = r.kind == Request::Kind::kEnv ? r.ranks_per_node : 0;
    RankContext ctx = make_rank_context(MPI_COMM_WORLD, ranks_per_node);
    try {
      if (r.kind == Request::Kind::kEnv && r.env_check) {
        EnvCheckRequest request;
        if (!r.config_path.empty()) {
          Campaign campaign = load_campaign(r, &ctx);
          if (campaign.ranks_per_node > 0 && r.ranks_per_node == 0)
            ctx = make_rank_context(MPI_COMM_WORLD, campaign.ranks_per_node);
          request = env_check_request(campaign, r.results_dir);
        } else {
          request.paths.push_back({r.results_dir, "results file", true});
        }
        request.planted_kernel = r.planted_kernel;
        if (check_environment(request, ctx, true).second) code = exit_code::kEnvironmentFailed;
      } else if (r.kind == Request::Kind::kEnv) {
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
  env->add_flag("--check", request.env_check,
                "Run the environment checks on every rank (docs/environment-checks.md): a pass, "
                "warn or fail line each, with the fix; exit 5 when one fails");
  env->add_option("config", request.config_path,
                  "With --check: also check what this campaign's benchmarks need (their "
                  "directories, libraries, pinned memory, GPUs)");
  env->add_option("--results-dir", request.results_dir,
                  "With --check: the directory the results will be written to (default .)");
  env->add_option("--test-node-kernel", request.planted_kernel, "")->group("");

  CLI::App* run = app.add_subcommand("run", "Run a campaign from a YAML config (see configs/)");
  run->add_option("config", request.config_path, "The campaign config, e.g. configs/quick.yaml")
      ->required();
  run->add_option("--set", request.overrides,
                  "Override a config value: TARGET.KEY=VALUE, e.g. comm.sizes=8:1M:x4");
  run->add_option("--soak", request.soak,
                  "Burn-in: repeat the campaign in rounds for this long, e.g. 10m or 24h "
                  "(docs/guide-burn-in.md)");
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

  std::vector<std::pair<CLI::App*, std::function<int()>>> tools;
  for (const auto& tool : tool_table()) {
    CLI::App* cmd = app.add_subcommand(std::string(tool.name), std::string(tool.summary));
    tools.emplace_back(cmd, tool.add(*cmd));
  }

  const bool rank_zero = launched_as_rank_zero();
  try {
    app.parse(argc, argv);
    for (auto& [cmd, runs] : tools)
      if (cmd->parsed()) return runs();
    if (env->parsed()) request.kind = Request::Kind::kEnv;
    for (std::size_t i = 0; i < family_commands.size(); ++i)
      if (family_commands[i]->parsed()) {
        request.kind = Request::Kind::kFamily;
        const auto built =
            build_family_campaign(*family_commands[i], *families[i], family_flags[i]);
        request.built = built.root;
        request.flags = built.flags;
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
