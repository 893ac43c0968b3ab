// Rank 0's progress and results on the terminal: a line per case, then a table in the shape
// nccl-tests users know (a row per size), written as each point finishes.
#pragma once

#include <cstdio>

#include "harness/sinks/sink.hpp"

namespace preflight {

class ConsoleSink final : public ResultSink {
 public:
  // A progress bar is drawn when `out` is a terminal.
  explicit ConsoleSink(std::FILE* out);
  void case_started(const CaseHeading& heading) override;
  void point_finished(const CaseHeading& heading, const PointResult& point) override;
  void case_finished(const CaseRecord& record) override;
  void case_timed_out(const CaseRecord& partial, const TimeoutVerdict& verdict) override;
  void run_finished(const std::string& status, int exit_code, const std::string& note) override;

 private:
  std::FILE* out_;
  bool terminal_ = false;
  std::size_t failed_cases_ = 0;
  std::size_t cases_ = 0;
};

}  // namespace preflight
