#include "harness/config/plan.hpp"

#include <mpi.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "harness/sinks/textfile_sink.hpp"
#include "preflight/common/usage_error.hpp"
#include "preflight/schema/h5.hpp"

namespace preflight {

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

std::vector<std::string> skipped_in(const Campaign& campaign, const RankContext& ctx) {
  std::vector<std::string> out;
  for (const auto& b : campaign.benchmarks)
    for (const auto& line : b.family->skipped(ctx))
      out.push_back(fmt::format("benchmark {}: {}", b.name, line));
  return out;
}

void print_plan(const std::vector<PlannedCase>& plan, const RankContext& ctx, double soak_s) {
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
  fmt::print(
      "# timing: about {:.0f} s (each size point's budget twice: timed, then back to back; "
      "set-up and warm-up not counted)\n",
      timing_seconds(plan));
  if (soak_s > 0) {
    const double round_s = timing_seconds(plan);
    fmt::print(
        "# soak: rounds of these {} case(s) (repetition = round) until {:g} s are spent: at most "
        "about {:.0f} rounds of {:.0f} s or more\n",
        plan.size(), soak_s, round_s > 0 ? std::ceil(soak_s / round_s) : 0.0, round_s);
  }
}

double timing_seconds(const std::vector<PlannedCase>& plan) {
  double total = 0;
  for (const auto& p : plan) {
    const double blocks = p.c->back_to_back() ? 2 : 1;  // the back-to-back blocks repeat it
    double one = static_cast<double>(p.c->point_count()) * p.timing.budget_s * blocks;
    if (p.timing.case_budget_s > 0) one = std::min(one, p.timing.case_budget_s);
    total += one;
  }
  return total;
}

namespace {

constexpr std::size_t kDifferencesShown = 4;

// Where two configs differ, as "key.path[i]: before -> now", the first kDifferencesShown.
void config_differences(const nlohmann::json& before, const nlohmann::json& now,
                        const std::string& path, std::vector<std::string>& out) {
  if (out.size() >= kDifferencesShown || before == now) return;
  if (before.is_object() && now.is_object()) {
    std::set<std::string> keys;
    for (const auto& [k, v] : before.items()) keys.insert(k);
    for (const auto& [k, v] : now.items()) keys.insert(k);
    for (const auto& k : keys)
      config_differences(before.value(k, nlohmann::json()), now.value(k, nlohmann::json()),
                         path.empty() ? k : path + "." + k, out);
    return;
  }
  if (before.is_array() && now.is_array() && before.size() == now.size()) {
    for (std::size_t i = 0; i < before.size(); ++i)
      config_differences(before[i], now[i], fmt::format("{}[{}]", path, i), out);
    return;
  }
  const auto text = [](const nlohmann::json& v) { return v.is_null() ? "(none)" : v.dump(); };
  out.push_back(fmt::format("{}: {} -> {}", path, text(before), text(now)));
}

// What makes a campaign the same campaign: its config, less the time budget, which bounds how
// long one job may run and not what the file holds (a run stopped by its budget is resumed
// with a larger one).
nlohmann::json campaign_identity(const std::string& config_json) {
  auto config = nlohmann::json::parse(config_json, nullptr, false);
  if (config.is_object() && config.contains(kCampaignSection) &&
      config[kCampaignSection].is_object())
    config[kCampaignSection].erase(kTimeBudgetKey);
  return config;
}

}  // namespace

std::string resume_mismatch(const std::string& path, const ExistingCases& existing,
                            const RunInfo& run, const std::vector<PlannedCase>& plan) {
  const auto before = campaign_identity(existing.config), now = campaign_identity(run.config_json);
  if (before.is_discarded() || now.is_discarded() ? existing.config != run.config_json
                                                  : before != now) {
    std::vector<std::string> differences;
    if (!before.is_discarded() && !now.is_discarded())
      config_differences(before, now, "", differences);
    std::string listed;
    for (const auto& d : differences) listed += (listed.empty() ? "" : "; ") + d;
    return fmt::format(
        "--resume: '{}' was written by a different campaign ({}); resume with exactly the same "
        "config, --set values and flags (only {}.{} may differ)",
        path, listed.empty() ? "config, --set values or flags differ" : listed, kCampaignSection,
        kTimeBudgetKey);
  }
  if (existing.world_size != run.world_size || existing.node_count != run.node_count)
    return fmt::format(
        "--resume: '{}' was written by {} ranks on {} nodes, this job has {} on {}; "
        "resume with the same layout",
        path, existing.world_size, existing.node_count, run.world_size, run.node_count);
  // A soak's plan is one round: its case k is the plan's case k mod the round's size.
  const bool soak = run.soak_s > 0;
  for (std::size_t i = 0; i < existing.finished.size(); ++i) {
    const std::size_t k = existing.finished[i];
    if ((!soak && k >= plan.size()) || plan.empty() ||
        plan[k % plan.size()].c->name() != existing.names[i])
      return fmt::format("--resume: case {} in '{}' is not this campaign's case {}",
                         existing.names[i], path, k);
  }
  return {};
}

std::unique_ptr<Hdf5Sink> open_results(const std::string& output, const std::string& resume,
                                       const RunInfo& run, const std::vector<RankEnvironment>& env,
                                       const std::vector<PlannedCase>& plan, const RankContext& ctx,
                                       RunControls& controls) {
  std::unique_ptr<Hdf5Sink> sink;
  std::string error;
  ExistingCases existing;
  if (ctx.is_root() && !output.empty()) {
    const std::filesystem::path path(output);
    const auto parent = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    if (std::filesystem::exists(path))
      error = fmt::format(
          "--output: '{}' already exists; choose a new file name (preflight never overwrites "
          "results), or --resume it",
          output);
    else if (!std::filesystem::is_directory(parent))
      error = fmt::format("--output: directory '{}' does not exist", parent.string());
    else
      try {
        sink = Hdf5Sink::create(output, run, env);
      } catch (const h5::Error& e) {
        error = fmt::format("--output: {}", e.what());
      }
  }
  if (ctx.is_root() && !resume.empty()) {
    try {
      existing = Hdf5Sink::inspect(resume);  // changes nothing: a refused resume leaves the file be
      error = resume_mismatch(resume, existing, run, plan);
      if (error.empty()) sink = Hdf5Sink::resume(resume, run, existing);
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
  MPI_Bcast(&existing.soaked_s, 1, MPI_DOUBLE, 0, ctx.world);
  controls.soaked_s = existing.soaked_s;
  controls.skip.insert(finished.begin(), finished.end());
  controls.earlier_failed = any_failed != 0;
  return sink;
}

void check_soak_textfile(const std::string& path, const RankContext& ctx) {
  if (path.empty()) return;
  const std::string problem = ctx.is_root() ? textfile_problem(path) : std::string();
  int failed = problem.empty() ? 0 : 1;
  MPI_Bcast(&failed, 1, MPI_INT, 0, ctx.world);
  if (failed)
    throw UsageError(ctx.is_root() ? problem
                                   : "soak.textfile: rank 0 cannot write it (its message says why "
                                     "and how to fix it)");
}

}  // namespace preflight
