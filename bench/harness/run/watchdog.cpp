#include "harness/run/watchdog.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <ifaddrs.h>
#include <mpi.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>

#include "harness/run/exit_codes.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight {
namespace {

constexpr int kPollMs = 100;
constexpr double kCollectWindowS = 5;  // rank 0 waits this long for the others' reports
constexpr int kAnswerMs = 3000;        // a rank waits this long for rank 0 to answer its report
constexpr double kReportGraceS = 20;   // rank 0 answered: the job should end within this
constexpr char kAnswer = '!';          // rank 0's answer: it is alive and judging

std::vector<std::string> local_ipv4_addresses() {
  std::vector<std::string> outside, loopback;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return {"127.0.0.1"};
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, text, sizeof text);
    (std::string(text).rfind("127.", 0) == 0 ? loopback : outside).emplace_back(text);
  }
  freeifaddrs(list);
  outside.insert(outside.end(), loopback.begin(), loopback.end());
  return outside;
}

int open_listener(std::uint16_t& port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t length = sizeof address;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 || listen(fd, SOMAXCONN) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    close(fd);
    return -1;
  }
  port = ntohs(address.sin_port);
  return fd;
}

// Connects within one second or gives up.
int connect_to(const std::string& host, std::uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  if (inet_pton(AF_INET, host.c_str(), &address.sin_addr) != 1) {
    close(fd);
    return -1;
  }
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 &&
      errno != EINPROGRESS) {
    close(fd);
    return -1;
  }
  pollfd p{fd, POLLOUT, 0};
  int error = 0;
  socklen_t length = sizeof error;
  if (poll(&p, 1, 1000) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0 ||
      error != 0) {
    close(fd);
    return -1;
  }
  fcntl(fd, F_SETFL, 0);
  return fd;
}

std::string encode(const RankReport& r) {
  return fmt::format("{} {} {} {} {:.3f} {:.3f}\n", r.rank, r.case_index, r.point,
                     static_cast<int>(r.phase), r.seconds_in_phase, r.frozen_s);
}

bool decode(const std::string& line, RankReport& r) {
  std::istringstream in(line);
  int phase = 0;
  if (!(in >> r.rank >> r.case_index >> r.point >> phase >> r.seconds_in_phase >> r.frozen_s))
    return false;
  r.phase = static_cast<Phase>(phase);
  return true;
}

std::string share_string(const std::string& mine, MPI_Comm comm) {
  int length = static_cast<int>(mine.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  std::string out = mine;
  out.resize(static_cast<std::size_t>(length));
  MPI_Bcast(out.data(), length, MPI_CHAR, 0, comm);
  return out;
}

std::string case_label(std::int64_t case_index, const std::string& case_name) {
  return case_name.empty() ? fmt::format("{:06d}", case_index)
                           : fmt::format("{:06d} '{}'", case_index, case_name);
}

std::string rank_list(const std::vector<int>& ranks, const RankContext& ctx) {
  std::string out;
  for (int r : ranks)
    out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", r,
                       ctx.host_of_rank[static_cast<std::size_t>(r)]);
  return out;
}

}  // namespace

const char* name_of(TimeoutReason reason) {
  return reason == TimeoutReason::kCaseBudget ? schema::timeout_reason::kCaseBudget.data()
                                              : schema::timeout_reason::kNoProgress.data();
}

const char* name_of(Phase phase) {
  switch (phase) {
    case Phase::kBarrier:
      return "waiting in a barrier";
    case Phase::kOperation:
      return "inside the operation";
    case Phase::kTestHang:
      return "in the test-only hang";
    default:
      return "in preflight's own code";
  }
}

