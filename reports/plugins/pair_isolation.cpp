#include "plugins/pair_isolation.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>

namespace preflight::report::plugins {
namespace {

using Pair = std::pair<int, int>;

Pair key(int a, int b) {
  return {std::min(a, b), std::max(a, b)};
}

// What the isolation knows of each measured pair.
struct PairVerdict {
  double level = std::nan("");  // held in every pass: its worst pass's figure
  bool slow_in_every_pass = false, slow_in_some_pass = false;
  bool below_floor = false;               // even its best iterations, in every pass
  double worse_than_best = std::nan("");  // its best pass's best iterations against the best
};

class Judge {
 public:
  Judge(const PairMatrix& m, const IsolationOptions& o) : m_(m), o_(o) {}

  // How many times worse `value` is than `reference` (1: as good; > 1: worse).
  double worse(double value, double reference) const {
    return m_.higher_is_better ? reference / value : value / reference;
  }
  bool better(double a, double b) const { return m_.higher_is_better ? a > b : a < b; }

  // The pair's best iterations in pass p where known, else its figure.
  double best_iterations(Pair pair, std::size_t p) const {
    const auto it = m_.best_iterations.find(pair);
    const double figure = m_.figures.at(pair)[p];
    if (it == m_.best_iterations.end() || p >= it->second.size() || !(it->second[p] > 0))
      return figure;
    return better(it->second[p], figure) ? it->second[p] : figure;
  }

  std::map<Pair, PairVerdict> judge_pairs(Isolation& out) const {
    std::map<Pair, PairVerdict> verdicts;
    for (const auto& [pair, values] : m_.figures) {
      PairVerdict v;
      for (double x : values)
        if (x > 0 && (std::isnan(v.level) || better(v.level, x))) v.level = x;
      if (std::isnan(v.level)) continue;
      verdicts[pair] = v;
      if (std::isnan(out.best) || better(v.level, out.best)) {
        out.best = v.level;
        out.best_pair = label(pair);
      }
    }
    const bool floored = std::isfinite(m_.floor) && m_.floor > 0;
    for (auto& [pair, v] : verdicts) {
      std::size_t passes = 0, slow = 0, below = 0;
      const auto& values = m_.figures.at(pair);
      for (std::size_t p = 0; p < values.size(); ++p) {
        if (!(values[p] > 0)) continue;
        ++passes;
        const double reached = best_iterations(pair, p);
        const double w = worse(reached, out.best);
        if (std::isnan(v.worse_than_best) || w < v.worse_than_best) v.worse_than_best = w;
        slow += w >= o_.slow_factor ? 1 : 0;
        below += floored && worse(reached, m_.floor) > 1 ? 1 : 0;
      }
      v.slow_in_every_pass = passes > 0 && slow == passes;
      v.slow_in_some_pass = slow > 0;
      v.below_floor = passes > 0 && below == passes;
    }
    return verdicts;
  }

  std::string label(Pair p) const {
    return fmt::format("{}-{}", m_.nodes[static_cast<std::size_t>(p.first)],
                       m_.nodes[static_cast<std::size_t>(p.second)]);
  }

  std::string figures(Pair p) const {
    std::vector<std::string> v;
    for (double x : m_.figures.at(p)) v.push_back(fmt::format("{:.3g}", x));
    return fmt::format("{} {}", fmt::join(v, " / "), m_.unit);
  }

  // One pair's line of evidence: its figures, and what it was judged against.
  std::string pair_line(Pair p, const PairVerdict& v, const Isolation& iso) const {
    std::string against;
    if (v.slow_in_every_pass)
      against = fmt::format(
          "{:.2g}x worse than the best pair {}'s {:.3g} {} even at its best "
          "iterations",
          v.worse_than_best, iso.best_pair, iso.best, m_.unit);
    if (v.below_floor)
      against +=
          fmt::format("{}below the reference {}'s floor {:.3g} {} (typical {:.3g})",
                      against.empty() ? "" : "; ", m_.reference, m_.floor, m_.unit, m_.typical);
    return fmt::format("{}: {} ({}), in every pass", label(p), figures(p), against);
  }

