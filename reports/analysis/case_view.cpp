#include "analysis/case_view.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>

#include "preflight/common/stats.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight::report {
namespace {}  // namespace

bool core_column(const std::string& name) {
  for (const auto& item : schema::kStatsColumns)
    if (item.name == name) return true;
  return false;
}

int CaseView::repetition() const {
  const auto r = get(schema::harness::kRepetition);
  return r ? static_cast<int>(*r) : 0;
}

std::string CaseView::identity() const {
  return fmt::format("{} | {} | {} | {}", c.name, attribute_text(get(schema::harness::kBenchmark)),
                     attribute_text(get(schema::harness::kVariant)), repetition());
}

std::string CaseView::replicate_identity() const {
  return fmt::format("{} | {} | {}", c.name, attribute_text(get(schema::harness::kBenchmark)),
                     attribute_text(get(schema::harness::kVariant)));
}

std::string CaseView::subject() const {
  std::string name = c.meaning.subject.empty() ? c.name : c.meaning.subject;
  const auto benchmark = attribute_text(get(schema::harness::kBenchmark));
  if (!benchmark.empty()) name = benchmark + ": " + name;
  const auto variant = attribute_text(get(schema::harness::kVariant));
  if (!variant.empty() && variant != "default") name += " (variant " + variant + ")";
  return name;
}

std::size_t CaseView::points() const {
  const auto it = c.stats.find("point");
  std::size_t n = 0;
  if (it != c.stats.end())
    for (double p : it->second.numbers) n = std::max(n, static_cast<std::size_t>(p) + 1);
  return n;
}

std::size_t CaseView::row(std::size_t point, int group) const {
  if (!c.row_index.empty()) {
    const auto it = c.row_index.find({static_cast<std::int64_t>(point), group});
    return it == c.row_index.end() ? SIZE_MAX : it->second;
  }
  const auto p = c.stats.find("point"), g = c.stats.find("group");
  if (p == c.stats.end() || g == c.stats.end()) return SIZE_MAX;
  for (std::size_t r = 0; r < p->second.numbers.size(); ++r)
    if (p->second.numbers[r] == static_cast<double>(point) &&
        g->second.numbers[r] == static_cast<double>(group))
      return r;
  return SIZE_MAX;
}

double CaseView::number(const std::string& column, std::size_t r) const {
  const auto it = c.stats.find(column);
  if (it == c.stats.end() || r >= it->second.numbers.size()) return kNaN;
  return it->second.numbers[r];
}

double CaseView::size_at(std::size_t point) const {
  return c.meaning.x_axis.empty() ? kNaN : number(c.meaning.x_axis, row(point));
}

std::string CaseView::x_unit() const {
  const auto it = c.stats.find(c.meaning.x_axis);
  return it == c.stats.end() ? std::string() : it->second.unit;
}

std::string CaseView::x_noun() const {
  // "block_bytes" -> "blocks": an x named after what it measures in bytes; none for a plain
  // size (size_bytes) or any other x ("work_units" reads as its value and unit alone).
  constexpr std::string_view kBytes = "_bytes";
  const auto& name = c.meaning.x_axis;
  if (name.size() <= kBytes.size() ||
      name.compare(name.size() - kBytes.size(), kBytes.size(), kBytes) != 0)
    return {};
  const auto noun = name.substr(0, name.size() - kBytes.size());
  return noun == "size" ? std::string() : noun + "s";
}

double CaseView::metric_at(const std::string& metric, std::size_t point) const {
  const double all = number(metric, row(point));
  if (!std::isnan(all)) return all;
  std::vector<double> groups;
  const double group_count = or_nan(get(schema::harness::kGroupCount));
  for (int g = 0; g < group_count; ++g) {
    const double v = number(metric, row(point, g));
    if (!std::isnan(v)) groups.push_back(v);
  }
  return groups.empty() ? kNaN : median(groups);
}

double CaseView::group_ranks(std::size_t point) const {
  const auto first = row(point, 0);
  return number("group_ranks", first != SIZE_MAX ? first : row(point));
}

double CaseView::group_time(std::size_t point) const {
  const auto first = row(point, 0);
  return number("time_median", first != SIZE_MAX ? first : row(point));
}

std::vector<std::string> CaseView::metrics() const {
  std::vector<std::string> names;
  for (const auto& [name, column] : c.stats)
    if (column.direction != schema::Direction::kNone && !core_column(name) &&
        name.rfind(schema::kBatchedPrefix, 0) != 0)
      names.push_back(name);
  return names;
}

std::string CaseView::primary_metric() const {
  for (const auto& [name, column] : c.stats)
    if (column.headline) return name;
  return {};
}

schema::Direction CaseView::direction(const std::string& column) const {
  const auto it = c.stats.find(column);
  return it == c.stats.end() ? schema::Direction::kNone : it->second.direction;
}

std::string CaseView::point_label(std::size_t point) const {
  const double x = size_at(point);
  if (std::isnan(x)) return fmt::format("point {}", point);
  const auto noun = x_noun(), unit = x_unit();
  return fmt::format("{:.0f}{}{}{}{}", x, unit.empty() ? "" : " ", unit, noun.empty() ? "" : " ",
                     noun);
}

const std::vector<double>* CaseView::work(std::size_t point) const {
  if (c.meaning.work_counter.empty()) return nullptr;
  const auto it = c.iteration_totals.find(c.meaning.work_counter);
  if (it == c.iteration_totals.end() || point >= it->second.size() || it->second[point].empty())
    return nullptr;
  return &it->second[point];
}

std::vector<double> CaseView::comparable_times(std::size_t point, double reference_work) const {
  if (point >= c.iteration_times.size()) return {};
  auto times = c.iteration_times[point];
  const auto* done = work(point);
  if (done == nullptr || done->size() != times.size() || !(reference_work > 0)) return times;
  for (std::size_t i = 0; i < times.size(); ++i) times[i] *= reference_work / (*done)[i];
  return times;
}

double CaseView::median_work(std::size_t point) const {
  const auto* done = work(point);
  return done == nullptr ? kNaN : median(*done);
}

double CaseView::point_key(std::size_t point) const {
  const double x = size_at(point);
  return std::isnan(x) ? static_cast<double>(point) : x;
}

std::size_t CaseView::find_point(double key) const {
  for (std::size_t p = 0; p < points(); ++p)
    if (point_key(p) == key) return p;
  return SIZE_MAX;
}

}  // namespace preflight::report
