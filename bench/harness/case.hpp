// What the harness asks of a benchmark family. The harness owns timing, iteration counts,
// statistics and results; a family only says what its cases are and how to run one operation.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace preflight {

// A named value recorded with a case (as an attribute) or a point (as a stats column).
struct Param {
  std::string name;
  std::variant<std::int64_t, double, std::string> value;
  std::string unit;       // "" when it has none
  bool in_table = false;  // shown in each row of the console table
};

// A figure derived from a time, e.g. bus bandwidth.
struct Metric {
  std::string name;
  std::string unit;
  std::string better;  // "higher" or "lower"
  double value = 0;
};

// What one rank does for one point of a case. It owns its buffers.
class Operation {
 public:
  virtual ~Operation() = default;
  // Writes the rank- and index-dependent input pattern.
  virtual void fill() = 0;
  // One operation; it is complete on this rank when this returns.
  virtual void run() = 0;
  // Result elements that differ from what the pattern implies, after fill() then run().
  virtual std::uint64_t count_wrong() = 0;
  // Test-only fault injection: damages this rank's result so the check must catch it.
  virtual void corrupt_result() = 0;
};

// One benchmark case: a fixed set of parameters swept over points (sizes). Every rank holds
// the same case; ranks outside all groups idle through it.
class Case {
 public:
  virtual ~Case() = default;
  virtual std::string name() const = 0;
  virtual std::string family() const = 0;
  virtual std::string backend() const = 0;
  virtual std::vector<Param> params() const = 0;
  // world rank -> index of the group it runs in, -1 when idle. Groups run at the same time.
  virtual const std::vector<int>& group_of_rank() const = 0;
  virtual std::size_t point_count() const = 0;
  // Columns that describe point `point` for group `group` (-1: all groups together).
  virtual std::vector<Param> point_columns(std::size_t point, int group) const = 0;
  // Figures derived from `seconds` per operation at that point for that group.
  virtual std::vector<Metric> metrics(std::size_t point, int group, double seconds) const = 0;
  // This rank's operation at `point`, or nullptr when this rank idles in this case.
  virtual std::unique_ptr<Operation> make_operation(std::size_t point) = 0;
};

}  // namespace preflight
