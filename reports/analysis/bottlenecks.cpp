#include "analysis/bottlenecks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "analysis/case_view.hpp"
#include "analysis/host_load.hpp"
#include "analysis/rank_device.hpp"
#include "analysis/report.hpp"
#include "analysis/soak.hpp"
#include "analysis/trust.hpp"
#include "plugins/plugins.hpp"
#include "preflight/common/stats.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight::report {
namespace {

constexpr double kPoorEfficiency = 0.8;  // scaling below this at the top scale is a finding
constexpr double kHighCv = 0.2;          // a point this noisy is not trustworthy

std::string ranks_text(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += fmt::format("{}{}", out.empty() ? "" : ",", r);
  return out;
}

void wrong_results_and_hangs(const RunReport& r, std::vector<Finding>& out) {
  const auto& run = *r.run;
  for (const auto& c : run.cases) {
    if (c.status == schema::case_status::kFailed) {
      const CaseView v(c);
      // Which ranks held wrong elements, over every point (wrong_per_rank): evidence, no suspect.
      // A wrong result on a rank does not prove that rank's hardware in general (it may have
      // received it); a family's own check names a device where it can (a plug-in).
      std::map<std::int64_t, std::uint64_t> by_rank;
      for (const auto& point : c.wrong_per_rank)
        for (const auto& [rank, elements] : point) by_rank[rank] += elements;
      Finding f{Stage::kCorrectness,
                r.label,
                fmt::format("wrong results in case {} {}", c.group_name, c.name),
                {fmt::format("{} wrong elements over all sizes and ranks (case {})",
                             attribute_text(v.get(schema::harness::kWrongElements)), c.group_name)},
                "A wrong result is a defect, not slowness: look at wrong_per_rank in the file to "
                "find the rank, then its GPU's ECC and Xid errors (nvidia-smi -q -d ECC, dmesg) "
                "and rerun the case alone.",
                1e9};
      if (!by_rank.empty()) {
        f.evidence.push_back(fmt::format("wrong elements by rank ({} rank{}): {}", by_rank.size(),
                                         by_rank.size() == 1 ? "" : "s",
                                         ranks_with_counts(run, by_rank, 8)));
        f.next_check =
            "A wrong result is a defect, not slowness: check the GPU (or RAM) of the ranks "
            "named above: ECC and Xid errors (nvidia-smi -q -d ECC, dmesg), then rerun the case "
            "alone; a rank that received wrong data may not be the one that corrupted it.";
      }
      out.push_back(std::move(f));
    } else if (c.status == schema::case_status::kTimeout) {
      const auto message = attribute_text(CaseView(c).get(schema::harness::kTimeoutMessage));
      out.push_back(
          {Stage::kCorrectness,
           r.label,
           fmt::format("case {} {} hung", c.group_name, c.name),
           {message.empty() ? "the watchdog ended the case" : message},
           "Check the ranks named as not arrived: their hosts' kernel log, NIC link state "
           "(ibstat, ethtool), GPU Xid errors; then rerun with --resume.",
           1e8});
    }
  }
  if (run.status == schema::run_status::kIncomplete)
    out.push_back({Stage::kCorrectness,
                   r.label,
                   "the run did not finish",
                   {fmt::format("status incomplete in {}: {} case(s) in the file", run.path,
                                run.cases.size())},
                   fmt::format("Complete it with: preflight run CONFIG --resume {}", run.path),
                   1e7});
}

// A headline figure that stops growing. One finding per run, stage and size band, the worst
// series first, so that a network that limits every collective reads as one problem, not twenty.
void scaling_losses(const std::vector<RunReport>& runs, const std::vector<ScalingSeries>& scaling,
                    std::vector<Finding>& out) {
  std::map<std::string, std::string> node_caveat;  // by run label: scaling across nodes
  for (const auto& r : runs) node_caveat[r.label] = virtual_nodes_caveat(*r.run);
  std::map<std::tuple<std::string, schema::Stage, bool, std::string>,
           std::vector<const ScalingSeries*>>
      poor;
  for (const auto& s : scaling) {
    const auto& last = s.points.back();
    const bool grew = s.aggregate ? last.ranks > s.reference_ranks : last.nodes > s.reference_nodes;
    if (std::isnan(last.efficiency) || last.efficiency >= kPoorEfficiency || !grew) continue;
    poor[{s.run_label, s.stage, s.aggregate, s.band}].push_back(&s);
  }
  for (auto& [key, series] : poor) {
    std::sort(series.begin(), series.end(), [](const ScalingSeries* a, const ScalingSeries* b) {
      return a->points.back().efficiency < b->points.back().efficiency;
    });
    const auto& worst = *series.front();
    const auto& last = worst.points.back();
    std::vector<std::string> evidence;
    for (const auto* s : series) {
      std::string scales;
      for (const auto& p : s->points)
        scales += fmt::format("{}{:g} ranks on {:g} nodes {:.3g} {} ({:.0f}%, case {})",
                              scales.empty() ? "" : "; ", p.ranks, p.nodes, p.value, s->unit,
                              p.efficiency * 100, fmt::join(p.cases, ","));
      evidence.push_back(
          fmt::format("{} ({}), {}: {}", s->subject, s->topology, s->metric, scales));
    }
    const auto band = worst.band.empty() ? std::string() : ", " + band_text(worst.band);
    const auto what = series.size() == 1 ? worst.subject
                                         : fmt::format("{} {} series", series.size(),
                                                       schema::label_of(worst.stage));
    const auto share = series.size() == 1
                           ? fmt::format("{:.0f}%", last.efficiency * 100)
                           : fmt::format("{:.0f}-{:.0f}%", last.efficiency * 100,
                                         series.back()->points.back().efficiency * 100);
    out.push_back(
        {stage_of(worst.stage), worst.run_label,
         worst.aggregate
             ? fmt::format("{}{}: {} per rank falls to {} of its {:g}-rank value at {:g} ranks "
                           "({:g} nodes): a shared resource saturates",
                           what, band, worst.metric, share, worst.reference_ranks, last.ranks,
                           last.nodes)
             : fmt::format("{}{}: {} falls to {} of its {:g}-node value at {:g} nodes", what, band,
                           worst.metric, share, worst.reference_nodes, last.nodes),
         evidence, std::string(schema::scaling_advice_of(worst.stage)), 1 - last.efficiency});
    if (!worst.aggregate && !node_caveat[worst.run_label].empty()) {
      out.back().caveat = node_caveat[worst.run_label];
      out.back().trustworthy = false;
    }
  }
}

// A slow node is one finding with its ranks; a slow rank of that node is evidence of it, not a
// finding of its own.
void stragglers(const RunReport& r, std::vector<Finding>& out) {
  std::map<int, std::size_t> finding_of_rank;
  for (const auto& o : r.outliers) {
    if (o.kind != "node") continue;
    for (int rank : o.ranks) finding_of_rank[rank] = out.size();
    out.push_back({Stage::kStragglers,
                   r.label,
                   fmt::format("slow node: {} (ranks {})", o.name, ranks_text(o.ranks)),
                   {fmt::format("the node's typical time is {:.2f}x its peers' (robust z {:.1f}) "
                                "over {} sizes",
                                o.ratio, o.z, o.sizes)},
                   "Check that node: GPU clocks and throttling (nvidia-smi -q -d PERFORMANCE), CPU "
                   "frequency and load, NIC errors (ethtool -S, ibstat), ECC errors.",
                   o.ratio - 1});
  }
  for (const auto& o : r.outliers) {
    if (o.kind == "node") continue;
    const bool late = o.kind == "late rank";
    const auto evidence = fmt::format(
        "{}: its typical time is {:.2f}x its peers' (robust z {:.1f}) "
        "over {} sizes",
        o.name, o.ratio, o.z, o.sizes);
    const auto in_node = finding_of_rank.find(o.ranks.front());
    if (!late && in_node != finding_of_rank.end()) {
      out[in_node->second].evidence.push_back(evidence);
      continue;
    }
    out.push_back(
        {Stage::kStragglers,
         r.label,
         late ? fmt::format("{} arrives late: the others wait for it inside the operation", o.name)
              : fmt::format("slow rank: {}", o.name),
         {evidence},
         late ? "Something delays this rank between operations: CPU binding and other processes on "
                "its cores, interrupts, a slower host; check the binding (--report-bindings)."
              : "Check that rank's GPU and the CPU cores it is bound to (nvidia-smi -q -d "
                "PERFORMANCE, --report-bindings), and its NIC.",
         late ? 1 / o.ratio - 1 : o.ratio - 1});
  }
}

void measurement_quality(const RunReport& r, std::vector<Finding>& out) {
  std::size_t noisy = 0, few = 0, total = 0;
  std::vector<std::string> noisy_examples;
  std::set<double> minimums;
  for (const auto& c : r.run->cases) {
    const CaseView v(c);
    for (std::size_t p = 0; p < v.points(); ++p) {
      const auto row = v.row(p);
      ++total;
      const double cv = v.number("time_cv", row);
      if (cv > kHighCv) {
        if (noisy++ < 3)
          noisy_examples.push_back(fmt::format("case {} {} at {}: CV {:.0f}%", c.group_name, c.name,
                                               v.point_label(p), cv * 100));
      }
      const auto min_samples = static_cast<double>(c.meaning.min_samples);
      if (v.number("iterations", row) < min_samples) {
        ++few;
        minimums.insert(min_samples);
      }
    }
  }
  if (noisy > 0) {
    noisy_examples.insert(
        noisy_examples.begin(),
        fmt::format("{} of {} sizes have a coefficient of variation above {:.0f}%", noisy, total,
                    kHighCv * 100));
    out.push_back({Stage::kMeasurement, r.label, "noisy measurements: not trustworthy",
                   noisy_examples,
                   "Rerun on idle nodes with a larger timing budget or a precision target; check "
                   "for other jobs, CPU frequency scaling and binding.",
                   static_cast<double>(noisy) / static_cast<double>(total), false});
  }
  if (few > 0)
    out.push_back(
        {Stage::kMeasurement,
         r.label,
         "few samples: not trustworthy",
         {fmt::format("{} of {} sizes have fewer per-iteration samples than their case needs "
                      "({:g})",
                      few, total, fmt::join(minimums, ", "))},
         "Raise timing.min_iters or timing.budget so each size has enough samples.",
         static_cast<double>(few) / static_cast<double>(total),
         false});
  const auto load = run_host_load(*r.run);
  if (load.measured() && load.contention() >= kContendedHostShare)
    out.push_back(
        {Stage::kMeasurement,
         r.label,
         "contended hosts: others took CPU while the run measured",
         {fmt::format("others took {} of the hosts' CPU while the run measured (other "
                      "machines on the hypervisor, other processes)",
                      describe(load))},
         "Rerun on idle hosts (a dedicated instance, no other jobs); compare it only with "
         "runs whose hosts were as loaded.",
         load.contention(),
         false});
  const auto virtual_nodes = virtual_nodes_caveat(*r.run);
  if (!virtual_nodes.empty())
    out.push_back({Stage::kMeasurement,
                   r.label,
                   "virtual nodes: inter-node figures did not cross a network",
                   {virtual_nodes},
                   "Run on real nodes for network figures.",
                   0.5,
                   false});
}

}  // namespace

