#include "step/step_operation.hpp"

#include <chrono>
#include <cmath>
#include <ctime>

#include "preflight/schema/step.hpp"

namespace preflight::step {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double total_flops_of(const std::vector<GemmCall>& calls) {
  double sum = 0;
  for (const auto& c : calls) sum += c.flops;
  return sum;
}

double process_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace

StepOperation::StepOperation(StepPlan plan, std::vector<std::unique_ptr<Operation>> gemms,
                             std::vector<std::unique_ptr<Operation>> comms,
                             std::unique_ptr<DataFeed> feed)
    : plan_(std::move(plan)), ops_{std::move(gemms), std::move(comms)}, feed_(std::move(feed)) {
  schedule_ = make_cuda_schedule(ops_, plan_.buckets.size());
  if (!schedule_) schedule_ = std::make_unique<HostSchedule>(ops_);
}

void StepOperation::record_schedule(std::vector<std::string>* log) {
  schedule_ = std::make_unique<RecordedSchedule>(std::move(schedule_), log);
}

void StepOperation::before_iteration() {
  if (feed_) feed_->prepare();
}

void StepOperation::fill() {
  for (auto& g : ops_.gemms) g->fill();
  for (auto& c : ops_.comms) c->fill();
}

// The bucket's gradient is complete with what was computed so far; then its collectives, in
// turn: a synchronous backend (MPI) completes each as it is sent, an asynchronous one (NCCL)
// queues it on the communication stream behind the bucket's event. Returns the host time the
// collectives took to send, not the wait for the gradient (compute).
double StepOperation::send_bucket(std::size_t b) {
  schedule_->gradient_ready(b);
  const auto t = Clock::now();
  for (std::size_t op : plan_.buckets[b].ops) schedule_->communicate(b, op);
  return seconds_between(t, Clock::now());
}

// Runs the calls in order; with fill_buckets, launches each bucket as soon as the backward
// pass has done its share of the work (the gradient fills in proportion to backward FLOPs),
// but never the last: it is ready only when the pass ends.
void StepOperation::run_pass(const std::vector<GemmCall>& calls, bool fill_buckets) {
  const double total = total_flops_of(calls);
  const std::size_t early = plan_.buckets.empty() ? 0 : plan_.buckets.size() - 1;
  double done = 0;
  for (const auto& call : calls) {
    for (std::int64_t i = 0; i < call.count; ++i) schedule_->compute(call.op);
    done += call.flops;
    if (!fill_buckets) continue;
    while (next_bucket_ < early &&
           done >= total * double(next_bucket_ + 1) / double(plan_.buckets.size())) {
      comm_in_compute_s_ += send_bucket(next_bucket_++);
    }
  }
}

// Each micro-batch takes its batch from the feed before its forward pass (the wait is data
// that nothing hid) and gives it back once its GEMMs are done; the last take starts the
// loader on the next step's batches, beside this step's last GEMMs and its gradient.
void StepOperation::run() {
  next_bucket_ = 0;
  comm_in_compute_s_ = 0;
  double data_s = 0;
  const double process_cpu = process_cpu_s(), loader_cpu = feed_ ? feed_->workers_cpu_s() : 0;
  const auto start = Clock::now();
  for (std::int64_t micro = 0; micro < plan_.accumulation; ++micro) {
    const bool last = micro + 1 == plan_.accumulation;
    if (feed_) data_s += feed_->take();
    run_pass(plan_.forward, false);
    run_pass(plan_.backward, last && plan_.overlap);
    if (feed_) {
      schedule_->wait_compute();
      feed_->release();
    }
  }
  schedule_->wait_compute();
  const auto computed = Clock::now();
  while (next_bucket_ < plan_.buckets.size()) send_bucket(next_bucket_++);
  schedule_->wait_communication();
  const auto end = Clock::now();
  // The loader's part of the CPU time the rank used in the step: where the GEMMs and the
  // collectives' copies run on the same cores, the share of their time the workers took.
  if (feed_) {
    const double loader = feed_->workers_cpu_s() - loader_cpu;
    const double rest = process_cpu_s() - process_cpu - loader;
    data_cpu_share_ = loader + rest > 0 ? loader / (loader + rest) : std::nan("");
  }
  compute_s_ = seconds_between(start, computed) - comm_in_compute_s_ - data_s;
  comm_exposed_s_ = seconds_between(computed, end) + comm_in_compute_s_;
  data_exposed_s_ = feed_ ? data_s : std::nan("");
}

std::uint64_t StepOperation::count_wrong() {
  std::uint64_t wrong = 0;
  for (auto& g : ops_.gemms) wrong += g->count_wrong();
  for (auto& c : ops_.comms) wrong += c->count_wrong();
  return wrong;
}

void StepOperation::corrupt_result() {
  if (!ops_.gemms.empty()) ops_.gemms.front()->corrupt_result();
}

std::vector<double> StepOperation::iteration_counters() {
  namespace c = schema::step;
  std::vector<double> out(schema::kStepCounters.size());
  const auto at = [&](const schema::Column& counter) -> double& {
    return out[schema::index_in(schema::kStepCounters, counter)];
  };
  at(c::kComputeSCounter) = compute_s_;
  at(c::kCommExposedSCounter) = comm_exposed_s_;
  at(c::kDataExposedSCounter) = data_exposed_s_;
  at(c::kDataResidentBeforeCounter) = feed_ ? feed_->resident_before() : std::nan("");
  at(c::kDataBusySCounter) = feed_ ? feed_->busy() : std::nan("");
  at(c::kDataCpuShareCounter) = feed_ ? data_cpu_share_ : std::nan("");
  return out;
}

}  // namespace preflight::step
