#include "render/terminal.hpp"

#include "analysis/outliers.hpp"

#include <fmt/format.h>

#include <cmath>

namespace preflight::report {
namespace {

std::string number(double v, double scale, int decimals) {
  return std::isnan(v) ? std::string("-") : fmt::format("{:.{}f}", v * scale, decimals);
}

// The metrics a family wrote (columns with a "better" direction), per-iteration ones only.
std::vector<std::string> metric_names(const CaseData& c) {
  std::vector<std::string> names;
  for (const auto& [name, column] : c.stats)
    if (!column.better.empty() && name.rfind("batched_", 0) != 0) names.push_back(name);
  return names;
}

void print_case(std::FILE* out, const CaseData& c) {
  fmt::print(out, "\n{} {} [{}]\n", c.group_name, c.name, c.status);
  if (c.status == "timeout" && c.params.count("timeout_message"))
    fmt::print(out, "  {}\n", c.params.at("timeout_message"));
  if (c.rows() == 0) return;
  const auto metrics = metric_names(c);
  const bool sized = c.stats.count("size_bytes") > 0;
  fmt::print(out, "  {:>12} {:>6} {:>11} {:>11} {:>7}", sized ? "size(B)" : "point", "iters",
             "median(us)", "p95(us)", "cv(%)");
  for (const auto& m : metrics)
    fmt::print(out, " {:>12}", fmt::format("{}({})", m, c.stats.at(m).unit));
  fmt::print(out, " {:>7}\n", "wrong");
  const auto& group = c.stats.at("group").numbers;
  for (std::size_t r = 0; r < c.rows(); ++r) {
    if (group[r] != -1) continue;  // all groups together; per-group rows are in the file
    const auto col = [&](const char* name) { return c.stats.at(name).numbers[r]; };
    fmt::print(out, "  {:>12} {:>6} {:>11} {:>11} {:>7}",
               number(sized ? col("size_bytes") : col("point"), 1, 0),
               number(col("iterations"), 1, 0), number(col("time_median"), 1e6, 2),
               number(col("time_p95"), 1e6, 2), number(col("time_cv"), 100, 1));
    for (const auto& m : metrics)
      fmt::print(out, " {:>12}", number(c.stats.at(m).numbers[r], 1, 2));
    fmt::print(out, " {:>7}\n", number(col("wrong"), 1, 0));
  }
}

}  // namespace

void print_summary(std::FILE* out, const RunData& run) {
  std::size_t failed = 0, timed_out = 0;
  for (const auto& c : run.cases) {
    failed += c.status == "failed";
    timed_out += c.status == "timeout";
  }
  fmt::print(out,
             "# {}: run {} (exit {}), {} ranks on {} nodes, {} case(s), {} failed, {} timed out\n",
             run.path, run.status, run.exit_code, run.world_size, run.node_count, run.cases.size(),
             failed, timed_out);
  fmt::print(out, "# preflight {} · started {} · {}\n", run.git_revision, run.start_time,
             run.command_line);
  const auto outliers = find_outliers(run);
  if (outliers.empty()) fmt::print(out, "# slow nodes or ranks: none found\n");
  for (const auto& o : outliers) {
    std::string ranks;
    for (int r : o.ranks) ranks += fmt::format("{}{}", ranks.empty() ? "" : ",", r);
    fmt::print(out,
               "# slow {}: {} (ranks {}): {:.2f}x its peers' typical time (robust z {:.1f}) over "
               "{} sizes\n",
               o.kind, o.name, ranks, o.ratio, o.z, o.sizes);
  }
  for (const auto& c : run.cases) print_case(out, c);
}

void print_regression(std::FILE* out, const RunData& baseline, const RunData& current,
                      const RegressionReport& report, const RegressionOptions& options) {
  fmt::print(out, "# regression: {} against baseline {}\n", current.path, baseline.path);
  if (report.environment.empty()) fmt::print(out, "# environment: no change\n");
  for (const auto& e : report.environment)
    fmt::print(out, "# environment changed: {}: {} -> {}\n", e.what, e.baseline.substr(0, 200),
               e.current.substr(0, 200));
  for (const auto& u : report.unmatched) fmt::print(out, "# {}\n", u);
  fmt::print(out, "\n{:<60} {:>10} {:>12} {:>12} {:>8} {:>10} {:>7}\n", "case", "size(B)",
             "base(us)", "now(us)", "change", "p-value", "verdict");
  for (const auto& p : report.points) {
    if (p.verdict == Verdict::kSame) continue;
    fmt::print(out, "{:<60.60} {:>10} {:>12.2f} {:>12.2f} {:>+7.1f}% {:>10.2g} {:>7}\n",
               p.case_name, p.size, p.baseline_median * 1e6, p.current_median * 1e6, p.change * 100,
               p.p_value, name_of(p.verdict));
  }
  fmt::print(out,
             "\n# {} size(s) compared: {} slower, {} faster, {} within the noise or below {:.0f}% "
             "(Mann-Whitney U on per-iteration times, alpha {:g})\n",
             report.points.size(), report.count(Verdict::kSlower), report.count(Verdict::kFaster),
             report.count(Verdict::kSame), options.min_change * 100, options.alpha);
}

}  // namespace preflight::report
