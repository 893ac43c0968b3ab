#include "harness/sinks/console_sink.hpp"

#include <fmt/format.h>

#include <unistd.h>
#include <cmath>

#include <string>
#include <vector>
#include "harness/run/watchdog.hpp"

namespace preflight {
namespace {

struct Cell {
  std::string header, unit, text;
  int width;
};

std::string param_text(const Param& p) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>)
          return v;
        else if constexpr (std::is_same_v<T, double>)
          return fmt::format("{:.4g}", v);
        else
          return fmt::format("{}", v);
      },
      p.value);
}

std::string number(double v, int decimals) {
  return std::isnan(v) ? std::string("-") : fmt::format("{:.{}f}", v, decimals);
}

// Metrics span many magnitudes (GB/s, ops/s, seconds of latency, bytes): small and large
// ones in 3 significant digits, the rest with 2 decimals.
std::string metric_text(double v) {
  if (std::isnan(v)) return "-";
  const double a = std::abs(v);
  return a != 0 && (a < 0.01 || a >= 1e7) ? fmt::format("{:.3g}", v) : fmt::format("{:.2f}", v);
}

std::vector<Cell> row_cells(const Case& c, const PointResult& p) {
  const GroupResult& all = p.groups.front();
  std::vector<Cell> cells;
  for (const auto& col : all.columns) cells.push_back({col.name, col.unit, param_text(col), 12});
  for (const auto& par : c.params())
    if (par.in_table) cells.push_back({par.name, par.unit, param_text(par), 8});
  cells.push_back({"iters", "", fmt::format("{}", p.iterations), 6});
  cells.push_back({"time", "us", number(all.per_iteration.median * 1e6, 2), 10});
  cells.push_back({"p95", "us", number(all.per_iteration.p95 * 1e6, 2), 10});
  cells.push_back({"cv", "%", number(all.per_iteration.cv * 100, 1), 6});
  for (const auto& m : all.metrics) cells.push_back({m.name, m.unit, metric_text(m.value), 8});
  cells.push_back({"batch", "us", number(all.batched.median * 1e6, 2), 10});
  for (const auto& m : all.batched_metrics)
    cells.push_back({m.name, m.unit, metric_text(m.value), 8});
  cells.push_back({"#wrong", "", fmt::format("{}", all.wrong), 7});
  return cells;
}

// 75 s -> "1:15", 3725 s -> "1:02:05".
std::string clock_text(double s) {
  const auto total = static_cast<long>(std::lround(s));
  if (total >= 3600)
    return fmt::format("{}:{:02d}:{:02d}", total / 3600, total / 60 % 60, total % 60);
  return fmt::format("{}:{:02d}", total / 60, total % 60);
}

std::string join(const std::vector<Cell>& cells, std::string (*pick)(const Cell&)) {
  std::string line;
  for (const auto& cell : cells) line += fmt::format(" {:>{}}", pick(cell), cell.width);
  return line;
}

}  // namespace

ConsoleSink::ConsoleSink(std::FILE* out) : out_(out), terminal_(isatty(fileno(out)) != 0) {}

void ConsoleSink::case_started(const CaseHeading& h) {
  const auto& groups = h.c->group_of_rank();
  int active = 0, count = 0;
  for (int g : groups) {
    if (g >= 0) ++active;
    count = std::max(count, g + 1);
  }
  if (terminal_) {
    constexpr int kWidth = 30;
    const int filled = h.to_run == 0 ? 0 : static_cast<int>(kWidth * h.done / h.to_run);
    fmt::print(out_, "\n[{}{}] {}/{} run", std::string(static_cast<std::size_t>(filled), '#'),
               std::string(static_cast<std::size_t>(kWidth - filled), '.'), h.done, h.to_run);
  }
  if (h.round >= 0)
    fmt::print(
        out_, "\n[soak round {} · {} of {} soaked · {} more round{}]{}", h.round,
        clock_text(h.soaked_s), clock_text(h.soak_s),
        h.rounds_left < 0 ? std::string("?") : fmt::format("~{}", h.rounds_left),
        h.rounds_left == 1 ? "" : "s",
        h.worst_node.empty() ? std::string() : fmt::format(" worst node so far: {}", h.worst_node));
  fmt::print(out_,
             "\n[case {}/{} · {} elapsed · {} left] {} · {} group{} · {} of {} ranks active\n",
             (h.round >= 0 && h.total > 0 ? h.index % h.total : h.index) + 1, h.total,
             clock_text(h.elapsed_s),
             std::isnan(h.left_s) ? std::string("?") : fmt::format("~{}", clock_text(h.left_s)),
             h.c->name(), count, count == 1 ? "" : "s", active, groups.size());
  std::fflush(out_);
}

void ConsoleSink::point_finished(const CaseHeading& h, const PointResult& p) {
  const auto cells = row_cells(*h.c, p);
  if (p.index == 0) {
    fmt::print(out_, "#{}\n", join(cells, [](const Cell& c) { return c.header; }).substr(1));
    fmt::print(out_, "#{}\n", join(cells, [](const Cell& c) {
                                return c.unit.empty() ? std::string() : "(" + c.unit + ")";
                              }).substr(1));
  }
  fmt::print(out_, "{}\n", join(cells, [](const Cell& c) { return c.text; }));
  std::fflush(out_);
}

void ConsoleSink::case_finished(const CaseRecord& r) {
  ++cases_;
  if (r.wrong_elements == 0) return;
  ++failed_cases_;
  std::vector<std::uint64_t> per_rank(r.group_of_rank.size(), 0);
  for (const auto& p : r.points)
    for (std::size_t i = 0; i < p.wrong_per_rank.size() && i < per_rank.size(); ++i)
      per_rank[i] += p.wrong_per_rank[i];
  std::string ranks;
  for (std::size_t i = 0; i < per_rank.size(); ++i)
    if (per_rank[i] > 0)
      ranks += fmt::format("{}rank {}: {}", ranks.empty() ? "" : ", ", i, per_rank[i]);
  fmt::print(out_, "FAILED: {}: {} wrong element(s) ({})\n", r.name, r.wrong_elements, ranks);
  std::fflush(out_);
}

void ConsoleSink::case_timed_out(const CaseRecord& partial, const TimeoutVerdict& verdict) {
  fmt::print(out_, "TIMEOUT: {}: {} size(s) had finished; {}\n", partial.name,
             partial.points.size(), verdict.message);
  std::fflush(out_);
}

void ConsoleSink::run_finished(const std::string& status, int exit_code, const std::string& note) {
  fmt::print(out_, "\n# {} case(s), {} failed; run {}; exit code {}\n", cases_, failed_cases_,
             status, exit_code);
  if (!note.empty()) fmt::print(out_, "# {}\n", note);
  std::fflush(out_);
}

}  // namespace preflight
