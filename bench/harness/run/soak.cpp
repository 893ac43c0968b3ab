#include "harness/run/soak.hpp"

#include <mpi.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harness/run/idle_wait.hpp"

namespace preflight {
namespace {

// The median, the mean of the middle two of an even count: with the upper one, of two nodes the
// slower would always be the median itself, its ratio 1 however slow it is.
double median_of(std::vector<double> v) {
  std::erase_if(v, [](double x) { return std::isnan(x); });
  if (v.empty()) return std::nan("");
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2 == 1) return *mid;
  return (*std::max_element(v.begin(), mid) + *mid) / 2;
}

// Each rank's median time over the point's iterations; NaN where it idled.
std::vector<double> rank_medians(const PointResult& p, std::size_t ranks) {
  std::vector<double> out(ranks, std::nan(""));
  const std::size_t rows = ranks == 0 ? 0 : p.samples.size() / ranks;
  std::vector<double> column(rows);
  for (std::size_t r = 0; r < ranks; ++r) {
    for (std::size_t i = 0; i < rows; ++i) column[i] = p.samples[i * ranks + r];
    out[r] = median_of(column);
  }
  return out;
}

}  // namespace

void SoakClock::round_ended(double job_elapsed_s) {
  rounds_s_ += job_elapsed_s - last_end_s_;
  last_end_s_ = job_elapsed_s;
  ++rounds_;
}

double SoakClock::mean_round_s() const {
  if (rounds_ > 0) return rounds_s_ / static_cast<double>(rounds_);
  return rounds_before_ > 0 ? soaked_before_s_ / rounds_before_ : 0;  // resumed: the file's rounds
}

bool SoakClock::another_round(double job_elapsed_s, const RankContext& ctx) const {
  int go = soaked_s(job_elapsed_s) + mean_round_s() <= soak_s_ && soaked_s(job_elapsed_s) < soak_s_;
  idle_bcast(&go, 1, MPI_INT, 0, ctx.world);  // rank 0 may still be writing the last case
  return go != 0;
}

long SoakClock::rounds_left(double job_elapsed_s) const {
  if (!(mean_round_s() > 0)) return -1;
  const double left = soak_s_ - soaked_s(job_elapsed_s);
  return std::max(0L, static_cast<long>(std::floor(left / mean_round_s())));
}

std::vector<double> node_time_ratios(const CaseRecord& record, const RankContext& ctx) {
  if (!record.meaning.peer_slow || ctx.node_count < 2) return {};
  const auto ranks = static_cast<std::size_t>(ctx.size);
  std::vector<double> out(static_cast<std::size_t>(ctx.node_count), std::nan(""));
  std::vector<std::vector<double>> of_node(out.size());
  for (const auto& p : record.points) {
    if (p.samples.size() != ranks * static_cast<std::size_t>(p.iterations)) continue;
    const auto medians = rank_medians(p, ranks);
    const double all = median_of(medians);
    if (!(all > 0)) continue;
    for (auto& v : of_node) v.clear();
    for (std::size_t r = 0; r < ranks && r < ctx.node_of_rank.size(); ++r)
      of_node[static_cast<std::size_t>(ctx.node_of_rank[r])].push_back(medians[r]);
    for (std::size_t n = 0; n < of_node.size(); ++n) {
      const double ratio = median_of(of_node[n]) / all;
      if (ratio > out[n] || (std::isnan(out[n]) && !std::isnan(ratio))) out[n] = ratio;
    }
  }
  return out;
}

void WorstNode::take(const std::vector<double>& ratios, const std::string& case_name,
                     const RankContext& ctx, long round) {
  for (std::size_t n = 0; n < ratios.size(); ++n) {
    if (!(ratios[n] > ratio_)) continue;
    ratio_ = ratios[n];
    node_ = n < ctx.node_names.size() ? ctx.node_names[n] : fmt::format("node {}", n);
    case_name_ = case_name;
    round_ = round;
  }
}

std::string WorstNode::text() const {
  if (node_.empty()) return {};
  return fmt::format("{} {:.2f}x its peers' time (round {}, {})", node_, ratio_, round_,
                     case_name_);
}

}  // namespace preflight
