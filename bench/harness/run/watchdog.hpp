// Detects a case that stops making progress, or runs past its budget, and names the ranks that
// did not arrive.
//
// A hang is no progress, not a long case: a rank's deadline is its time since its last phase
// change (every barrier, operation and harness step changes the phase), so a case of many slow
// iterations never looks hung. A case's budget (off by default) bounds its whole run and is
// reported as such, not as a hang.
//
// The watchdog makes no MPI calls from its thread: MPI_THREAD_MULTIPLE slows small collectives
// by 15-70% with Open MPI, which would falsify the figures it guards. Instead every rank keeps
// its own state in atomics (case, point, phase: waiting in MPI, in the operation, elsewhere).
// When a rank has made no progress for the timeout, its watchdog thread reports that state over
// a TCP connection to rank 0's watchdog (rank 0's addresses are shared once, through MPI, at
// start), which answers at once. Rank 0 judges on the first report or on its own deadline: it
// waits a few seconds for every rank's report, names the ranks that are not waiting inside MPI
// (or did not report at all), lets the results file record the case as a timeout, and ends the
// job with exit code 3. A rank whose report rank 0 does not answer (rank 0 stopped, frozen in
// the kernel, or its host down) judges alone: it names rank 0 and ends the job itself, so no
// single rank's freeze can hang the job. Ranks on rank 0's host use the loopback address.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "harness/run/rank_context.hpp"

namespace preflight {

enum class Phase : int { kHarness, kBarrier, kOperation, kTestHang };
const char* name_of(Phase phase);

struct RankReport {
  int rank = -1;
  std::int64_t case_index = -1;
  std::int64_t point = -1;
  Phase phase = Phase::kHarness;
  double seconds_in_phase = 0;
  // How long the rank's watchdog thread itself last did not run (the whole process stopped, or
  // its host frozen), if that was within the timeout and collection window; else 0. A stopped
  // rank resumed by the launcher's teardown may complete an operation before its thread runs,
  // so a phase change does not clear it.
  double frozen_s = 0;
};
inline constexpr double kFrozenGapS = 2;  // a poll this late is a stopped process, not load

// Why a case was stopped: no rank made progress for the timeout, or it ran past its budget.
enum class TimeoutReason { kNoProgress, kCaseBudget };
// The name the results file gives it (timeout_reason).
const char* name_of(TimeoutReason reason);

struct TimeoutVerdict {
  std::int64_t case_index = -1;
  TimeoutReason reason = TimeoutReason::kNoProgress;
  double limit_s = 0;            // the timeout, or the case budget
  std::vector<int> not_arrived;  // ranks that were not waiting inside MPI, or did not report
  std::string message;           // names ranks, hosts and what each was doing
};

// Pure: the verdict from the reports rank 0 collected (missing ranks have rank -1) on a case
// that made no progress for `timeout_s`.
TimeoutVerdict judge(std::int64_t case_index, double timeout_s,
                     const std::vector<RankReport>& reports, const RankContext& ctx,
                     const std::string& case_name);

// Pure: the verdict on a case still making progress when its budget ran out.
TimeoutVerdict judge_budget(std::int64_t case_index, double budget_s, const RankReport& root,
                            const std::string& case_name);

// Pure: what a rank says when rank 0 does not answer its report.
std::string root_silent_message(const RankReport& own, const RankContext& ctx, double timeout_s,
                                double waited_s);

// Pure: what a rank's watchdog does at one poll of an armed case. `stalled_s`: since this
// rank's last phase change; `running_s`: since the case was armed; budget 0 is no limit.
enum class WatchdogAction { kNone, kNoProgress, kCaseBudget };
WatchdogAction watchdog_action(double stalled_s, double running_s, double timeout_s,
                               double case_budget_s);

class Watchdog {
 public:
  // Rank 0 only: records the timeout (writes the results file); the job ends right after.
  using OnTimeout = std::function<void(const TimeoutVerdict&)>;

  // Collective over ctx.world.
  Watchdog(const RankContext& ctx, OnTimeout on_timeout);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Called by the harness around its steps (main thread). Arming is progress.
  void arm(std::int64_t case_index, const std::string& case_name, double timeout_s,
           double case_budget_s);
  void disarm();
  // On the timed path, between every barrier and operation: one relaxed store, no clock. The
  // word holds the phase and, above it, a count of phase changes, so that the watchdog's
  // thread, which times a phase from when it first sees it (every kPollMs), can tell a new
  // phase from the same one. Main thread only.
  void set_phase(Phase phase) {
    phase_changes_ += kPhaseStep;
    phase_.store(phase_changes_ | static_cast<std::uint64_t>(phase), std::memory_order_relaxed);
  }
  // The same, for a step expected to take a while without any phase change (a block of
  // back-to-back operations): its deadline is the timeout plus `allowance_s`. Not on the hot
  // path between clock reads. Main thread only.
  void set_phase_allowing(Phase phase, double allowance_s) {
    const std::uint64_t next = (phase_changes_ + kPhaseStep) | static_cast<std::uint64_t>(phase);
    allowance_s_.store(allowance_s, std::memory_order_relaxed);
    allowance_word_.store(next, std::memory_order_release);
    phase_changes_ += kPhaseStep;
    phase_.store(next, std::memory_order_release);
  }
  void set_point(std::int64_t point) { point_.store(point, std::memory_order_relaxed); }

 private:
  static std::int64_t now_ns();
  void run();
  void report_to_root();
  bool report_waiting();
  [[noreturn]] void collect_and_judge(WatchdogAction trigger, bool by_report);
  std::int64_t collect_reports(std::vector<RankReport>& reports);
  RankReport own_report();
  void observe_phase();

  const RankContext& ctx_;
  OnTimeout on_timeout_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::vector<std::string> root_addresses_;
  std::atomic<std::int64_t> case_{-1};
  std::atomic<std::int64_t> point_{-1};
  static constexpr std::uint64_t kPhaseStep = 8;  // Phase takes the low 3 bits
  std::uint64_t phase_changes_ = 0;               // the main thread's
  // Its own cache line: the thread's polls of armed_at_ns_ do not take it from the main thread.
  alignas(64) std::atomic<std::uint64_t> phase_{0};
  std::atomic<std::uint64_t> allowance_word_{~std::uint64_t{0}};  // the phase word it is for
  std::atomic<double> allowance_s_{0};
  // The watchdog thread's: the phase word it saw last and when it first saw it.
  alignas(64) std::uint64_t seen_phase_ = ~std::uint64_t{0};
  std::int64_t seen_since_ns_ = 0;
  double seen_allowance_s_ = 0;  // the seen phase's allowance
  std::int64_t last_poll_ns_ = 0;
  double frozen_gap_s_ = 0;                   // the last gap between polls of at least kFrozenGapS
  std::int64_t frozen_until_ns_ = 0;          // when that gap ended
  std::atomic<std::int64_t> armed_at_ns_{0};  // 0: disarmed
  std::atomic<double> timeout_s_{0};
  std::atomic<double> case_budget_s_{0};
  std::atomic<bool> stop_{false};
  mutable std::mutex name_mutex_;  // guards case_name_, which the thread reads after a deadline
  std::string case_name_;
  std::thread thread_;
};

}  // namespace preflight