TimeoutVerdict judge(std::int64_t case_index, double timeout_s,
                     const std::vector<RankReport>& reports, const RankContext& ctx,
                     const std::string& case_name) {
  TimeoutVerdict v{case_index, TimeoutReason::kNoProgress, timeout_s, {}, {}};
  std::vector<int> waiting;
  std::string details;
  for (int r = 0; r < ctx.size; ++r) {
    const RankReport& report = reports[static_cast<std::size_t>(r)];
    const bool reported = report.rank == r;
    // A rank that was itself stopped is not waiting for the others, whatever its phase says.
    const bool in_mpi = reported && report.case_index == case_index && report.frozen_s == 0 &&
                        (report.phase == Phase::kBarrier || report.phase == Phase::kOperation);
    if (in_mpi) {
      waiting.push_back(r);
      continue;
    }
    v.not_arrived.push_back(r);
    const std::string at = report.point < 0 ? std::string("before its first size")
                                            : fmt::format("at size {}", report.point);
    if (reported && report.frozen_s > 0) {
      details += fmt::format(
          "; rank {} ({}) was stopped or frozen for {:.1f} s (its own watchdog did not run) in "
          "case {:06d} {}",
          r, ctx.host_of_rank[static_cast<std::size_t>(r)], report.frozen_s, report.case_index, at);
      continue;
    }
    details +=
        reported ? fmt::format("; rank {} ({}) was {} for {:.1f} s in case {:06d} {}", r,
                               ctx.host_of_rank[static_cast<std::size_t>(r)], name_of(report.phase),
                               report.seconds_in_phase, report.case_index, at)
                 : fmt::format("; rank {} ({}) did not report (dead, or its host unreachable)", r,
                               ctx.host_of_rank[static_cast<std::size_t>(r)]);
  }
  const std::string stalled =
      fmt::format("case {} made no progress for its {:g} s timeout (no operation completed)",
                  case_label(case_index, case_name), timeout_s);
  if (v.not_arrived.empty()) {
    v.message = fmt::format(
        "{} with every rank waiting inside MPI: the operation itself hung (network, driver or "
        "library), no rank stayed away",
        stalled);
  } else {
    v.message = fmt::format(
        "{}: rank(s) {} did not arrive{}{}", stalled, rank_list(v.not_arrived, ctx), details,
        waiting.empty()
            ? ""
            : fmt::format("; waiting for them inside MPI: {}", rank_list(waiting, ctx)));
  }
  return v;
}

TimeoutVerdict judge_budget(std::int64_t case_index, double budget_s, const RankReport& root,
                            const std::string& case_name) {
  TimeoutVerdict v{case_index, TimeoutReason::kCaseBudget, budget_s, {}, {}};
  v.message = fmt::format(
      "case {} ran past its {:g} s budget while still making progress (rank 0's last step "
      "{:.1f} s ago, {}): a long case, not a hang; raise timing.case_budget (--case-budget) or "
      "give the case fewer sizes or iterations",
      case_label(case_index, case_name), budget_s, root.seconds_in_phase,
      root.point < 0 ? std::string("before its first size")
                     : fmt::format("at size {}", root.point));
  return v;
}

std::string root_silent_message(const RankReport& own, const RankContext& ctx, double timeout_s,
                                double waited_s) {
  return fmt::format(
      "watchdog on rank {} ({}): case {:06d} made no progress for its {:g} s timeout (this rank "
      "was {} for {:.1f} s {}) and rank 0 ({}) did not answer within {:.1f} s: rank 0 is stopped, "
      "frozen or its host is down (this rank cannot tell whether the operation hung); ending the "
      "job. The cases rank 0 finished are in its results file",
      own.rank, ctx.host, own.case_index, timeout_s, name_of(own.phase), own.seconds_in_phase,
      own.point < 0 ? std::string("before its first size") : fmt::format("at size {}", own.point),
      ctx.host_of_rank[0], waited_s);
}

WatchdogAction watchdog_action(double stalled_s, double running_s, double timeout_s,
                               double case_budget_s) {
  if (stalled_s >= timeout_s) return WatchdogAction::kNoProgress;
  if (case_budget_s > 0 && running_s >= case_budget_s) return WatchdogAction::kCaseBudget;
  return WatchdogAction::kNone;
}

