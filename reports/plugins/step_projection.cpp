#include "plugins/step_projection.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "preflight/common/collective_traits.hpp"
#include "preflight/common/stats.hpp"
#include "preflight/common/step/model.hpp"

namespace preflight::report::plugins::step_projection {
namespace {

// Linear in log(x) between (x0, y0) and (x1, y1).
double log_interpolate(double x, double x0, double y0, double x1, double y1) {
  const double t = (std::log(x) - std::log(x0)) / (std::log(x1) - std::log(x0));
  return y0 + t * (y1 - y0);
}

std::string bytes_text(double b) {
  if (b >= 1 << 20) return fmt::format("{:.3g} MiB", b / (1 << 20));
  if (b >= 1 << 10) return fmt::format("{:.3g} KiB", b / (1 << 10));
  return fmt::format("{:.0f} B", b);
}

Priced measured_time(const MeasuredScale& m, double bytes) {
  const auto& s = m.sizes;
  const auto& t = m.seconds;
  if (bytes <= s.front())
    return {t.front(),
            fmt::format("measured {:.4g} s at {} (the smallest size, at or above "
                        "{}) on {:.0f} ranks ({})",
                        t.front(), bytes_text(s.front()), bytes_text(bytes), m.ranks, m.source)};
  if (bytes >= s.back()) {
    const double bw = s.back() / t.back();
    return {bytes / bw,
            fmt::format("{} at the algbw measured at {} (the largest size), {:.4g} "
                        "GB/s, on {:.0f} ranks ({})",
                        bytes_text(bytes), bytes_text(s.back()), bw / 1e9, m.ranks, m.source)};
  }
  const auto hi = std::size_t(std::upper_bound(s.begin(), s.end(), bytes) - s.begin());
  const auto lo = hi - 1;
  const double bw = log_interpolate(bytes, s[lo], s[lo] / t[lo], s[hi], s[hi] / t[hi]);
  return {bytes / bw, fmt::format("{} at algbw {:.4g} GB/s, interpolated between {} and {} "
                                  "measured on {:.0f} ranks ({})",
                                  bytes_text(bytes), bw / 1e9, bytes_text(s[lo]), bytes_text(s[hi]),
                                  m.ranks, m.source)};
}

// Beyond the measured rank counts: the alpha-beta model's ring cost, anchored at the largest
// measured rank count below (its measured time times the model's ratio between the two), so
// that a fit over fast intra-node and slow inter-node scales keeps the level the network
// showed; the model alone where nothing was measured below.
Priced predicted_time(const CollectiveFigures& c, double ranks, double bytes) {
  const auto* traits = comm::traits_of(c.collective);
  if (traits == nullptr || !traits->ring.exists() || c.alpha_s < 0 || c.beta_s_per_byte < 0)
    return {kNaN, fmt::format("{} not measured on {:.0f} ranks and no alpha-beta fit to "
                              "extrapolate with: run comm's ladder topology",
                              c.collective, ranks)};
  const auto model = [&](double n) {
    return traits->ring.steps(n) * c.alpha_s + traits->ring.factor(n) * bytes * c.beta_s_per_byte;
  };
  const MeasuredScale* anchor = nullptr;
  for (const auto& m : c.measured)
    if (m.ranks < ranks && !m.sizes.empty() && (anchor == nullptr || m.ranks > anchor->ranks))
      anchor = &m;
  const std::string fit =
      fmt::format("the alpha-beta fit, ring algorithm ({}): alpha {:.3g} s, beta {:.3g} s/B ({})",
                  traits->cost_model, c.alpha_s, c.beta_s_per_byte, c.fit_source);
  if (anchor == nullptr)
    return {model(ranks),
            fmt::format("{} on {:.0f} ranks extrapolated with {}", bytes_text(bytes), ranks, fit)};
  const auto at = measured_time(*anchor, bytes);
  return {at.seconds * model(ranks) / model(anchor->ranks),
          fmt::format("{} on {:.0f} ranks extrapolated from {:.0f} ranks ({}) by the ratio of "
                      "{}",
                      bytes_text(bytes), ranks, anchor->ranks, at.how, fit)};
}

struct Compute {
  double micro_s = 0, backward_s = 0;
  std::string how;
};

// The step's GEMM shapes matmul did not measure, priced by their FLOPs alone: their share of
// the FLOPs and the shapes to measure (a skinny GEMM runs slower than a square of its FLOPs).
std::string unmeasured_shapes(const Inputs& in, const std::vector<step::Gemm>& gemms) {
  double missing = 0;
  std::vector<std::string> shapes;
  for (const auto& g : gemms) {
    const bool measured = std::any_of(in.rates.begin(), in.rates.end(), [&](const RatePoint& r) {
      return r.m == g.m && r.n == g.n && r.k == g.k;
    });
    if (measured) continue;
    missing += g.flops();
    const auto shape = fmt::format("{}x{}x{}", g.m, g.n, g.k);
    if (std::find(shapes.begin(), shapes.end(), shape) == shapes.end()) shapes.push_back(shape);
  }
  if (shapes.empty()) return "";
  return fmt::format(
      "; {:.0f}% of the FLOPs at {} shapes matmul did not measure, priced by "
      "their FLOPs (measure them: matmul shapes: {})",
      100 * missing / step::total_flops(gemms), shapes.size(), fmt::join(shapes, ","));
}

Compute compute_of(const Inputs& in) {
  const auto& w = in.workload;
  const auto gemms = step::step_gemms(w.model, w.split, w.micro_batch);
  Compute c;
  double lowest = kNaN, highest = kNaN;
  std::size_t at_span = 0;
  for (const auto& g : gemms) {
    const auto priced = shape_rate(in.rates, g);
    const double rate = priced.seconds;
    at_span += priced.how.ends_with(kSpanRate) ? 1 : 0;
    const double s = g.flops() / (rate * w.mfu);
    c.micro_s += s;
    if (g.backward) c.backward_s += s;
    lowest = std::isnan(lowest) ? rate : std::min(lowest, rate);
    highest = std::isnan(highest) ? rate : std::max(highest, rate);
  }
  std::string source = in.rates.empty() ? "none" : in.rates.front().source;
  if (source.ends_with(kSpanRate)) source.resize(source.size() - kSpanRate.size());
  c.how = fmt::format(
      "compute: {} GEMMs, {:.4g} GFLOP a micro-batch of {}, at {:.4g} to {:.4g} GFLOP/s per "
      "rank (the measured matmul rate at each GEMM's FLOPs, {}; {} of them at the rate over all "
      "ranks' span, CPU GEMMs of 1 ms or more) x mfu {:.3g}{}",
      gemms.size(), step::total_flops(gemms) / 1e9, w.micro_batch, lowest / 1e9, highest / 1e9,
      source, at_span, w.mfu, unmeasured_shapes(in, gemms));
  return c;
}

// The gradient's collectives for one bucket size, summed.
Priced bucket_time(const Inputs& in, double ranks, double bytes) {
  Priced sum;
  for (const auto& c : in.collectives) {
    const auto p = collective_time(c, ranks, bytes);
    sum.seconds += p.seconds;
    sum.how += (sum.how.empty() ? "" : "; ") + c.collective + ": " + p.how;
  }
  return sum;
}

void add_communication(const Inputs& in, const step::StepLayout& l, Projection& p) {
  const auto& w = in.workload;
  const auto buckets = step::buckets_of(step::gradient_bytes_per_rank(w), w.bucket_bytes);
  auto& t = p.terms;
  if (buckets.count == 0 || l.data_parallel <= 1) {
    p.how.push_back("gradient: one data-parallel rank, nothing to synchronise");
    return;
  }
  const auto full = bucket_time(in, l.data_parallel, double(buckets.bytes));
  const auto last = bucket_time(in, l.data_parallel, double(buckets.last_bytes));
  t.comm_s = double(buckets.count - 1) * full.seconds + last.seconds;
  t.last_bucket_s = last.seconds;
  t.comm_exposed_s = exposed_comm(t.comm_s, t.backward_s, t.last_bucket_s, w.overlap);
  p.how.push_back(fmt::format(
      "gradient: {} buckets of {} over {} data-parallel ranks, {:.4g} s "
      "each: {}",
      buckets.count, bytes_text(double(buckets.bytes)), l.data_parallel, full.seconds, full.how));
  p.how.push_back(fmt::format(
      "exposed gradient: {:.4g} s{}", t.comm_exposed_s,
      w.overlap ? fmt::format(" (overlapped with the last micro-batch's backward pass, {:.4g} "
                              "s; at least the last bucket, {:.4g} s)",
                              t.backward_s, t.last_bucket_s)
                : " (no overlap: all of it)"));
}

void add_data(const Inputs& in, const step::StepLayout& l, Projection& p) {
  auto& t = p.terms;
  if (in.data_samples_per_s.value <= 0) {
    p.how.push_back("data: not measured (no dataloader figure for this workload's samples)");
    return;
  }
  const double samples = double(l.accumulation) * in.workload.micro_batch;
  t.data_s = samples / in.data_samples_per_s.value;
  // Prefetching hides the loader behind the rest of the step where it has processors of its
  // own. A CPU GEMM backend keeps every core busy while it computes: there the workers' time
  // hides only behind the gradient's exposed synchronisation, when the ranks wait.
  const bool shared = in.data_shares_compute_cpus;
  const double window = shared ? t.comm_exposed_s : t.compute_s + t.comm_exposed_s;
  t.data_exposed_s = std::max(0.0, t.data_s - window);
  p.how.push_back(fmt::format(
      "data: {:.0f} samples per rank at {:.4g} samples/s per rank ({}): {:.4g} s, {}, so "
      "{:.4g} s shows",
      samples, in.data_samples_per_s.value, in.data_samples_per_s.source, t.data_s,
      shared ? "on the CPUs the GEMMs use: prefetched only while the ranks wait on the gradient"
             : "prefetched",
      t.data_exposed_s));
}

void add_checkpoint(const Inputs& in, Projection& p) {
  const auto& w = in.workload;
  auto& t = p.terms;
  if (w.checkpoint_bytes == 0 || w.checkpoint_interval_s <= 0) {
    p.how.push_back("checkpoint: none planned (checkpoint_bytes or checkpoint_interval is 0)");
    return;
  }
  if (in.checkpoint_bytes_per_s.value <= 0) {
    p.how.push_back("checkpoint: not measured (no checkpoint save in the files)");
    return;
  }
  const double save_s = double(w.checkpoint_bytes) / in.checkpoint_bytes_per_s.value;
  const double rest = t.compute_s + t.comm_exposed_s + t.data_exposed_s;
  t.checkpoint_s = save_s * rest / w.checkpoint_interval_s;
  p.how.push_back(fmt::format(
      "checkpoint: {} per node at {:.4g} GB/s per node ({}) takes {:.4g} "
      "s, every {:.4g} s: {:.4g} s a step",
      bytes_text(double(w.checkpoint_bytes)), in.checkpoint_bytes_per_s.value / 1e9,
      in.checkpoint_bytes_per_s.source, save_s, w.checkpoint_interval_s, t.checkpoint_s));
}

}  // namespace

Priced gemm_rate(const std::vector<RatePoint>& rates, double flops) {
  if (rates.empty()) throw std::invalid_argument("no matmul rate measured");
  // One point per FLOPs count: the mean rate of the shapes measured at it.
  std::vector<RatePoint> merged;
  std::vector<int> count;
  for (const auto& r : rates) {
    if (!merged.empty() && merged.back().flops == r.flops) {
      merged.back().flops_per_s += r.flops_per_s;
      ++count.back();
      continue;
    }
    merged.push_back(r);
    count.push_back(1);
  }
  for (std::size_t i = 0; i < merged.size(); ++i) merged[i].flops_per_s /= count[i];
  if (flops <= merged.front().flops) return {merged.front().flops_per_s, merged.front().source};
  if (flops >= merged.back().flops) return {merged.back().flops_per_s, merged.back().source};
  const auto hi =
      std::size_t(std::upper_bound(merged.begin(), merged.end(), flops,
                                   [](double f, const RatePoint& r) { return f < r.flops; }) -
                  merged.begin());
  const auto& a = merged[hi - 1];
  const auto& b = merged[hi];
  return {log_interpolate(flops, a.flops, a.flops_per_s, b.flops, b.flops_per_s), a.source};
}

Priced shape_rate(const std::vector<RatePoint>& rates, const step::Gemm& g) {
  for (const auto& r : rates)
    if (r.m == g.m && r.n == g.n && r.k == g.k) return {r.flops_per_s, r.source};
  return gemm_rate(rates, g.flops() / double(g.count));
}

Priced collective_time(const CollectiveFigures& c, double ranks, double bytes) {
  if (ranks <= 1) return {0, "one rank"};
  for (const auto& m : c.measured)
    if (m.ranks == ranks && !m.sizes.empty()) return measured_time(m, bytes);
  return predicted_time(c, ranks, bytes);
}

double exposed_comm(double comm_s, double window_s, double last_bucket_s, bool overlap) {
  if (!overlap) return comm_s;
  return std::min(comm_s, std::max(comm_s - window_s, last_bucket_s));
}

void finish(Terms& t) {
  const double checkpoint = std::max(t.checkpoint_s, 0.0);
  t.step_s = t.compute_s + t.comm_exposed_s + t.data_exposed_s + checkpoint;
  if (std::isnan(t.step_s)) {
    t.bottleneck = "unknown";  // a term could not be priced; its line says why
    return;
  }
  const std::pair<double, const char*> terms[] = {{t.compute_s, "compute"},
                                                  {t.comm_exposed_s, "communication"},
                                                  {t.data_exposed_s, "data"},
                                                  {checkpoint, "checkpoint"}};
  t.bottleneck = std::max_element(std::begin(terms), std::end(terms), [](auto& a, auto& b) {
                   return a.first < b.first;
                 })->second;
}

Projection project(const Inputs& in, int nodes) {
  Projection p;
  p.layout = step::layout_at(in.workload, nodes);
  if (!p.layout.problem.empty()) {
    p.terms.step_s = kNaN;
    p.how.push_back(p.layout.problem);
    return p;
  }
  const auto c = compute_of(in);
  p.terms.compute_s = double(p.layout.accumulation) * c.micro_s;
  p.terms.backward_s = c.backward_s;
  p.how.push_back(fmt::format("{}; {} micro-batches a step: {:.4g} s", c.how, p.layout.accumulation,
                              p.terms.compute_s));
  add_communication(in, p.layout, p);
  add_data(in, p.layout, p);
  add_checkpoint(in, p);
  finish(p.terms);
  return p;
}

double scaling_efficiency(const Inputs& in, int nodes) {
  const double one = project(in, 1).terms.step_s, many = project(in, nodes).terms.step_s;
  return one / (double(nodes) * many);
}

}  // namespace preflight::report::plugins::step_projection
