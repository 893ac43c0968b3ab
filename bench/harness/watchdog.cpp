#include "harness/watchdog.hpp"

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

#include "harness/exit_codes.hpp"

namespace preflight {
namespace {

constexpr int kPollMs = 100;
constexpr double kCollectWindowS = 5;  // rank 0 waits this long for the others' reports
constexpr double kReportGraceS = 20;   // a rank that cannot reach rank 0 gives up after this

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
  return fmt::format("{} {} {} {} {:.3f}\n", r.rank, r.case_index, r.point,
                     static_cast<int>(r.phase), r.seconds_in_phase);
}

bool decode(const std::string& line, RankReport& r) {
  std::istringstream in(line);
  int phase = 0;
  if (!(in >> r.rank >> r.case_index >> r.point >> phase >> r.seconds_in_phase)) return false;
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

std::string rank_list(const std::vector<int>& ranks, const RankContext& ctx) {
  std::string out;
  for (int r : ranks)
    out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", r,
                       ctx.host_of_rank[static_cast<std::size_t>(r)]);
  return out;
}

}  // namespace

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
  TimeoutVerdict v{case_index, timeout_s, {}, {}};
  std::vector<int> waiting;
  std::string details;
  for (int r = 0; r < ctx.size; ++r) {
    const RankReport& report = reports[static_cast<std::size_t>(r)];
    const bool reported = report.rank == r;
    const bool in_mpi = reported && report.case_index == case_index &&
                        (report.phase == Phase::kBarrier || report.phase == Phase::kOperation);
    if (in_mpi) {
      waiting.push_back(r);
      continue;
    }
    v.not_arrived.push_back(r);
    const std::string at = report.point < 0 ? std::string("before its first size")
                                            : fmt::format("at size {}", report.point);
    details +=
        reported ? fmt::format("; rank {} ({}) was {} for {:.1f} s in case {:06d} {}", r,
                               ctx.host_of_rank[static_cast<std::size_t>(r)], name_of(report.phase),
                               report.seconds_in_phase, report.case_index, at)
                 : fmt::format("; rank {} ({}) did not report (dead, or its host unreachable)", r,
                               ctx.host_of_rank[static_cast<std::size_t>(r)]);
  }
  if (v.not_arrived.empty()) {
    v.message = fmt::format(
        "case {:06d} '{}' ran past its {:g} s timeout with every rank waiting inside MPI: the "
        "operation itself "
        "hung (network, driver or library), no rank stayed away",
        case_index, case_name, timeout_s);
  } else {
    v.message = fmt::format(
        "case {:06d} '{}' ran past its {:g} s timeout: rank(s) {} did not arrive{}{}", case_index,
        case_name, timeout_s, rank_list(v.not_arrived, ctx), details,
        waiting.empty()
            ? ""
            : fmt::format("; waiting for them inside MPI: {}", rank_list(waiting, ctx)));
  }
  return v;
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

void Watchdog::arm(std::int64_t case_index, const std::string& case_name, double timeout_s) {
  disarm();
  {
    std::lock_guard lock(name_mutex_);
    case_name_ = case_name;
  }
  case_.store(case_index);
  point_.store(-1);
  timeout_s_.store(timeout_s);
  deadline_ns_.store(now_ns() + static_cast<std::int64_t>(timeout_s * 1e9));
}

void Watchdog::disarm() {
  deadline_ns_.store(0);
}

void Watchdog::observe_phase() {
  const std::uint64_t word = phase_.load(std::memory_order_relaxed);
  if (word == seen_phase_) return;
  seen_phase_ = word;
  seen_since_ns_ = now_ns();
}

// Time in the phase as the thread saw it: short by up to one poll (kPollMs).
RankReport Watchdog::own_report() {
  observe_phase();
  return {ctx_.rank, case_.load(), point_.load(),
          static_cast<Phase>(seen_phase_ & (kPhaseStep - 1)),
          static_cast<double>(now_ns() - seen_since_ns_) / 1e9};
}

void Watchdog::run() {
  while (!stop_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
    observe_phase();
    const std::int64_t deadline = deadline_ns_.load();
    if (deadline == 0 || now_ns() < deadline) continue;
    if (ctx_.is_root()) {
      collect_and_judge();  // does not return
    } else {
      report_to_root();
      // Only this deadline is spent: arm() may already have set the next case's.
      std::int64_t expected = deadline;
      deadline_ns_.compare_exchange_strong(expected, 0);
    }
  }
}

void Watchdog::report_to_root() {
  const std::string line = encode(own_report());
  for (const auto& address : root_addresses_) {
    const int fd = connect_to(address, port_);
    if (fd < 0) continue;
    const bool sent = write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
    close(fd);
    if (sent) return;
  }
  // Rank 0 cannot be reached: say what this rank knows, wait for the job to be torn down.
  std::fprintf(stderr,
               "preflight: watchdog on rank %d (%s): case %lld ran past its timeout and rank 0 "
               "cannot be reached\n",
               ctx_.rank, ctx_.host.c_str(), static_cast<long long>(case_.load()));
  std::this_thread::sleep_for(std::chrono::duration<double>(kReportGraceS));
  std::fflush(nullptr);
  _exit(exit_code::kTimeout);
}

void Watchdog::collect_and_judge() {
  // The case as it was when its deadline passed; the main thread may move on meanwhile.
  const std::int64_t judged_case = case_.load();
  std::string name;
  {
    std::lock_guard lock(name_mutex_);
    name = case_name_;
  }
  std::vector<RankReport> reports;
  reports.push_back(own_report());
  reports.resize(static_cast<std::size_t>(ctx_.size));
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
      // A report about another case is stale (its rank's deadline passed on a case that then
      // finished); that rank reports this case when its own deadline for it passes.
      if (decode(partial[fds[i].fd], r) && r.rank > 0 && r.rank < ctx_.size &&
          r.case_index == judged_case && reports[static_cast<std::size_t>(r.rank)].rank < 0) {
        reports[static_cast<std::size_t>(r.rank)] = r;
        ++received;
      }
      close(fds[i].fd);
      partial.erase(fds[i].fd);
    }
  }
  const TimeoutVerdict verdict = judge(judged_case, timeout_s_.load(), reports, ctx_, name);
  std::fprintf(stderr, "preflight: timeout: %s\n", verdict.message.c_str());
  std::fflush(stderr);
  if (on_timeout_) on_timeout_(verdict);
  std::fflush(nullptr);
  _exit(exit_code::kTimeout);
}

}  // namespace preflight
