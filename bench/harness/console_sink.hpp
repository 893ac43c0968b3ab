// Rank 0's progress and results on the terminal: a line per case, then a table in the shape
// nccl-tests users know (a row per size), written as each point finishes.
#pragma once

#include <cstdio>

#include "harness/sink.hpp"

namespace preflight {

class ConsoleSink final : public ResultSink {
 public:
  explicit ConsoleSink(std::FILE* out) : out_(out) {}
  void case_started(const CaseHeading& heading) override;
  void point_finished(const CaseHeading& heading, const PointResult& point) override;
  void case_finished(const CaseRecord& record) override;
  void run_finished(const std::string& status, int exit_code) override;

 private:
  std::FILE* out_;
  std::size_t failed_cases_ = 0;
  std::size_t cases_ = 0;
};

}  // namespace preflight
