#include "analysis/bottlenecks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "analysis/case_view.hpp"
#include "analysis/median.hpp"
#include "analysis/report.hpp"

namespace preflight::report {
namespace {

constexpr double kPoorEfficiency = 0.8;  // scaling below this at the top step is a finding
constexpr double kInterIntraGap = 0.5;   // inter-node throughput below this share of intra-node
constexpr double kHighCv = 0.2;          // a point this noisy is not trustworthy
constexpr double kFewSamples = 10;       // nor one with fewer per-iteration samples (a storage
constexpr double kFewReads = 3;          // iteration reads a whole data set: fewer than 3 there)
constexpr double kResidentShare = 0.05;  // a read with more of its bytes cached than this

std::string ranks_text(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += fmt::format("{}{}", out.empty() ? "" : ",", r);
  return out;
}

void correctness(const RunReport& r, std::vector<Finding>& out) {
  const auto& run = *r.run;
  for (const auto& c : run.cases) {
    if (c.status == "failed") {
      const CaseView v(c);
      out.push_back(
          {Stage::kCorrectness,
           r.label,
           fmt::format("wrong results in case {} {}", c.group_name, c.name),
           {fmt::format("{} wrong elements over all sizes and ranks (case {})",
                        v.param("wrong_elements"), c.group_name)},
           "A wrong result is a defect, not slowness: look at wrong_per_rank in the file to "
           "find the rank, then its GPU's ECC and Xid errors (nvidia-smi -q -d ECC, dmesg) "
           "and rerun the case alone.",
           1e9});
    } else if (c.status == "timeout") {
      const CaseView v(c);
      out.push_back(
          {Stage::kCorrectness,
           r.label,
           fmt::format("case {} {} hung", c.group_name, c.name),
           {v.param("timeout_message").empty() ? "the watchdog ended the case"
                                               : v.param("timeout_message")},
           "Check the ranks named as not arrived: their hosts' kernel log, NIC link state "
           "(ibstat, ethtool), GPU Xid errors; then rerun with --resume.",
           1e8});
    }
  }
  if (run.status == "incomplete")
    out.push_back({Stage::kCorrectness,
                   r.label,
                   "the run did not finish",
                   {fmt::format("status incomplete in {}: {} case(s) in the file", run.path,
                                run.cases.size())},
                   fmt::format("Complete it with: preflight run CONFIG --resume {}", run.path),
                   1e7});
}

// Throughput that stops growing. One finding per run, family and size band, the worst series
// first, so that a network that limits every collective reads as one problem, not twenty.
void scaling_losses(const std::vector<ScalingSeries>& scaling, std::vector<Finding>& out) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const ScalingSeries*>>
      poor;
  for (const auto& s : scaling) {
    const auto& last = s.points.back();
    const bool grew = s.aggregate ? last.ranks > s.reference_ranks : last.nodes > s.reference_nodes;
    if (std::isnan(last.efficiency) || last.efficiency >= kPoorEfficiency || !grew) continue;
    poor[{s.run_label, s.family, s.band}].push_back(&s);
  }
  for (auto& [key, series] : poor) {
    std::sort(series.begin(), series.end(), [](const ScalingSeries* a, const ScalingSeries* b) {
      return a->points.back().efficiency < b->points.back().efficiency;
    });
    const auto& worst = *series.front();
    const auto& last = worst.points.back();
    const bool data = worst.family == "storage" || worst.family == "dataloader";
    std::vector<std::string> evidence;
    for (const auto* s : series) {
      std::string steps;
      for (const auto& p : s->points)
        steps += fmt::format("{}{:g} ranks on {:g} nodes {:.3g} {} ({:.0f}%, case {})",
                             steps.empty() ? "" : "; ", p.ranks, p.nodes, p.value, s->unit,
                             p.efficiency * 100, fmt::join(p.cases, ","));
      evidence.push_back(fmt::format("{} ({}), {}: {}", s->subject, s->topology, s->metric, steps));
    }
    const auto band = worst.band.empty() ? std::string() : ", " + band_text(worst.band);
    const auto what = series.size() == 1
                          ? worst.subject
                          : fmt::format("{} {}", series.size(), data ? "reads" : "collectives");
    const auto share = series.size() == 1
                           ? fmt::format("{:.0f}%", last.efficiency * 100)
                           : fmt::format("{:.0f}-{:.0f}%", last.efficiency * 100,
                                         series.back()->points.back().efficiency * 100);
    out.push_back(
        {data ? Stage::kData : Stage::kCommunication, worst.run_label,
         worst.aggregate
             ? fmt::format("{}{}: {} per rank falls to {} of its {:g}-rank value at {:g} ranks "
                           "({:g} nodes): the storage saturates",
                           what, band, worst.metric, share, worst.reference_ranks, last.ranks,
                           last.nodes)
             : fmt::format("{}{}: {} falls to {} of its {:g}-node value at {:g} nodes", what, band,
                           worst.metric, share, worst.reference_nodes, last.nodes),
         evidence,
         data ? "Find where the file system saturates: servers and targets busy (iostat, the "
                "file system's own statistics), client network links, striping of the data set."
              : "Look at the links between node groups: switch oversubscription, rail-optimised "
                "wiring (topology: rail), adaptive routing; compare with the alpha-beta "
                "predictions.",
         1 - last.efficiency});
  }
}

// Inter-node against intra-node throughput of the same collective, by size band.
void inter_vs_intra(const RunReport& r, std::vector<Finding>& out) {
  std::map<std::pair<std::string, std::string>,
           std::map<std::string, std::pair<double, std::string>>>
      by_subject;  // (subject, band) -> topology -> (median metric, case)
  for (const auto& c : r.run->cases) {
    const CaseView v(c);
    const auto topology = v.param("topology");
    if (c.family != "comm" || c.status != "ok" || (topology != "intra" && topology != "inter"))
      continue;
    const auto metric = v.primary_metric();
    std::map<std::string, std::vector<double>> bands;
    for (std::size_t p = 0; p < v.points(); ++p) {
      const double size = v.size_at(p), value = v.metric_at(metric, p);
      if (!std::isnan(size) && !std::isnan(value)) bands[name_of(band_of(size))].push_back(value);
    }
    for (const auto& [band, values] : bands)
      by_subject[{v.subject(), band}][topology] = {median(values), c.group_name};
  }
  for (const auto& [key, topologies] : by_subject) {
    if (topologies.size() < 2 || key.second == "small") continue;  // small sizes: latency
    const auto& [intra, intra_case] = topologies.at("intra");
    const auto& [inter, inter_case] = topologies.at("inter");
    if (!(intra > 0) || inter >= kInterIntraGap * intra) continue;
    out.push_back({Stage::kCommunication,
                   r.label,
                   fmt::format("{}, {} sizes: across nodes {:.0f}% of the throughput within a node",
                               key.first, key.second, 100 * inter / intra),
                   {fmt::format("intra-node busbw {:.3g} GB/s (case {})", intra, intra_case),
                    fmt::format("inter-node busbw {:.3g} GB/s (case {})", inter, inter_case)},
                   "The network between nodes limits bandwidth-bound collectives: check NIC speed "
                   "and count per GPU (ibstat), GPUDirect RDMA, the NCCL/UCX transport chosen, and "
                   "whether the gap matches the hardware's ratio.",
                   1 - inter / intra});
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
                   "frequency and load, NIC errors (ethtool -S, ibstat), memory errors.",
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
         late ? fmt::format("{} arrives late at collectives: the others wait for it", o.name)
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
  std::vector<std::string> noisy_examples, warm;
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
      few += v.number("iterations", row) < (c.family == "storage" ? kFewReads : kFewSamples);
    }
    if (v.param("cache_state") == "warm" || v.param("fs_type") == "tmpfs")
      warm.push_back(fmt::format("case {} {} (cache state {}, file system {})", c.group_name,
                                 c.name, v.param("cache_state"), v.param("fs_type")));
    else if (c.stats.count("resident_before_max"))
      for (std::size_t p = 0; p < v.points(); ++p) {
        const double resident = v.number("resident_before_max", v.row(p));
        if (resident > kResidentShare)
          warm.push_back(
              fmt::format("case {} {} at {}: up to {:.0f}% of a rank's bytes were in "
                          "the page cache before the read",
                          c.group_name, c.name, v.point_label(p), resident * 100));
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
         {fmt::format("{} of {} sizes have fewer than {:.0f} per-iteration samples ({:.0f} "
                      "for storage reads)",
                      few, total, kFewSamples, kFewReads)},
         "Raise timing.min_iters or timing.budget so each size has enough samples.",
         static_cast<double>(few) / static_cast<double>(total),
         false});
  if (!warm.empty())
    out.push_back({Stage::kMeasurement, r.label,
                   "reads served from memory: these figures measure the page cache, not storage",
                   warm,
                   "Use cache: direct, evicted or other-node, on the file system under test (not "
                   "tmpfs); see docs/storage.md.",
                   1, false});
  const auto names = r.run->environment.find("node_name");
  if (names != r.run->environment.end()) {
    std::set<std::string> hosts(r.run->environment.at("host").begin(),
                                r.run->environment.at("host").end());
    std::set<std::string> nodes(names->second.begin(), names->second.end());
    if (nodes.size() > hosts.size())
      out.push_back({Stage::kMeasurement,
                     r.label,
                     "virtual nodes: inter-node figures did not cross a network",
                     {fmt::format("{} nodes on {} host(s) (ranks_per_node grouping)", nodes.size(),
                                  hosts.size())},
                     "Run on real nodes for network figures.",
                     0.5,
                     false});
  }
}

}  // namespace

const char* name_of(Stage s) {
  switch (s) {
    case Stage::kCorrectness:
      return "correctness";
    case Stage::kData:
      return "data in";
    case Stage::kCompute:
      return "compute";
    case Stage::kCommunication:
      return "communication";
    case Stage::kStragglers:
      return "stragglers and hardware";
    default:
      return "measurement quality";
  }
}

std::vector<Finding> find_bottlenecks(const std::vector<RunReport>& runs,
                                      const std::vector<ScalingSeries>& scaling) {
  std::vector<Finding> out;
  for (const auto& r : runs) {
    correctness(r, out);
    inter_vs_intra(r, out);
    stragglers(r, out);
    measurement_quality(r, out);
  }
  scaling_losses(scaling, out);
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    return a.stage != b.stage ? a.stage < b.stage : a.weight > b.weight;
  });
  return out;
}

}  // namespace preflight::report
