// Where finished results go: the console table, the HDF5 file. Only rank 0 has sinks.
#pragma once

#include <string>

#include "harness/run/record.hpp"

namespace preflight {

struct CaseHeading {
  std::size_t index = 0;  // in the whole campaign
  std::size_t total = 0;
  const Case* c = nullptr;
  double elapsed_s = 0;
  double left_s = 0;       // estimate; NaN before the first case ends
  std::size_t done = 0;    // cases run so far in this run
  std::size_t to_run = 0;  // cases this run will run (less on resume)
  // A soak's (total and to_run are one round's): its round, the time soaked and its duration,
  // rounds likely left (-1: not known yet), and the worst node so far ("" : none yet).
  long round = -1;  // -1: not a soak
  double soaked_s = 0, soak_s = 0;
  long rounds_left = -1;
  std::string worst_node = {};
};

struct TimeoutVerdict;

class ResultSink {
 public:
  virtual ~ResultSink() = default;
  virtual void case_started(const CaseHeading& heading) = 0;
  virtual void point_finished(const CaseHeading& heading, const PointResult& point) = 0;
  virtual void case_finished(const CaseRecord& record) = 0;
  // The watchdog's thread calls this (under the progress mutex) with what the case finished.
  virtual void case_timed_out(const CaseRecord& partial, const TimeoutVerdict& verdict) = 0;
  // `status` is a schema run status; `exit_code` what preflight will exit with.
  virtual void run_finished(const std::string& status, int exit_code, const std::string& note) = 0;
};

}  // namespace preflight
