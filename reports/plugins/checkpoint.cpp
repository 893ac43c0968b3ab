// The checkpoint-interval plug-in (checkpoint): from each save case's measured blocking time,
// the restore time of the same run, and the MTBF inputs the cases record, the Young-Daly
// interval and the fraction of the run lost at it and at the planned interval, every formula
// and input shown; and a chart of the lost fraction against the interval.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <string>

#include "analysis/format.hpp"
#include "analysis/report.hpp"
#include "plugins/checkpoint_interval.hpp"
#include "plugins/plugins.hpp"
#include "preflight/common/stats.hpp"
#include "preflight/schema/checkpoint.hpp"
#include "preflight/schema/family_names.hpp"

namespace preflight::report::plugins {
namespace {

namespace ck = schema::checkpoint;

constexpr int kChartPoints = 41;     // per series, log-spaced
constexpr double kChartSpread = 32;  // from tau* / 32 to tau* x 32

std::string g(double x) {
  return std::isnan(x) ? std::string("n/a") : fmt::format("{:.4g}", x);
}

bool is_phase(const CaseView& v, std::string_view phase) {
  return v.c.family == schema::kCheckpointFamily && v.get(ck::kPhase) == phase;
}

// The save's fastest point: the block size a job would pick.
std::size_t fastest_point(const CaseView& v) {
  std::size_t best = SIZE_MAX;
  double best_s = kNaN;
  for (std::size_t p = 0; p < v.points(); ++p) {
    const double s = v.number("blocking_s", v.row(p));
    if (!std::isnan(s) && (std::isnan(best_s) || s < best_s)) best = p, best_s = s;
  }
  return best;
}

struct Restore {
  double seconds = kNaN;
  std::string from;  // the case, or why none
};

// The slowest restore of the same engine, file layout and ranks: a failure's restore is cold.
Restore restore_for(const RunData& run, const CaseView& save) {
  Restore out;
  for (const auto& c : run.cases) {
    const CaseView v(c);
    if (!is_phase(v, schema::kCheckpointRestore) || v.get(ck::kEngine) != save.get(ck::kEngine) ||
        v.get(ck::kFileLayout) != save.get(ck::kFileLayout) ||
        v.get(ck::kRanks) != save.get(ck::kRanks))
      continue;
    const double bytes = or_nan(v.get(ck::kBytesPerRank)) * or_nan(v.get(ck::kRanks));
    for (std::size_t p = 0; p < v.points(); ++p) {
      const double bw = v.number("agg_bw", v.row(p));  // GB/s
      const double s = bw > 0 ? bytes / (bw * 1e9) : kNaN;
      if (!std::isnan(s) && (std::isnan(out.seconds) || s > out.seconds)) {
        out.seconds = s;
        out.from =
            fmt::format("{} at {}: {} B / {} GB/s", c.name, v.point_label(p), g(bytes), g(bw));
      }
    }
  }
  if (std::isnan(out.seconds)) {
    out.seconds = 0;
    out.from = "no restore of this engine, file layout and ranks was measured: R = 0 (not added)";
  }
  return out;
}

ChartSeries lost_curve(const std::string& label, double save_s, double restore_s, double mtbf_s,
                       double optimum_s) {
  ChartSeries s;
  s.label = label;
  if (!(optimum_s > 0) || std::isinf(optimum_s)) return s;
  for (int i = 0; i < kChartPoints; ++i) {
    const double t = optimum_s / kChartSpread *
                     std::pow(kChartSpread * kChartSpread, i / double(kChartPoints - 1));
    s.x.push_back(t / 60);
    s.y.push_back(lost_fraction(t, save_s, restore_s, mtbf_s).total() * 100);
  }
  return s;
}

}  // namespace

void checkpoint_interval_section(const RunReport& r, std::vector<Section>& out) {
  Section s;
  s.id = "checkpoint-interval";
  s.title = fmt::format("Checkpoint interval ({})", r.label);
  Chart chart;
  chart.title = "Run time lost against checkpoint interval";
  chart.x_label = "checkpoint interval (min)";
  chart.y_label = "run time lost (%)";
  chart.log_x = chart.log_y = true;
  chart.id = "ckpt";
  std::string mtbf_line;
  for (const auto& c : r.run->cases) {
    const CaseView v(c);
    if (!is_phase(v, schema::kCheckpointSave)) continue;
    const std::size_t p = fastest_point(v);
    if (p == SIZE_MAX) continue;
    const double save_s = v.number("blocking_s", v.row(p));
    const double node_mtbf = or_nan(v.get(ck::kNodeMtbfS));
    const double nodes = or_nan(v.get(ck::kJobNodes));
    const double mtbf = job_mtbf_s(node_mtbf, nodes);
    const Restore restore = restore_for(*r.run, v);
    const double tau = young_daly_interval_s(save_s, mtbf);
    const LostFraction at_opt = lost_fraction_at_optimum(save_s, restore.seconds, mtbf);
    const double planned = or_nan(v.get(ck::kPlannedIntervalS));
    const bool has_plan = planned > 0;
    const LostFraction at_plan =
        has_plan ? lost_fraction(planned, save_s, restore.seconds, mtbf) : LostFraction{};
    if (mtbf_line.empty())
      mtbf_line = fmt::format(
          "Job MTBF M = node MTBF / job nodes = {} s / {} = {} s ({}); node MTBF from {}.",
          g(node_mtbf), g(nodes), g(mtbf), duration(mtbf),
          attribute_text(v.get(ck::kNodeMtbfSource)));
    const std::string written =
        fmt::format("{} B ({} ranks x {} B; the whole checkpoint: {} B)",
                    g(or_nan(v.get(ck::kBytesPerRank)) * or_nan(v.get(ck::kRanks))),
                    attribute_text(v.get(ck::kRanks)), attribute_text(v.get(ck::kBytesPerRank)),
                    attribute_text(v.get(ck::kCheckpointBytes)));
    std::string arithmetic = fmt::format(
        "tau* = sqrt(2 x {} s x {} s) = {} s; f(tau*) = {} s/{} s + {} s/(2 x {} s) + {} s/{} s "
        "= {} + {} + {} = {}",
        g(save_s), g(mtbf), g(tau), g(save_s), g(tau), g(tau), g(mtbf), g(restore.seconds), g(mtbf),
        percent_significant(at_opt.saving, 3), percent_significant(at_opt.recompute, 3),
        percent_significant(at_opt.restore, 3), percent_significant(at_opt.total(), 3));
    if (has_plan)
      arithmetic += fmt::format(
          "; f({} s) = {} s/{} s + {} s/(2 x {} s) + {} s/{} s = {} + {} + {} = {}", g(planned),
          g(save_s), g(planned), g(planned), g(mtbf), g(restore.seconds), g(mtbf),
          percent_significant(at_plan.saving, 3), percent_significant(at_plan.recompute, 3),
          percent_significant(at_plan.restore, 3), percent_significant(at_plan.total(), 3));
    s.rows.push_back(
        {c.name, v.point_label(p), written, g(save_s), g(v.number("save_bw", v.row(p))),
         g(restore.seconds) + " (" + restore.from + ")", duration(mtbf), duration(tau),
         percent_significant(at_opt.total(), 3), has_plan ? duration(planned) : "none given",
         has_plan ? percent_significant(at_plan.total(), 3) : "n/a", arithmetic});
    chart.series.push_back(lost_curve(c.name, save_s, restore.seconds, mtbf, tau));
  }
  if (s.rows.empty()) return;
  s.lines = {
      "Save time delta: a save case's blocking_s, first rank's start to last rank's finish (a "
      "durable save ends when fdatasync of every file and fsync of the directory return), at "
      "its fastest block size: how long a synchronous save blocks training.",
      "Restore time R: the slowest restore of the same engine, file layout and ranks, bytes of "
      "all ranks / agg_bw; added to each failure's cost.",
      mtbf_line,
      "Young-Daly interval: tau* = sqrt(2 x delta x M).",
      "Run time lost at interval tau: f(tau) = delta/tau (saving) + tau/(2M) (recomputing half an "
      "interval after each failure) + R/M (restoring); at tau* the first two are equal, "
      "sqrt(delta/(2M)) each.",
      "The measured save is of the bytes this run wrote; a job that saves more at the same "
      "bandwidth has a longer delta.",
  };
  s.header = {"save case",  "block", "bytes saved",  "delta (s)",   "save GB/s",    "R (s)",
              "job MTBF M", "tau*",  "lost at tau*", "planned tau", "lost at plan", "arithmetic"};
  s.charts.push_back(std::move(chart));
  out.push_back(std::move(s));
}

}  // namespace preflight::report::plugins
