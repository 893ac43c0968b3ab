// The harness's timing loop with fake operations on one rank (MPI_COMM_SELF): asynchronous
// operations are launched and waited for where the contract says, and a device timer replaces
// the host clock.
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "harness/run/runner.hpp"

namespace preflight {
namespace {

// MPI starts with the first test that needs it (a singleton: no mpirun) and ends with the
// program, so that tests that need no MPI do not pay for it.
class MpiEnvironment : public ::testing::Environment {
 public:
  void TearDown() override {
    int started = 0, ended = 0;
    MPI_Initialized(&started);
    MPI_Finalized(&ended);
    if (started && !ended) MPI_Finalize();
  }
};
[[maybe_unused]] const auto* const kMpi = ::testing::AddGlobalTestEnvironment(new MpiEnvironment);

RankContext lone_rank_context() {
  int started = 0;
  MPI_Initialized(&started);
  if (!started) MPI_Init(nullptr, nullptr);
  RankContext ctx;
  ctx.world = MPI_COMM_SELF;
  ctx.host = "test";
  ctx.node_of_rank = {0};
  ctx.local_rank_of_rank = {0};
  ctx.host_of_rank = {"test"};
  ctx.node_names = {"test"};
  return ctx;
}

TimingOptions fixed_iteration_timing(int warmup, int iterations, int blocks) {
  TimingOptions t;
  t.warmup = warmup;
  t.min_iterations = iterations;
  t.max_iterations = iterations;
  t.budget_s = 3600;
  t.batch_blocks = blocks;
  return t;
}

// A one-rank case around whatever operation the test makes.
constexpr preflight::schema::FamilySchema kDeclaration{.name = "fake"};

class FakeCase final : public Case {
 public:
  explicit FakeCase(std::function<std::unique_ptr<Operation>()> make) : make_(std::move(make)) {}
  std::string name() const override { return "fake"; }
  std::string backend() const override { return "fake"; }
  std::vector<Param> params() const override { return {}; }
  const std::vector<int>& group_of_rank() const override { return groups_; }
  std::size_t point_count() const override { return 1; }
  std::vector<Param> point_columns(std::size_t, int) const override { return {}; }
  std::vector<Metric> metrics(std::size_t, int, double) const override { return {}; }
  std::unique_ptr<Operation> make_operation(std::size_t) override { return make_(); }
  const preflight::schema::FamilySchema& declaration() const override { return kDeclaration; }
  preflight::schema::OwnMeaning own_meaning() const override { return {}; }

 private:
  std::function<std::unique_ptr<Operation>()> make_;
  std::vector<int> groups_{0};
};

// Writes every call into `log`: L launch, W wait, C count_wrong, F fill, S/T/R timer start,
// stop, seconds.
class LoggingTimer final : public DeviceTimer {
 public:
  LoggingTimer(std::string& log, double seconds) : log_(log), seconds_(seconds) {}
  void start() override { log_ += 'S'; }
  void stop() override { log_ += 'T'; }
  double seconds() override {
    log_ += 'R';
    return seconds_;
  }

 private:
  std::string& log_;
  double seconds_;
};

class LoggingOperation final : public AsyncOperation {
 public:
  LoggingOperation(std::string& log, double timer_seconds)
      : log_(log), timer_(log, timer_seconds), with_timer_(timer_seconds > 0) {}
  void fill() override { log_ += 'F'; }
  void launch() override { log_ += 'L'; }
  void wait() override { log_ += 'W'; }
  DeviceTimer* device_timer() override { return with_timer_ ? &timer_ : nullptr; }
  std::uint64_t count_wrong() override {
    log_ += 'C';
    return 0;
  }
  void corrupt_result() override {}

