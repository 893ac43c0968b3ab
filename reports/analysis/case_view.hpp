// Convenient reads of one case's stats table: a point's row for all groups together or for the
// first group, its x, a metric, the case's subject. Everything a figure means comes from the
// case's declaration (CaseData::meaning and each Column's), never from a family's name.
#pragma once

#include <fmt/format.h>

#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "preflight/schema/attr.hpp"
#include "reader/results_reader.hpp"

namespace preflight::report {

// A column every family writes (layout.hpp's kStatsColumns), not one of the family's own.
bool core_column(const std::string& name);

class CaseView {
 public:
  explicit CaseView(const CaseData& data) : c(data) {}
  const CaseData& c;

  // A case attribute through its one declaration (CaseData::get): nullopt when the case lacks
  // it or it is not of the declared type.
  template <typename T>
  std::optional<T> get(const schema::Attr<T>& attr) const {
    return c.get(attr);
  }
  int repetition() const;
  // A case is the same case in two runs when its name, benchmark, variant and repetition match:
  // "name | benchmark | variant | repetition".
  std::string identity() const;
  // The same without the repetition: "name | benchmark | variant". A campaign's repetitions of
  // one case are its run-to-run replicates.
  std::string replicate_identity() const;
  // What stays the same when only the scale changes: the declared subject, after the benchmark's
  // name and with the variant when not the default.
  std::string subject() const;

  std::size_t points() const;
  // Row of `point` for all groups together, or for group `group`; SIZE_MAX when absent.
  std::size_t row(std::size_t point, int group = -1) const;
  double number(const std::string& column, std::size_t row) const;  // NaN when absent
  double size_at(std::size_t point) const;  // the declared x_axis; NaN when none
  std::string x_unit() const;               // the x_axis column's unit
  std::string x_noun() const;  // "blocks" for an x named block_bytes; "" for size_bytes, others
  // The metric at a point: the all-groups row, or the median of the groups' rows where the
  // all-groups value is not defined (groups of different sizes).
  double metric_at(const std::string& metric, std::size_t point) const;
  // Ranks of one group (the first), and its median time at a point.
  double group_ranks(std::size_t point) const;
  double group_time(std::size_t point) const;
  // The declared headline column ("" when it has none).
  std::string primary_metric() const;
  // The family's metrics: its columns (not core ones) with a direction, not the batched twins.
  std::vector<std::string> metrics() const;
  schema::Direction direction(const std::string& column) const;
  // The work all ranks did in each iteration at a point (the declared work counter's sum over
  // ranks); nullptr when the case declares none.
  const std::vector<double>* work(std::size_t point) const;
  // Each timed iteration's time (the slowest rank's), scaled to `reference_work` where the case
  // declares a work counter (a time-bounded iteration): lower is better either way.
  std::vector<double> comparable_times(std::size_t point, double reference_work) const;
  // The median of the work per iteration at a point; NaN when not counted.
  double median_work(std::size_t point) const;
  // "1048576 B", "262144 B blocks", or "point 3".
  std::string point_label(std::size_t point) const;
  // What identifies a point across runs: its x, else its index.
  double point_key(std::size_t point) const;
  // The point with that key; SIZE_MAX when the case has none.
  std::size_t find_point(double key) const;
};

// A number attribute for arithmetic (CaseView::get): NaN when the case lacks it, so that what
// is computed from it is NaN too.
template <typename T>
double or_nan(const std::optional<T>& value) {
  static_assert(std::is_arithmetic_v<T>, "a number attribute");
  return value ? static_cast<double>(*value) : std::numeric_limits<double>::quiet_NaN();
}

// An attribute in a sentence: its text, "" when the case lacks it. A whole number as the reader
// has always written it.
inline std::string attribute_text(const std::optional<std::string>& value) {
  return value.value_or("");
}
template <std::integral T>
std::string attribute_text(const std::optional<T>& value) {
  return value ? fmt::format("{}", *value) : std::string();
}

}  // namespace preflight::report
