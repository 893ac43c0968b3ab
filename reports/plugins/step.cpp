// The step plug-in: the projection of the workload's step (plugins/step_projection) from the
// run's matmul, comm, dataloader and checkpoint figures, beside the step family's measured
// steps, and what limits the run at its target node count.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/case_view.hpp"
#include "analysis/format.hpp"
#include "analysis/report.hpp"
#include "analysis/trust.hpp"
#include "plugins/plugins.hpp"
#include "plugins/step_inputs.hpp"
#include "plugins/step_projection.hpp"
#include "preflight/schema/family_names.hpp"
#include "preflight/schema/layout.hpp"
#include "preflight/schema/step.hpp"

namespace preflight::report::plugins {
namespace {

namespace s = schema;
namespace sp = step_projection;

// A measured step: its node count, time and parts.
struct MeasuredStep {
  double nodes = 0, step_s = 0, compute_s = 0, comm_s = 0;
  double data_s = std::nan("");          // the data feed's exposed wait; NaN: no feed
  double data_cpu_share = std::nan("");  // the loader's part of the CPU used while computing
  bool on_cpu = false;                   // the GEMMs ran on the CPUs the workers did
  std::string source;
};

// Group 0's figure (a case of one group has only the all-groups row).
double column_at(const CaseView& v, const s::Column& column) {
  const std::string name(column.name);
  const double own = v.number(name, v.row(0, 0));
  return std::isnan(own) ? v.number(name, v.row(0)) : own;
}

// The measured steps of the projected workload (a file can hold several: each is its own step).
std::vector<MeasuredStep> measured_steps(const RunData& run, const std::string& workload) {
  std::vector<MeasuredStep> out;
  for (const auto& c : run.cases) {
    if (c.family != schema::kStepFamily || c.status != schema::case_status::kOk ||
        c.stats.empty() || workload_key(c) != workload)
      continue;
    const CaseView v(c);
    out.push_back(
        {column_at(v, s::step::kNodesColumn), column_at(v, s::step::kStepSColumn),
         column_at(v, s::step::kComputeSColumn), column_at(v, s::step::kCommExposedSColumn),
         column_at(v, s::step::kDataExposedSColumn), column_at(v, s::step::kDataCpuShareColumn),
         v.get(s::step::kGemmDevice) == s::kStepOnCpu, source_of(run, c)});
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.nodes < b.nodes; });
  return out;
}

// 1, 2, 4, ... up to the target, and every measured node count.
std::vector<int> projected_node_counts(int target, const std::vector<MeasuredStep>& measured) {
  std::vector<int> out;
  for (int n = 1; n < target; n *= 2) out.push_back(n);
  out.push_back(target);
  for (const auto& m : measured) out.push_back(int(m.nodes));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string share(double part, double whole) {
  return fmt::format("{:.0f}%", 100 * part / whole);
}

const MeasuredStep* measured_at(const std::vector<MeasuredStep>& m, int nodes) {
  for (const auto& x : m)
    if (int(x.nodes) == nodes) return &x;
  return nullptr;
}

// The measured step's largest part, named as the projection names its terms.
// Where the GEMMs share the CPUs with the loader's workers, the workers' time is taken from the
// GEMMs and the collectives' copies, not waited for: compute_s and comm_exposed_s hold it, in
// the share of the CPU the workers used in the step. The measured parts split them so;
// elsewhere data is the waits alone.
struct MeasuredParts {
  double compute_s, comm_s, data_s;
};
MeasuredParts measured_parts(const MeasuredStep& m) {
  if (std::isnan(m.data_s)) return {m.compute_s, m.comm_s, 0};
  const double taken = m.on_cpu && !std::isnan(m.data_cpu_share) ? m.data_cpu_share : 0;
  return {m.compute_s * (1 - taken), m.comm_s * (1 - taken),
          m.data_s + (m.compute_s + m.comm_s) * taken};
}

std::string measured_bottleneck(const MeasuredStep& m) {
  const auto parts = measured_parts(m);
  std::string name = "compute";
  double largest = parts.compute_s;
  if (parts.comm_s > largest) name = "communication", largest = parts.comm_s;
  if (parts.data_s > largest) name = "data";
  return name;
}

std::vector<std::string> row_of(const sp::Projection& p, const MeasuredStep* m, double efficiency) {
  const auto& t = p.terms;
  if (!p.layout.problem.empty())
    return {fmt::format("{}", p.layout.nodes),
            "not projected: " + p.layout.problem,
            "",
            "",
            "",
            "",
            "",
            "",
            m ? seconds(m->step_s) : "not run",
            "",
            ""};
  std::vector<std::string> row = {
      fmt::format("{}", p.layout.nodes),
      seconds(t.compute_s),
      fmt::format("{} of {}", seconds(t.comm_exposed_s), seconds(t.comm_s)),
      t.data_s < 0 ? "not measured" : seconds(t.data_exposed_s),
      t.checkpoint_s < 0 ? "none" : seconds(t.checkpoint_s),
      seconds(t.step_s),
      t.bottleneck,
      std::isnan(efficiency) ? "n/a" : fmt::format("{:.0f}%", 100 * efficiency)};
  if (m == nullptr) return row.insert(row.end(), {"not run", "", ""}), row;
  const auto parts = measured_parts(*m);
  const bool shared = !std::isnan(m->data_s) && m->on_cpu;
  row.push_back(fmt::format(
      "{} (compute {}, exposed gradient {}{})", seconds(m->step_s), seconds(parts.compute_s),
      seconds(parts.comm_s),
      std::isnan(m->data_s) ? std::string()
      : shared ? fmt::format(", data {}: waits {} and {} of the rest, the loader's share of the "
                             "CPUs it shared with the GEMMs and the collectives",
                             seconds(parts.data_s), seconds(m->data_s),
                             std::isnan(m->data_cpu_share)
                                 ? std::string("n/a")
                                 : fmt::format("{:.0f}%", 100 * m->data_cpu_share))
               : ", exposed data " + seconds(m->data_s)));
  row.push_back(fmt::format("{:+.0f}%", 100 * (t.step_s - m->step_s) / m->step_s));
  row.push_back(measured_bottleneck(*m));
  return row;
}

Chart chart_of(const std::vector<sp::Projection>& ps, const std::vector<MeasuredStep>& m) {
  Chart chart;
  chart.id = "step";
  chart.title = "Step time components against node count";
  chart.x_label = "nodes";
  chart.y_label = "seconds per step";
  chart.log_x = true;
  ChartSeries compute{"compute", {}, {}}, comm{"exposed gradient", {}, {}},
      data{"exposed data", {}, {}}, ckpt{"checkpoint", {}, {}}, step{"projected step", {}, {}},
      measured{"measured step", {}, {}};
  for (const auto& p : ps) {
    const double n = p.layout.nodes;
    for (auto [series, value] :
         {std::pair{&compute, p.terms.compute_s}, std::pair{&comm, p.terms.comm_exposed_s},
          std::pair{&data, p.terms.data_exposed_s}, std::pair{&ckpt, p.terms.checkpoint_s},
          std::pair{&step, p.terms.step_s}}) {
      series->x.push_back(n);
      series->y.push_back(value);
    }
  }
  for (const auto& x : m) {
    measured.x.push_back(x.nodes);
    measured.y.push_back(x.step_s);
  }
  // A term that was not measured (data, checkpoint: negative) is no line of the chart.
  for (auto* series : {&compute, &comm, &data, &ckpt, &step, &measured})
    if (std::any_of(series->y.begin(), series->y.end(), [](double y) { return y > 0; }))
      chart.series.push_back(*series);
  return chart;
}

// The inputs with every collective twice as fast (a link of twice the bandwidth and half the
// latency, as far as the measured times and the fit go).
sp::Inputs twice_as_fast_link(sp::Inputs in) {
  for (auto& c : in.collectives) {
    for (auto& m : c.measured)
      for (auto& t : m.seconds) t /= 2;
    c.alpha_s /= 2;
    c.beta_s_per_byte /= 2;
  }
  return in;
}

// What communication would take with each remedy, re-projected; the best first.
std::string communication_remedy(const sp::Inputs& in, int nodes) {
  std::vector<std::pair<std::string, sp::Inputs>> options;
  auto overlapped = in;
  overlapped.workload.overlap = true;
  options.emplace_back("overlap with an asynchronous backend (nccl)", overlapped);
  auto smaller = overlapped;
  smaller.workload.bucket_bytes = std::max<std::uint64_t>(in.workload.bucket_bytes / 4, 1);
  options.emplace_back(fmt::format("overlap and buckets of {} B (more of them hide behind the "
                                   "backward pass)",
                                   smaller.workload.bucket_bytes),
                       smaller);
  options.emplace_back("a link twice as fast (NVLS, more rails)", twice_as_fast_link(in));
  std::vector<std::string> said;
  for (const auto& [what, inputs] : options) {
    const auto q = sp::project(inputs, nodes);
    said.push_back(fmt::format("{}: {} s, the gradient {} of it", what, seconds(q.terms.step_s),
                               share(q.terms.comm_exposed_s, q.terms.step_s)));
  }
  return "re-projected with " + fmt::format("{}", fmt::join(said, "; "));
}

// What would change the bottleneck, with the projection re-run where a knob exists.
std::string remedy(const sp::Inputs& in, const sp::Projection& p) {
  const auto& t = p.terms;
  if (t.bottleneck == "communication") return communication_remedy(in, p.layout.nodes);
  if (t.bottleneck == "data")
    return "more dataloader workers per rank, decoding on the GPU or pre-decoded data "
           "(docs/dataloader.md) shorten the data term";
  if (t.bottleneck == "checkpoint")
    return "a longer checkpoint interval or faster checkpoint storage shortens it";
  return fmt::format(
      "faster GEMMs (a higher mfu than {:g}, a faster device) shorten it; the "
      "exposed gradient is {} of the step",
      in.workload.mfu, share(t.comm_exposed_s, t.step_s));
}

// The seconds of the term that is the bottleneck.
double bottleneck_s(const sp::Terms& t) {
  return t.bottleneck == "compute"         ? t.compute_s
         : t.bottleneck == "communication" ? t.comm_exposed_s
         : t.bottleneck == "data"          ? t.data_exposed_s
                                           : t.checkpoint_s;
}

std::string verdict_sentence(const sp::Inputs& in, const sp::Projection& p) {
  const auto& t = p.terms;
  if (std::isnan(t.step_s)) return "The step at the target could not be projected: see above.";
  const double part = bottleneck_s(t);
  return fmt::format(
      "{}: at {} nodes the {} is {} of the {} s step; {}.", t.bottleneck, p.layout.nodes,
      t.bottleneck == "communication" ? "exposed gradient synchronisation" : t.bottleneck,
      share(part, t.step_s), seconds(t.step_s), remedy(in, p));
}

Stage stage_of_term(const std::string& term) {
  if (term == "communication") return Stage::kCommunication;
  if (term == "data") return Stage::kDataIn;
  return Stage::kCheckpoint;
}

}  // namespace

// What limits the run at its target, as a finding where it is not compute (a step bound by its
// GEMMs is what a training run should be).
void step_findings(const RunReport& r, std::vector<Finding>& out) {
  const auto inputs = step_inputs(*r.run, r.label);
  if (!inputs || !inputs->problem.empty()) return;
  const auto& in = inputs->inputs;
  const auto target = sp::project(in, in.workload.target_nodes);
  const auto& t = target.terms;
  if (std::isnan(t.step_s) || t.bottleneck == "compute") return;
  Finding f;
  f.stage = stage_of_term(t.bottleneck);
  f.run_label = r.label;
  f.title = "projected step: " + verdict_sentence(in, target);
  f.evidence = target.how;
  for (const auto& m : measured_steps(*r.run, inputs->workload)) {
    const auto p = sp::project(in, int(m.nodes));
    f.evidence.push_back(fmt::format(
        "at {:g} nodes: projected {} s ({}), measured {} s (compute {} s, exposed gradient {} "
        "s; {})",
        m.nodes, seconds(p.terms.step_s), p.terms.bottleneck, seconds(m.step_s),
        seconds(m.compute_s), seconds(m.comm_s), m.source));
  }
  f.next_check = remedy(in, target);
  f.weight = bottleneck_s(t) / t.step_s;
  f.caveat = virtual_nodes_caveat(*r.run);
  f.trustworthy = f.caveat.empty();
  out.push_back(std::move(f));
}

void step_section(const RunReport& r, std::vector<Section>& out) {
  const auto inputs = step_inputs(*r.run, r.label);
  if (!inputs) return;
  const auto& in = inputs->inputs;
  const auto measured = measured_steps(*r.run, inputs->workload);
  Section sec;
  sec.id = "step-projection";
  sec.title = "Step time: projected from the measured figures, beside the measured step";
  sec.lines = inputs->assumptions;
  // One line per other workload, with its cases (each node count and repetition is a case).
  std::map<std::string, std::vector<std::string>> others;
  std::vector<std::string> order;
  for (const auto& c : r.run->cases) {
    if (c.family != schema::kStepFamily || c.status != schema::case_status::kOk ||
        workload_key(c) == inputs->workload)
      continue;
    auto& cases = others[workload_key(c)];
    if (cases.empty()) order.push_back(workload_key(c));
    cases.push_back(fmt::format("case {} ({})", c.group_name, c.name));
  }
  for (const auto& key : order)
    sec.lines.push_back(
        fmt::format("not projected: {}, another workload: the projection is of "
                    "the file's first step workload",
                    fmt::join(others[key], ", ")));
  if (!inputs->problem.empty()) {
    sec.lines.push_back("not projected: " + inputs->problem);
    out.push_back(std::move(sec));
    return;
  }
  sec.header = {"nodes",
                "compute s",
                "exposed gradient s",
                "exposed data s",
                "checkpoint s",
                "projected step s",
                "projected bottleneck",
                "scaling efficiency",
                "measured step s",
                "error",
                "measured bottleneck"};
  std::vector<sp::Projection> projections;
  for (int n : projected_node_counts(in.workload.target_nodes, measured)) {
    projections.push_back(sp::project(in, n));
    sec.rows.push_back(
        row_of(projections.back(), measured_at(measured, n), sp::scaling_efficiency(in, n)));
  }
  const auto target = sp::project(in, in.workload.target_nodes);
  for (const auto& line : target.how)
    sec.lines.push_back(fmt::format("at {} nodes, {}", in.workload.target_nodes, line));
  sec.lines.push_back(verdict_sentence(in, target));
  sec.charts.push_back(chart_of(projections, measured));
  out.push_back(std::move(sec));
}

}  // namespace preflight::report::plugins