std::int64_t Watchdog::now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Watchdog::Watchdog(const RankContext& ctx, OnTimeout on_timeout)
    : ctx_(ctx), on_timeout_(std::move(on_timeout)) {
  std::string shared;
  if (ctx.is_root()) {
    listen_fd_ = open_listener(port_);
    shared = fmt::format("{}", port_);
    for (const auto& a : local_ipv4_addresses()) shared += " " + a;
  }
  shared = share_string(shared, ctx.world);
  std::istringstream in(shared);
  in >> port_;
  for (std::string a; in >> a;) root_addresses_.push_back(a);
  // Same host as rank 0: the loopback address, never the host's own network.
  if (!ctx.is_root() && ctx.host == ctx.host_of_rank[0]) root_addresses_ = {"127.0.0.1"};
  // Termination signals go to the main thread, which blocks them while it writes results.
  sigset_t block, previous;
  sigemptyset(&block);
  for (int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&block, s);
  pthread_sigmask(SIG_BLOCK, &block, &previous);
  thread_ = std::thread([this] { run(); });
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

Watchdog::~Watchdog() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (listen_fd_ >= 0) close(listen_fd_);
}

void Watchdog::arm(std::int64_t case_index, const std::string& case_name, double timeout_s,
                   double case_budget_s) {
  disarm();
  {
    std::lock_guard lock(name_mutex_);
    case_name_ = case_name;
  }
  case_.store(case_index);
  point_.store(-1);
  timeout_s_.store(timeout_s);
  case_budget_s_.store(case_budget_s);
  set_phase(Phase::kHarness);  // before armed_at_ns_: the thread never sees a stale phase armed
  armed_at_ns_.store(now_ns());
}

void Watchdog::disarm() {
  armed_at_ns_.store(0);
}

void Watchdog::observe_phase() {
  const std::int64_t now = now_ns();
  const double gap_s = static_cast<double>(now - last_poll_ns_) / 1e9;
  if (last_poll_ns_ != 0 && gap_s >= kFrozenGapS) {
    frozen_gap_s_ = gap_s;
    frozen_until_ns_ = now;
  }
  last_poll_ns_ = now;
  const std::uint64_t word = phase_.load(std::memory_order_acquire);
  if (word == seen_phase_) return;
  seen_phase_ = word;
  seen_since_ns_ = now;
  seen_allowance_s_ = allowance_word_.load(std::memory_order_acquire) == word
                          ? allowance_s_.load(std::memory_order_relaxed)
                          : 0;
}

// Time in the phase as the thread saw it: short by up to one poll (kPollMs).
RankReport Watchdog::own_report() {
  observe_phase();
  const double window_s = timeout_s_.load() + kCollectWindowS + kAnswerMs / 1e3;
  const bool recently_frozen =
      frozen_until_ns_ != 0 && static_cast<double>(now_ns() - frozen_until_ns_) / 1e9 <= window_s;
  return {ctx_.rank,
          case_.load(),
          point_.load(),
          static_cast<Phase>(seen_phase_ & (kPhaseStep - 1)),
          static_cast<double>(now_ns() - seen_since_ns_) / 1e9,
          recently_frozen ? frozen_gap_s_ : 0};
}

void Watchdog::run() {
  while (!stop_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
    const std::int64_t armed_at = armed_at_ns_.load();  // then the phase: see arm()
    observe_phase();
    // Rank 0 judges on any rank's report, armed or not: it may itself be stuck between cases.
    if (ctx_.is_root() && report_waiting()) collect_and_judge(WatchdogAction::kNoProgress, true);
    if (armed_at == 0) continue;
    const std::int64_t now = now_ns();
    const WatchdogAction action = watchdog_action(
        static_cast<double>(now - seen_since_ns_) / 1e9 - seen_allowance_s_,
        static_cast<double>(now - armed_at) / 1e9, timeout_s_.load(), case_budget_s_.load());
    if (action == WatchdogAction::kNone) continue;
    if (ctx_.is_root()) collect_and_judge(action, false);
    // Rank 0 judges the budget; the other ranks report only a lack of progress.
    if (action == WatchdogAction::kNoProgress) report_to_root();
  }
}

