// The data-pipeline plug-in (dataloader), serving the quality rule kQualityFeedsAccelerator:
// images per second count only where the pipeline allowed the accelerator utilisation (AU) its
// case targets, as MLPerf Storage counts only runs that meet theirs; where no worker count
// reaches it, a finding names the stage that limits the AU ("data in: decode"); a section
// shows each case's stages per worker count, with a chart of the stage times.
#include <fmt/format.h>
#include <cmath>
#include <string>

#include "analysis/format.hpp"
#include "analysis/report.hpp"
#include "plugins/plugins.hpp"
#include "preflight/schema/dataloader.hpp"

namespace preflight::report::plugins {
namespace {

namespace s = schema;

double at(const CaseView& v, const s::Column& c, std::size_t point) {
  return v.number(std::string(c.name), v.row(point));
}

bool feeds_rule(const CaseData& c) {
  for (const auto& rule : c.meaning.quality)
    if (rule == s::kQualityFeedsAccelerator) return true;
  return false;
}

const auto whole_percent = [](double f) { return percent(f, 0); };

// The stage whose time is the largest share of the pipeline's at a point.
std::pair<std::string_view, double> limiting_stage(const CaseView& v, std::size_t point) {
  std::string_view name;
  double most = -1, total = 0;
  for (const auto& [c, stage] : s::dataloader::kStages) {
    const double t = at(v, *c, point);
    if (std::isnan(t)) continue;
    total += t;
    if (t > most) most = t, name = stage;
  }
  return {name, total > 0 ? most / total : std::nan("")};
}

std::string stage_times(const CaseView& v, std::size_t point) {
  std::string out;
  for (const auto& [c, stage] : s::dataloader::kStages)
    out += fmt::format("{}{} {:.3g} s", out.empty() ? "" : ", ", stage, at(v, *c, point));
  return out;
}

}  // namespace

std::string feeds_accelerator(const CaseView& v, std::size_t point, const Selection&) {
  const double au = at(v, s::dataloader::kAuColumn, point);
  if (std::isnan(au) || at(v, s::dataloader::kAuMetColumn, point) == 1) return {};
  return fmt::format("AU {} below the target {}: images/s not valid (as MLPerf Storage)",
                     whole_percent(au), whole_percent(or_nan(v.get(s::dataloader::kAuTarget))));
}

void feeds_accelerator_findings(const RunReport& r, std::vector<Finding>& out) {
  for (const auto& c : r.run->cases) {
    if (!feeds_rule(c)) continue;
    const CaseView v(c);
    std::size_t best = SIZE_MAX;
    for (std::size_t p = 0; p < v.points(); ++p) {
      const double au = at(v, s::dataloader::kAuColumn, p);
      if (!std::isnan(au) && (best == SIZE_MAX || au > at(v, s::dataloader::kAuColumn, best)))
        best = p;
    }
    if (best == SIZE_MAX || at(v, s::dataloader::kAuMetColumn, best) == 1) continue;
    const double au = at(v, s::dataloader::kAuColumn, best),
                 target = or_nan(v.get(s::dataloader::kAuTarget));
    const auto [stage, share] = limiting_stage(v, best);
    std::vector<std::string> evidence{
        fmt::format("best of {} worker counts: {} workers per rank, AU {} (target {}), {:.4g} "
                    "images/s",
                    v.points(), at(v, s::dataloader::kWorkersColumn, best), whole_percent(au),
                    whole_percent(target), at(v, s::dataloader::kImagesPerSColumn, best)),
        fmt::format("stage times per pass (worker seconds, median rank): {}; {} is {} of them",
                    stage_times(v, best), stage, whole_percent(share)),
        fmt::format("workers per GPU needed at the measured cost: {:g} (if workers scale "
                    "linearly; cores per GPU bound it)",
                    at(v, s::dataloader::kWorkersNeededColumn, best)),
    };
    const bool io = stage == "read";
    out.push_back(
        {Stage::kDataIn, r.label,
         fmt::format("{}: {} limits the accelerator utilisation to {} (target {}) in case {} {}",
                     schema::label_of(schema::Stage::kDataIn), stage, whole_percent(au),
                     whole_percent(target), c.group_name, c.name),
         evidence,
         io ? "Reads limit it: check the storage family's figures for this directory (cold "
              "reads), use shards instead of small files, more readers or io_uring."
            : "CPU work limits it: more workers per GPU (the count above), decode on the GPU "
              "(nvJPEG, DALI), smaller stored images, or pre-decoded data; docs/dataloader.md.",
         1 - au / target});
  }
}

// MLPerf Storage's rule: images/s below the AU target are not a valid figure (NaN in the file).
std::string valid_rate(double images_per_s) {
  return std::isnan(images_per_s) ? std::string("not valid (AU below target)")
                                  : fmt::format("{:.4g}", images_per_s);
}

void dataloader_section(const RunReport& r, std::vector<Section>& out) {
  Section sec;
  sec.id = "data-pipeline";
  sec.title = "Data pipeline: stages per worker count, and the AU it allows";
  sec.lines = {
      "AU = emulated compute time / pass time, lowest rank (DLIO); images/s count as valid only "
      "where AU >= the case's target (MLPerf Storage). Stage times are worker seconds per pass, "
      "median rank."};
  sec.header = {"case",   "workers",  "images/s",  "AU",      "target",         "valid images/s",
                "read s", "decode s", "augment s", "batch s", "limiting stage", "workers needed"};
  for (const auto& c : r.run->cases) {
    if (!feeds_rule(c)) continue;
    const CaseView v(c);
    Chart chart;
    chart.title = fmt::format("{} {}: stage time per pass", c.group_name, c.name);
    chart.x_label = "workers per rank";
    chart.y_label = "worker seconds per pass";
    chart.id = fmt::format("dl{}", c.group_name);
    for (const auto& [col, stage] : s::dataloader::kStages) {
      ChartSeries series;
      series.label = std::string(stage);
      for (std::size_t p = 0; p < v.points(); ++p) {
        series.x.push_back(at(v, s::dataloader::kWorkersColumn, p));
        series.y.push_back(at(v, *col, p));
      }
      chart.series.push_back(std::move(series));
    }
    for (std::size_t p = 0; p < v.points(); ++p)
      sec.rows.push_back({
          fmt::format("{} {}", c.group_name, c.name),
          fmt::format("{:g}", at(v, s::dataloader::kWorkersColumn, p)),
          fmt::format("{:.4g}", at(v, s::dataloader::kImagesPerSColumn, p)),
          whole_percent(at(v, s::dataloader::kAuColumn, p)),
          whole_percent(or_nan(v.get(s::dataloader::kAuTarget))),
          valid_rate(at(v, s::dataloader::kValidImagesPerSColumn, p)),
          fmt::format("{:.3g}", at(v, s::dataloader::kReadSColumn, p)),
          fmt::format("{:.3g}", at(v, s::dataloader::kDecodeSColumn, p)),
          fmt::format("{:.3g}", at(v, s::dataloader::kAugmentSColumn, p)),
          fmt::format("{:.3g}", at(v, s::dataloader::kBatchSColumn, p)),
          std::string(limiting_stage(v, p).first),
          fmt::format("{:g}", at(v, s::dataloader::kWorkersNeededColumn, p)),
      });
    sec.charts.push_back(std::move(chart));
    const auto bad = attribute_text(v.get(s::dataloader::kBadImageNames));
    if (!bad.empty())
      sec.lines.push_back(fmt::format("case {}: {} bad images left out: {}", c.group_name,
                                      attribute_text(v.get(s::dataloader::kBadImages)), bad));
  }
  if (!sec.rows.empty()) out.push_back(std::move(sec));
}

}  // namespace preflight::report::plugins
