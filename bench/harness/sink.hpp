// Where finished results go: the console table, the HDF5 file. Only rank 0 has sinks.
#pragma once

#include <string>

#include "harness/record.hpp"

namespace preflight {

struct CaseHeading {
  std::size_t index = 0;
  std::size_t total = 0;
  const Case* c = nullptr;
};

class ResultSink {
 public:
  virtual ~ResultSink() = default;
  virtual void case_started(const CaseHeading& heading) = 0;
  virtual void point_finished(const CaseHeading& heading, const PointResult& point) = 0;
  virtual void case_finished(const CaseRecord& record) = 0;
  // `status` is a schema run status; `exit_code` what preflight will exit with.
  virtual void run_finished(const std::string& status, int exit_code) = 0;
};

}  // namespace preflight