 private:
  const PairMatrix& m_;
  const IsolationOptions& o_;
};

// Slow against the best pair, and where an envelope applies, below its floor too: a pair a
// little below a floor that others clear is no fault to name (a floor made from one quiet run can
// sit close to a busy machine's spread: a healthy pair at 1.2x the floor and 1.6x the best pair's
// latency was named so, 2 of 5 trials), while the acceptance check of the figure still fails it.
bool slow(const PairVerdict& v, bool floored) {
  return v.slow_in_every_pass && (!floored || v.below_floor);
}

}  // namespace

const char* name_of(SuspectKind kind) {
  switch (kind) {
    case SuspectKind::kLink:
      return "link";
    case SuspectKind::kFabric:
      return "fabric";
    default:
      return "host";
  }
}

Isolation isolate(const PairMatrix& m, const IsolationOptions& o) {
  Isolation out;
  const Judge judge(m, o);
  const auto verdicts = judge.judge_pairs(out);
  if (verdicts.empty()) return out;
  const bool floored = std::isfinite(m.floor) && m.floor > 0;
  for (const auto& [pair, v] : verdicts)
    if (v.slow_in_some_pass && !slow(v, floored))
      out.cleared.push_back(fmt::format("{}: {} slow in one pass, not when retested",
                                        judge.label(pair), judge.figures(pair)));

  // Every pair below the envelope's floor: what every node shares, not one of them.
  const bool every_pair_below = std::all_of(verdicts.begin(), verdicts.end(),
                                            [](const auto& kv) { return kv.second.below_floor; });
  const int n = static_cast<int>(m.nodes.size());
  if (every_pair_below) {
    IsolatedSuspect s;
    s.kind = SuspectKind::kFabric;
    for (int a = 0; a < n; ++a) s.members.push_back(a);
    s.evidence.push_back(fmt::format(
        "every one of the {} pairs is below the reference {}'s floor of {:.3g} {} (typical "
        "{:.3g}) in every pass, even at its best iterations; the best pair, {}, reached {:.3g} {}",
        verdicts.size(), m.reference, m.floor, m.unit, m.typical, out.best_pair, out.best, m.unit));
    out.suspects.push_back(std::move(s));
    return out;
  }

  // Node faults: slow with every partner (a node fine with any partner is cleared by it).
  std::vector<bool> node_bad(static_cast<std::size_t>(n), false);
  for (int a = 0; a < n; ++a) {
    int partners = 0;
    std::vector<std::string> evidence;
    bool fine_with_any = false;
    for (int b = 0; b < n; ++b) {
      const auto it = b == a ? verdicts.end() : verdicts.find(key(a, b));
      if (it == verdicts.end()) continue;
      ++partners;
      if (!slow(it->second, floored))
        fine_with_any = true;
      else
        evidence.push_back(judge.pair_line(key(a, b), it->second, out));
    }
    if (partners < 2 || fine_with_any) continue;
    node_bad[static_cast<std::size_t>(a)] = true;
    IsolatedSuspect s;
    s.members = {a};
    s.evidence.push_back(fmt::format("{} is slow with every one of its {} partners, in every pass",
                                     m.nodes[static_cast<std::size_t>(a)], partners));
    for (auto& line : evidence) s.evidence.push_back(std::move(line));
    out.suspects.push_back(std::move(s));
  }
  // A fault many nodes share, said as what it is: which nodes, and what the good pair reached.
  std::vector<std::string> bad_nodes;
  for (int a = 0; a < n; ++a)
    if (node_bad[static_cast<std::size_t>(a)])
      bad_nodes.push_back(m.nodes[static_cast<std::size_t>(a)]);
  if (bad_nodes.size() > 1) {
    const auto shared = fmt::format(
        "{} of {} nodes are slow with every partner ({}); the best pair, {}, reached {:.3g} {}",
        bad_nodes.size(), n, fmt::join(bad_nodes, ", "), out.best_pair, out.best, m.unit);
    for (auto& s : out.suspects) {
      std::vector<std::string> lines{shared};
      std::move(s.evidence.begin(), s.evidence.end(), std::back_inserter(lines));
      s.evidence = std::move(lines);
    }
  }
  // Link faults: a slow pair whose two nodes are each fine with another partner.
  for (const auto& [pair, v] : verdicts) {
    if (!slow(v, floored) || node_bad[static_cast<std::size_t>(pair.first)] ||
        node_bad[static_cast<std::size_t>(pair.second)])
      continue;
    IsolatedSuspect s;
    s.kind = SuspectKind::kLink;
    s.members = {pair.first, pair.second};
    s.evidence.push_back(judge.pair_line(pair, v, out));
    for (int end : {pair.first, pair.second}) {
      std::vector<std::string> fine;
      for (int b = 0; b < n; ++b) {
        const auto it = b == end ? verdicts.end() : verdicts.find(key(end, b));
        if (it != verdicts.end() && key(end, b) != pair && !slow(it->second, floored))
          fine.push_back(m.nodes[static_cast<std::size_t>(b)]);
      }
      s.evidence.push_back(fmt::format("{} is fine with {}", m.nodes[static_cast<std::size_t>(end)],
                                       fine.empty() ? std::string("no other partner")
                                                    : fmt::format("{}", fmt::join(fine, ", "))));
    }
    out.suspects.push_back(std::move(s));
  }
  return out;
}

}  // namespace preflight::report::plugins