 private:
  std::string& log_;
  LoggingTimer timer_;
  bool with_timer_;
};

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(AsyncOperation, BackToBackLaunchesNAndWaitsOnce) {
  const RankContext ctx = lone_rank_context();
  std::string log;
  FakeCase c([&] { return std::make_unique<LoggingOperation>(log, 0); });
  const PointResult p =
      run_point(c, 0, ctx, fixed_iteration_timing(3, 12, 2), RunControls{}, 0, nullptr);
  ASSERT_EQ(p.iterations, 12);
  ASSERT_EQ(p.batch_blocks, 2);
  ASSERT_EQ(p.batch_ops, 6);
  // The check waits before it counts; warm-up and timed iterations wait after each launch;
  // each back-to-back block launches batch_ops and waits once.
  EXPECT_EQ(log, "FLWC" + repeat("LW", 3 + 12) + repeat(repeat("L", 6) + "W", 2));
}

TEST(AsyncOperation, DeviceTimerReplacesHostClock) {
  const RankContext ctx = lone_rank_context();
  std::string log;
  // 250 s a launch as the device saw it: no host clock could have measured that here.
  FakeCase c([&] { return std::make_unique<LoggingOperation>(log, 250.0); });
  const PointResult p =
      run_point(c, 0, ctx, fixed_iteration_timing(2, 5, 2), RunControls{}, 0, nullptr);
  ASSERT_EQ(p.samples.size(), 5u);
  for (double s : p.samples) EXPECT_DOUBLE_EQ(s, 250.0);
  ASSERT_EQ(p.batched.size(), 2u);
  ASSERT_EQ(p.batch_ops, 2);
  for (double s : p.batched) EXPECT_DOUBLE_EQ(s, 250.0 / 2);  // the block's time per operation
  // Marks around the launches, read after the wait.
  EXPECT_EQ(log, "FLWC" + repeat("SLTWR", 2 + 5) + repeat("SLLTWR", 2));
}

// Real asynchronous work: launch() queues a sleep on a worker thread, wait() waits for the
// queue to drain; the result exists only once the work ran.
class ThreadedOperation final : public AsyncOperation {
 public:
  explicit ThreadedOperation(std::chrono::microseconds work) : work_(work) {
    worker_ = std::thread([this] { serve(); });
  }
  ~ThreadedOperation() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    worker_.join();
  }
  void fill() override { result_ = 0; }
  void launch() override {
    std::lock_guard lock(mutex_);
    ++queued_;
    changed_.notify_all();
  }
  void wait() override {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return queued_ == 0; });
  }
  std::uint64_t count_wrong() override { return result_ == 1 ? 0 : 1; }
  void corrupt_result() override {}

 private:
  void serve() {
    std::unique_lock lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return stop_ || queued_ > 0; });
      if (stop_) return;
      lock.unlock();
      std::this_thread::sleep_for(work_);
      result_ = 1;
      lock.lock();
      --queued_;
      changed_.notify_all();
    }
  }
  std::chrono::microseconds work_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int queued_ = 0;
  bool stop_ = false;
  int result_ = 0;  // written by the worker before it signals, read after wait()
  std::thread worker_;
};

TEST(AsyncOperation, HostClockIncludesTheWaitAndTheCheckSeesTheResult) {
  const RankContext ctx = lone_rank_context();
  constexpr auto kWork = std::chrono::milliseconds(2);
  FakeCase c([&] { return std::make_unique<ThreadedOperation>(kWork); });
  const PointResult p =
      run_point(c, 0, ctx, fixed_iteration_timing(1, 4, 1), RunControls{}, 0, nullptr);
  ASSERT_EQ(p.wrong_per_rank.size(), 1u);
  EXPECT_EQ(p.wrong_per_rank[0], 0u);              // the check waited for the work before counting
  for (double s : p.samples) EXPECT_GE(s, 0.002);  // each timed iteration waited for its work
  ASSERT_EQ(p.batched.size(), 1u);
  EXPECT_GE(p.batched[0], 0.002);  // the block waited for all batch_ops launches
}

// A synchronous operation implements run() alone; launch() runs it and wait() does nothing.
class CountingOperation final : public Operation {
 public:
  explicit CountingOperation(int& runs) : runs_(runs) {}
  void fill() override {}
  void run() override { ++runs_; }
  std::uint64_t count_wrong() override { return 0; }
  void corrupt_result() override {}

 private:
  int& runs_;
};

TEST(AsyncOperation, SynchronousOperationRunsOncePerLaunch) {
  const RankContext ctx = lone_rank_context();
  int runs = 0;
  FakeCase c([&] { return std::make_unique<CountingOperation>(runs); });
  const PointResult p =
      run_point(c, 0, ctx, fixed_iteration_timing(3, 10, 2), RunControls{}, 0, nullptr);
  EXPECT_EQ(runs, 1 + 3 + 10 + 2 * p.batch_ops);
  for (double s : p.samples) EXPECT_FALSE(std::isnan(s));
}

}  // namespace
}  // namespace preflight