bool Watchdog::report_waiting() {
  pollfd p{listen_fd_, POLLIN, 0};
  return listen_fd_ >= 0 && poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

// Sends this rank's state and waits for rank 0's answer. Answered: rank 0 judges and ends the
// job; this thread only waits for that. Not answered: rank 0 cannot judge, so this rank says
// what it knows and ends the job itself (the launcher tears the others down).
void Watchdog::report_to_root() {
  const RankReport own = own_report();
  const std::string line = encode(own);
  const auto asked = now_ns();
  for (const auto& address : root_addresses_) {
    const int fd = connect_to(address, port_);
    if (fd < 0) continue;
    char answer = 0;
    pollfd p{fd, POLLIN, 0};
    const bool answered =
        write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) &&
        poll(&p, 1, kAnswerMs) == 1 && read(fd, &answer, 1) == 1 && answer == kAnswer;
    close(fd);
    if (answered) {
      std::this_thread::sleep_for(std::chrono::duration<double>(kReportGraceS));
      std::fprintf(stderr,
                   "preflight: watchdog on rank %d (%s): rank 0 answered this rank's report on "
                   "case %lld but the job did not end; ending it\n",
                   ctx_.rank, ctx_.host.c_str(), static_cast<long long>(own.case_index));
      std::fflush(nullptr);
      _exit(exit_code::kTimeout);
    }
    break;  // reached rank 0's host: no other address would answer sooner
  }
  const double waited = static_cast<double>(now_ns() - asked) / 1e9;
  std::fprintf(stderr, "preflight: timeout: %s\n",
               root_silent_message(own, ctx_, timeout_s_.load(), waited).c_str());
  std::fflush(nullptr);
  _exit(exit_code::kTimeout);
}

// Rank 0: the verdict, recorded, and the job ended. On a lack of progress it collects the
// others' reports for a few seconds, answering each at once so that its rank knows rank 0 is
// alive; the case judged is the first report's when a report came first (rank 0 may be stuck
// between cases, in its own code), else rank 0's own.
void Watchdog::collect_and_judge(WatchdogAction trigger, bool by_report) {
  const std::int64_t own_case = case_.load();
  std::string name;
  {
    std::lock_guard lock(name_mutex_);
    name = case_name_;
  }
  std::vector<RankReport> reports;
  reports.push_back(own_report());
  TimeoutVerdict verdict;
  if (trigger == WatchdogAction::kCaseBudget) {
    verdict = judge_budget(own_case, case_budget_s_.load(), reports[0], name);
  } else {
    reports.resize(static_cast<std::size_t>(ctx_.size));
    const std::int64_t first_reported = collect_reports(reports);
    const std::int64_t judged = by_report ? first_reported : own_case;
    verdict = judge(judged, timeout_s_.load(), reports, ctx_, judged == own_case ? name : "");
  }
  std::fprintf(stderr, "preflight: timeout: %s\n", verdict.message.c_str());
  std::fflush(stderr);
  if (on_timeout_) on_timeout_(verdict);
  std::fflush(nullptr);
  _exit(exit_code::kTimeout);
}

// Fills reports[r] for the ranks that report within the window (or until all have); answers
// each. Returns the case of the first report (rank 0's own case when none came).
std::int64_t Watchdog::collect_reports(std::vector<RankReport>& reports) {
  std::int64_t first_case = reports[0].case_index;
  bool any = false;
  int received = 1;
  std::map<int, std::string> partial;  // open connections and what they sent so far
  const auto until = now_ns() + static_cast<std::int64_t>(kCollectWindowS * 1e9);
  while (received < ctx_.size && now_ns() < until) {
    std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}};
    for (const auto& [fd, text] : partial) fds.push_back({fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), kPollMs) <= 0) continue;
    if (fds[0].revents & POLLIN)
      for (int fd; (fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC)) >= 0;)
        partial[fd] = "";
    for (std::size_t i = 1; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP))) continue;
      char buffer[256];
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        partial[fds[i].fd].append(buffer, static_cast<std::size_t>(n));
        if (partial[fds[i].fd].find('\n') == std::string::npos) continue;
      }
      RankReport r;
      // Every report is of a rank that made no progress for the timeout, whatever its case.
      if (decode(partial[fds[i].fd], r) && r.rank > 0 && r.rank < ctx_.size &&
          reports[static_cast<std::size_t>(r.rank)].rank < 0) {
        reports[static_cast<std::size_t>(r.rank)] = r;
        ++received;
        if (!any) first_case = r.case_index;
        any = true;
        [[maybe_unused]] const ssize_t sent = write(fds[i].fd, &kAnswer, 1);
      }
      close(fds[i].fd);
      partial.erase(fds[i].fd);
    }
  }
  return first_case;
}

}  // namespace preflight
