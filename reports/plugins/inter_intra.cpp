// The inter- vs intra-node plug-in (comm): the same collective's throughput across nodes
// against within one node, by size band.
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "analysis/report.hpp"
#include "analysis/scaling.hpp"
#include "plugins/plugins.hpp"
#include "preflight/common/stats.hpp"
#include "preflight/schema/comm.hpp"
#include "preflight/schema/family_names.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight::report::plugins {
namespace {
constexpr double kInterIntraGap = 0.5;  // inter-node throughput below this share of intra-node
}  // namespace

void inter_vs_intra(const RunReport& r, std::vector<Finding>& out) {
  std::map<std::pair<std::string, std::string>,
           std::map<std::string, std::pair<double, std::string>>>
      by_subject;  // (subject, band) -> topology -> (median metric, case)
  for (const auto& c : r.run->cases) {
    const CaseView v(c);
    const auto topology = attribute_text(v.get(schema::comm::kTopology));
    if (c.family != schema::kCommFamily || c.status != schema::case_status::kOk ||
        (topology != "intra" && topology != "inter"))
      continue;
    const auto metric = v.primary_metric();
    std::map<std::string, std::vector<double>> bands;
    for (std::size_t p = 0; p < v.points(); ++p) {
      const double size = v.number("size_bytes", v.row(p)), value = v.metric_at(metric, p);
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

}  // namespace preflight::report::plugins
