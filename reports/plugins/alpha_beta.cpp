// The alpha-beta plug-in: fits seconds ~ steps(n)·α + factor(n)·S·β to each collective's
// measured group times over every scale in the run (nodes from the case's declared span), and
// predicts larger node counts for the ring and tree algorithms of bench/comm's traits table.
#include "plugins/alpha_beta.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "analysis/case_view.hpp"
#include "analysis/trust.hpp"
#include "preflight/common/collective_traits.hpp"
#include "preflight/common/stats.hpp"
#include "preflight/schema/comm.hpp"
#include "preflight/schema/family_names.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight::report::plugins {
namespace {}  // namespace

namespace {

struct Sample {
  double ranks, size, seconds;
};

// Weighted least squares of seconds ~ steps(n)·alpha + factor(n)·S·beta with weights 1/seconds²,
// so that microsecond and second-long sizes count alike; both parameters kept non-negative.
std::pair<double, double> fit(const std::vector<Sample>& samples, const comm::CollectiveTraits& t) {
  double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
  for (const auto& s : samples) {
    const double w = 1 / (s.seconds * s.seconds);
    const double x1 = t.ring.steps(s.ranks), x2 = t.ring.factor(s.ranks) * s.size;
    a11 += w * x1 * x1;
    a12 += w * x1 * x2;
    a22 += w * x2 * x2;
    b1 += w * x1 * s.seconds;
    b2 += w * x2 * s.seconds;
  }
  const double det = a11 * a22 - a12 * a12;
  double alpha = det != 0 ? (b1 * a22 - b2 * a12) / det : kNaN;
  double beta = det != 0 ? (a11 * b2 - a12 * b1) / det : kNaN;
  if (!(alpha >= 0)) alpha = 0, beta = a22 > 0 ? b2 / a22 : kNaN;
  if (!(beta >= 0)) beta = 0, alpha = a11 > 0 ? b1 / a11 : kNaN;
  return {alpha, beta};
}

double predict(const comm::AlgorithmCost& cost, double ranks, double size, double alpha,
               double beta) {
  if (!cost.exists()) return kNaN;
  return cost.steps(ranks) * alpha + cost.factor(ranks) * size * beta;
}

}  // namespace

std::vector<AlphaBetaFit> alpha_beta_fits(const RunData& run, const std::string& label) {
  std::map<std::pair<std::string, std::string>, std::vector<Sample>> data;
  std::map<std::pair<std::string, std::string>, const comm::CollectiveTraits*> collective_of;
  std::map<std::pair<std::string, std::string>, double> nodes_max, ranks_per_node;
  for (const auto& c : run.cases) {
    const CaseView v(c);
    const auto* traits = comm::traits_of(attribute_text(v.get(schema::comm::kCollective)));
    if (c.family != schema::kCommFamily || c.status != schema::case_status::kOk ||
        traits == nullptr || !traits->ring.exists())
      continue;
    const std::pair key{v.subject(), c.meaning.series};
    const double ranks = v.group_ranks(0), nodes = static_cast<double>(c.meaning.span_nodes);
    if (!(ranks >= 2)) continue;
    for (std::size_t point = 0; point < v.points(); ++point) {
      const double size = v.size_at(point), seconds = v.group_time(point);
      if (size > 0 && seconds > 0) data[key].push_back({ranks, size, seconds});
    }
    collective_of[key] = traits;
    if (nodes >= nodes_max[key]) {
      nodes_max[key] = nodes;
      ranks_per_node[key] = ranks / nodes;
    }
  }
  std::vector<AlphaBetaFit> out;
  const auto caveat = virtual_nodes_caveat(run);
  for (const auto& [key, samples] : data) {
    if (samples.size() < 3) continue;
    const auto& traits = *collective_of[key];
    const auto [alpha, beta] = fit(samples, traits);
    if (std::isnan(alpha) || std::isnan(beta)) continue;
    AlphaBetaFit f;
    f.run_label = label;
    f.subject = key.first;
    f.collective = std::string(traits.name);
    f.topology = key.second;
    f.alpha_s = alpha;
    f.beta_s_per_byte = beta;
    f.ranks_per_node = ranks_per_node[key];
    f.points = samples.size();
    f.caveat = caveat;
    std::vector<double> errors;
    double smallest = samples.front().size, largest = smallest;
    for (const auto& s : samples) {
      errors.push_back(std::abs(predict(traits.ring, s.ranks, s.size, alpha, beta) - s.seconds) /
                       s.seconds);
      smallest = std::min(smallest, s.size);
      largest = std::max(largest, s.size);
    }
    f.median_rel_error = median(errors);
    f.model = std::string(traits.cost_model);
    if (key.second != "intra")  // within one node, more nodes are not a prediction of it
      for (double times : {2.0, 4.0, 16.0, 64.0}) {
        const double nodes = nodes_max[key] * times, ranks = nodes * f.ranks_per_node;
        for (double size : {smallest, largest})
          f.predictions.push_back({nodes, ranks, size,
                                   predict(traits.ring, ranks, size, alpha, beta),
                                   predict(traits.tree, ranks, size, alpha, beta)});
      }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace preflight::report::plugins
