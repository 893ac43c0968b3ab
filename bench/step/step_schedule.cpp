#include "step/step_schedule.hpp"

#include <fmt/format.h>

namespace preflight::step {

void HostSchedule::compute(std::size_t gemm) {
  ops_.gemms[gemm]->launch();
  gemms_launched_.push_back(gemm);
}

void HostSchedule::communicate(std::size_t, std::size_t op) {
  ops_.comms[op]->launch();
  comms_launched_.push_back(op);
}

void HostSchedule::wait_compute() {
  for (std::size_t g : gemms_launched_) ops_.gemms[g]->wait();
  gemms_launched_.clear();
}

void HostSchedule::wait_communication() {
  for (std::size_t c : comms_launched_) ops_.comms[c]->wait();
  comms_launched_.clear();
}

void RecordedSchedule::compute(std::size_t gemm) {
  log_->push_back(fmt::format("compute {}", gemm));
  if (inner_) inner_->compute(gemm);
}

void RecordedSchedule::gradient_ready(std::size_t bucket) {
  log_->push_back(fmt::format("ready {}", bucket));
  if (inner_) inner_->gradient_ready(bucket);
}

void RecordedSchedule::communicate(std::size_t bucket, std::size_t op) {
  log_->push_back(fmt::format("comm {} {}", bucket, op));
  if (inner_) inner_->communicate(bucket, op);
}

void RecordedSchedule::wait_compute() {
  log_->push_back("wait compute");
  if (inner_) inner_->wait_compute();
}

void RecordedSchedule::wait_communication() {
  log_->push_back("wait comm");
  if (inner_) inner_->wait_communication();
}

}  // namespace preflight::step
