// An operation of a compute family, watched: the rate it reached in each interval of its point
// (to see clocks fall as a device heats, over a long timing budget) and the telemetry sampled
// while it ran. It passes every call of the Operation contract through to the operation itself.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "harness/run/case.hpp"
#include "telemetry/sampler.hpp"

namespace preflight::telemetry {

// Work done per interval: rows of work / interval_s, from the first launch on; the last, partial
// interval is divided by its own length. Wait i completed ops_done[i] - ops_done[i - 1]
// operations, launched from started_at_s[i] on: their work is spread evenly over
// [started_at_s[i], done_at_s[i]], since a block of operations queued back to back and waited
// for once ran through that whole span (counted where it completed, a 10 s block of 1 s rows
// read as nine rows of 0 and one of ten times the device's peak).
std::vector<double> interval_rates(const std::vector<double>& started_at_s,
                                   const std::vector<double>& done_at_s,
                                   const std::vector<double>& ops_done, double work_per_op,
                                   double interval_s);

class ObservedOperation final : public Operation {
 public:
  // work_per_op in the unit of the rate series (TFLOP, GB); the series are the interval rate
  // and then plan.series, in that order (the case's series() must declare the same).
  ObservedOperation(std::unique_ptr<Operation> inner, const TelemetryPlan& plan, double work_per_op,
                    double interval_s);
  void fill() override { inner_->fill(); }
  void run() override {
    launch();
    wait();
  }
  void launch() override;
  void wait() override;
  DeviceTimer* device_timer() override { return inner_->device_timer(); }
  std::uint64_t count_wrong() override { return inner_->count_wrong(); }
  void corrupt_result() override { inner_->corrupt_result(); }
  void before_iteration() override { inner_->before_iteration(); }
  std::vector<std::vector<double>> series() override;
  Operation& inner() { return *inner_; }

 private:
  using Clock = std::chrono::steady_clock;
  std::unique_ptr<Operation> inner_;
  Sampler sampler_;
  double work_per_op_, interval_s_;
  Clock::time_point first_{};
  bool started_ = false;
  double launched_ = 0;
  std::vector<double> started_at_s_, done_at_s_, ops_done_;
};

}  // namespace preflight::telemetry
