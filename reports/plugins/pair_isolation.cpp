#include "plugins/pair_isolation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harness/stats.hpp"

namespace preflight::report::plugins {
namespace {

std::pair<int, int> key(int a, int b) {
  return {std::min(a, b), std::max(a, b)};
}

// The reference of one pass: the median over nodes of each node's median pair. A node fault
// makes every pair of its node worse, about half the pairs when there are four nodes, so the
// median pair would move; the median node does not while fewer than half the nodes are bad.
double reference(const PairMatrix& m, std::size_t pass) {
  std::vector<double> node_medians;
  for (std::size_t n = 0; n < m.nodes.size(); ++n) {
    std::vector<double> mine;
    for (const auto& [pair, values] : m.figures)
      if ((pair.first == static_cast<int>(n) || pair.second == static_cast<int>(n)) &&
          pass < values.size() && !std::isnan(values[pass]))
        mine.push_back(values[pass]);
    if (!mine.empty()) node_medians.push_back(median(mine));
  }
  return node_medians.empty() ? std::nan("") : median(node_medians);
}

// How many times worse than the reference (1: as good; > 1 worse).
double worse(const PairMatrix& m, double value, double ref) {
  return m.higher_is_better ? ref / value : value / ref;
}

}  // namespace

Isolation isolate(const PairMatrix& m, const IsolationOptions& o) {
  Isolation out;
  std::size_t passes = 0;
  for (const auto& [pair, values] : m.figures) passes = std::max(passes, values.size());
  std::vector<double> refs;
  for (std::size_t p = 0; p < passes; ++p) refs.push_back(reference(m, p));
  out.reference = refs.empty() ? std::nan("") : refs.front();

  // Per pair: the least it was worse over the passes it ran in (slow only if every pass says
  // so: the retest confirms), and the most (to list pairs the retest cleared).
  std::map<std::pair<int, int>, double> least, most;
  for (const auto& [pair, values] : m.figures)
    for (std::size_t p = 0; p < values.size(); ++p) {
      if (std::isnan(values[p]) || !(refs[p] > 0) || !(values[p] > 0)) continue;
      const double w = worse(m, values[p], refs[p]);
      least[pair] = least.count(pair) ? std::min(least[pair], w) : w;
      most[pair] = most.count(pair) ? std::max(most[pair], w) : w;
    }
  const auto slow = [&](std::pair<int, int> p) {
    return least.count(p) && least.at(p) >= o.slow_factor;
  };
  const auto label = [&](std::pair<int, int> p) {
    return fmt::format("{}-{}", m.nodes[static_cast<std::size_t>(p.first)],
                       m.nodes[static_cast<std::size_t>(p.second)]);
  };
  const auto figures = [&](std::pair<int, int> p) {
    std::vector<std::string> v;
    for (double x : m.figures.at(p)) v.push_back(fmt::format("{:.3g}", x));
    return fmt::format("{} {}", fmt::join(v, " / "), m.unit);
  };

  // Node faults: slow with every partner, or all but one in four when there are many.
  const int n = static_cast<int>(m.nodes.size());
  std::vector<bool> node_bad(static_cast<std::size_t>(n), false);
  for (int a = 0; a < n; ++a) {
    int partners = 0, slow_with = 0;
    std::vector<std::string> evidence;
    for (int b = 0; b < n; ++b) {
      if (b == a || !least.count(key(a, b))) continue;
      ++partners;
      if (slow(key(a, b))) {
        ++slow_with;
        evidence.push_back(fmt::format("{}: {} ({:.2g}x worse than the median node's {:.3g} {})",
                                       label(key(a, b)), figures(key(a, b)), least[key(a, b)],
                                       out.reference, m.unit));
      }
    }
    if (partners >= 2 && slow_with >= 2 && slow_with >= partners - partners / 4) {
      node_bad[static_cast<std::size_t>(a)] = true;
      IsolatedSuspect s;
      s.members = {a};
      s.evidence.push_back(fmt::format("{} is slow with {} of {} partners, in every pass",
                                       m.nodes[static_cast<std::size_t>(a)], slow_with, partners));
      for (auto& line : evidence) s.evidence.push_back(std::move(line));
      out.suspects.push_back(std::move(s));
    }
  }
  // Link faults: a slow pair whose two nodes are not node faults.
  for (const auto& [pair, w] : least) {
    if (!slow(pair)) {
      if (most[pair] >= o.slow_factor)
        out.cleared.push_back(
            fmt::format("{}: {} slow in one pass, not when retested", label(pair), figures(pair)));
      continue;
    }
    if (node_bad[static_cast<std::size_t>(pair.first)] ||
        node_bad[static_cast<std::size_t>(pair.second)])
      continue;
    IsolatedSuspect s;
    s.node = false;
    s.members = {pair.first, pair.second};
    s.evidence.push_back(
        fmt::format("{}: {} ({:.2g}x worse than the median node's {:.3g} {}), in every pass",
                    label(pair), figures(pair), w, out.reference, m.unit));
    for (int end : {pair.first, pair.second}) {
      int fine = 0, partners = 0;
      for (int b = 0; b < n; ++b)
        if (b != end && least.count(key(end, b)) && key(end, b) != pair) {
          ++partners;
          fine += slow(key(end, b)) ? 0 : 1;
        }
      s.evidence.push_back(fmt::format("{} is fine with {} of {} other partners",
                                       m.nodes[static_cast<std::size_t>(end)], fine, partners));
    }
    out.suspects.push_back(std::move(s));
  }
  return out;
}

}  // namespace preflight::report::plugins