static_assert(static_cast<std::size_t>(Stage::kStep) + 1 == schema::kStageNames.size() &&
                  static_cast<int>(Stage::kCorrectness) ==
                      static_cast<int>(schema::Stage::kCorrectness),
              "the report's stages begin with the schema's, in its order");

Stage stage_of(schema::Stage s) {
  return static_cast<Stage>(static_cast<int>(s));
}

const char* name_of(Stage s) {
  switch (s) {
    case Stage::kStragglers:
      return "stragglers and hardware";
    case Stage::kMeasurement:
      return "measurement quality";
    default:
      return schema::label_of(static_cast<schema::Stage>(static_cast<int>(s))).data();
  }
}

std::vector<Finding> find_bottlenecks(const std::vector<RunReport>& runs,
                                      const std::vector<ScalingSeries>& scaling) {
  std::vector<Finding> out;
  for (const auto& r : runs) {
    wrong_results_and_hangs(r, out);
    plugins::add_findings(r, out);
    stragglers(r, out);
    add_soak_findings(r, out);
    measurement_quality(r, out);
  }
  scaling_losses(runs, scaling, out);
  // Trustworthy findings first, then what makes figures untrustworthy (measurement quality),
  // then the findings drawn from such figures: a caveated finding never ranks above a sound one.
  // Within the sound ones, wrong results first, then the hosts and links named to act on.
  const auto rank = [](const Finding& f) { return f.caveat.empty() ? 0 : 1; };
  const auto act = [](const Finding& f) {
    return f.stage == Stage::kCorrectness ? 0 : f.suspects.empty() ? 2 : 1;
  };
  std::stable_sort(out.begin(), out.end(), [&](const Finding& a, const Finding& b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    if (act(a) != act(b)) return act(a) < act(b);
    return a.stage != b.stage ? a.stage < b.stage : a.weight > b.weight;
  });
  return out;
}

}  // namespace preflight::report
