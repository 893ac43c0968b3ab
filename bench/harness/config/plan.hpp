// From a campaign to what runs: the config every rank reads, the planned cases (dry run: the
// list), and the results file to write or to complete (--resume), agreed on by every rank.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/config/campaign.hpp"
#include "harness/env/environment.hpp"
#include "harness/run/rank_context.hpp"
#include "harness/run/runner.hpp"
#include "harness/sinks/hdf5_sink.hpp"

namespace preflight {

// Rank 0 reads the config and shares its text, so every rank parses the very same bytes
// (the file need not be visible from every node) and meets any error at the same point.
std::string shared_config_text(const std::string& path, const RankContext& ctx);

// Cases are made once per variant and benchmark (a variant's environment may change how a
// backend connects) and shared by the repetitions, so communicators are not multiplied.
std::vector<PlannedCase> plan_cases(Campaign& campaign, const RankContext& ctx);

// The dry run's list of cases.
// Every benchmark's skipped() lines, "benchmark NAME: ...", for the terminal and the file.
std::vector<std::string> skipped_in(const Campaign& campaign, const RankContext& ctx);

// soak_s > 0: the plan is one round of a soak that long; the line says about how many rounds.
void print_plan(const std::vector<PlannedCase>& plan, const RankContext& ctx, double soak_s = 0);

// What the plan's timing costs at most where iterations stop at the budget: per size point the
// budget twice (the timed iterations, then as many back to back), a case no longer than its
// case_budget. Set-up, warm-up, checks and iterations the min_iters floor adds are not counted:
// a lower bound for slow operations, which device-check.sh prints before it starts.
double timing_seconds(const std::vector<PlannedCase>& plan);

// Why a file cannot be resumed by this campaign on this job, or "" when it can.
std::string resume_mismatch(const std::string& path, const ExistingCases& existing,
                            const RunInfo& run, const std::vector<PlannedCase>& plan);

// Rank 0 opens the results file (`output`, new, or `resume`, one to complete; either may be
// empty); every rank learns whether that worked and, on resume, which cases are done (into
// controls), before anything runs. Throws UsageError on every rank when it cannot.
std::unique_ptr<Hdf5Sink> open_results(const std::string& output, const std::string& resume,
                                       const RunInfo& run, const std::vector<RankEnvironment>& env,
                                       const std::vector<PlannedCase>& plan, const RankContext& ctx,
                                       RunControls& controls);

// A soak's textfile (soak.textfile; "": none): rank 0 checks that it can write it
// (textfile_problem) and every rank learns the answer, before anything runs. Throws UsageError on
// every rank when it cannot.
void check_soak_textfile(const std::string& path, const RankContext& ctx);

}  // namespace preflight
