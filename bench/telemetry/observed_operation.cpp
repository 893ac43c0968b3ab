#include "telemetry/observed_operation.hpp"

#include <algorithm>
#include <cmath>

namespace preflight::telemetry {

std::vector<double> interval_rates(const std::vector<double>& started_at_s,
                                   const std::vector<double>& done_at_s,
                                   const std::vector<double>& ops_done, double work_per_op,
                                   double interval_s) {
  std::vector<double> rows;
  if (done_at_s.empty() || !(interval_s > 0)) return rows;
  const double end = done_at_s.back();
  const auto count = static_cast<std::size_t>(std::ceil(end / interval_s));
  rows.assign(std::max<std::size_t>(count, 1), 0);
  double before = 0;
  for (std::size_t i = 0; i < done_at_s.size(); ++i) {
    const double work = (ops_done[i] - before) * work_per_op;
    before = ops_done[i];
    // A wait with no launch before it has no start: its span is empty.
    const double start = i < started_at_s.size() ? started_at_s[i] : done_at_s[i];
    const double from = std::min(start, done_at_s[i]), to = done_at_s[i];
    if (!(to > from)) {  // no measurable span: all of it where it completed
      rows[std::min(rows.size() - 1, static_cast<std::size_t>(to / interval_s))] += work;
      continue;
    }
    // Spread evenly over the span: a batch of operations queued back to back ran through it.
    const auto last = std::min(rows.size() - 1, static_cast<std::size_t>(to / interval_s));
    const auto first = std::min(last, static_cast<std::size_t>(from / interval_s));
    for (std::size_t r = first; r <= last; ++r) {
      const double lo = std::max(from, static_cast<double>(r) * interval_s);
      const double hi = std::min(to, static_cast<double>(r + 1) * interval_s);
      if (hi > lo) rows[r] += work * (hi - lo) / (to - from);
    }
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const double length = std::min(interval_s, end - static_cast<double>(r) * interval_s);
    rows[r] = length > 0 ? rows[r] / length : std::nan("");
  }
  return rows;
}

ObservedOperation::ObservedOperation(std::unique_ptr<Operation> inner, const TelemetryPlan& plan,
                                     double work_per_op, double interval_s)
    : inner_(std::move(inner)), sampler_(plan), work_per_op_(work_per_op), interval_s_(interval_s) {
  // Room for a long sustained run without reallocating inside a timed region.
  started_at_s_.reserve(1 << 16);
  done_at_s_.reserve(1 << 16);
  ops_done_.reserve(1 << 16);
}

void ObservedOperation::launch() {
  const auto now = Clock::now();
  if (!started_) [[unlikely]] {
    first_ = now;
    started_ = true;
  }
  // The first launch since the last wait starts the span the next wait's operations ran in.
  if (launched_ == (ops_done_.empty() ? 0 : ops_done_.back()))
    started_at_s_.push_back(std::chrono::duration<double>(now - first_).count());
  inner_->launch();
  launched_ += 1;
}

void ObservedOperation::wait() {
  // A wait with nothing launched since the last one still gets its start, so that starts and
  // waits pair one to one.
  if (launched_ == (ops_done_.empty() ? 0 : ops_done_.back()))
    started_at_s_.push_back(std::chrono::duration<double>(Clock::now() - first_).count());
  inner_->wait();
  done_at_s_.push_back(std::chrono::duration<double>(Clock::now() - first_).count());
  ops_done_.push_back(launched_);
}

std::vector<std::vector<double>> ObservedOperation::series() {
  std::vector<std::vector<double>> out;
  out.push_back(interval_rates(started_at_s_, done_at_s_, ops_done_, work_per_op_, interval_s_));
  for (auto& s : sampler_.finish()) out.push_back(std::move(s));
  return out;
}

}  // namespace preflight::telemetry
