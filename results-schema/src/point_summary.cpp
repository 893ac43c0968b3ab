#include "preflight/schema/point_summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "preflight/common/stats.hpp"

namespace preflight::schema {

std::vector<double> slowest_per_iteration(MatrixView samples,
                                          std::span<const std::int64_t> groups) {
  std::vector<double> slowest;
  const std::size_t cols = samples.cols;
  for (std::size_t i = 0; i < samples.rows; ++i) {
    double t = -1;  // NaN compares false: an idle or missing cell is never the slowest
    for (std::size_t r = 0; r < cols; ++r)
      if (groups[r] >= 0 && samples.values[i * cols + r] > t) t = samples.values[i * cols + r];
    if (t >= 0) slowest.push_back(t);
  }
  return slowest;
}

// The matrices are iterations x ranks, so a rank's values lie a row apart: ranks are taken in
// blocks, each block's columns gathered into one buffer and their medians selected in place there
// (at 65,536 ranks a rank's 50 values lay 512 KiB apart and every rank had a buffer of its own).
std::vector<double> rank_medians(MatrixView values, const std::vector<double>* divisor,
                                 std::span<const std::int64_t> groups) {
  constexpr std::size_t kBlock = 64;
  const std::size_t rows = values.rows, cols = values.cols;
  std::vector<double> medians(cols, std::nan(""));
  std::vector<double> block(kBlock * rows);
  for (std::size_t first = 0; first < cols && rows > 0; first += kBlock) {
    const std::size_t width = std::min(kBlock, cols - first);
    // Two loops, so that the common case (no work counter) divides nothing.
    for (std::size_t i = 0; i < rows; ++i) {
      const double* row = values.values.data() + i * cols + first;
      if (divisor == nullptr) {
        for (std::size_t k = 0; k < width; ++k) block[k * rows + i] = row[k];
      } else {
        const double* by = divisor->data() + i * cols + first;
        for (std::size_t k = 0; k < width; ++k) block[k * rows + i] = row[k] / by[k];
      }
    }
    for (std::size_t k = 0; k < width; ++k)
      if (groups[first + k] >= 0)
        medians[first + k] = median_in_place(std::span<double>(block.data() + k * rows, rows));
  }
  return medians;
}

CounterPerIteration counter_per_iteration(MatrixView counter,
                                          std::span<const std::int64_t> groups) {
  CounterPerIteration out;
  const std::size_t cols = counter.cols;
  std::vector<double> active;
  for (std::size_t i = 0; i < counter.rows; ++i) {
    active.clear();
    double sum = 0;
    for (std::size_t rank = 0; rank < cols; ++rank)
      if (const double v = counter.values[i * cols + rank]; groups[rank] >= 0 && !std::isnan(v)) {
        active.push_back(v);
        sum += v;
      }
    out.medians.push_back(active.empty() ? std::nan("") : median(active));
    out.totals.push_back(sum);
  }
  return out;
}

std::vector<CounterCell> fault_cells(MatrixView counter) {
  std::vector<CounterCell> cells;
  const std::size_t cols = counter.cols;
  for (std::size_t i = 0; i < counter.rows; ++i)
    for (std::size_t rank = 0; rank < cols; ++rank)
      if (const double v = counter.values[i * cols + rank]; v != 0 && !std::isnan(v))
        cells.push_back({i, static_cast<std::int64_t>(rank), v});
  return cells;
}

void append_readings(MatrixView series, std::vector<std::vector<double>>& per_rank) {
  const std::size_t ranks = series.cols;
  per_rank.resize(ranks);
  for (std::size_t i = 0; i < series.rows; ++i)
    for (std::size_t r = 0; r < ranks; ++r)
      if (const double v = series.values[i * ranks + r]; !std::isnan(v)) per_rank[r].push_back(v);
}

namespace {

double highest(const std::vector<double>& v) {
  return v.empty() ? std::nan("") : *std::max_element(v.begin(), v.end());
}

double lowest(const std::vector<double>& v) {
  return v.empty() ? std::nan("") : *std::min_element(v.begin(), v.end());
}

}  // namespace

WatchedSummary summarise_watched(Watch rule, std::vector<std::vector<double>> readings,
                                 std::vector<std::vector<double>> reference, std::size_t ranks) {
  WatchedSummary w;
  readings.resize(ranks);
  w.per_rank.assign(ranks, std::nan(""));
  w.readings.assign(ranks, 0);
  w.broken.assign(ranks, 0);
  for (std::size_t r = 0; r < ranks; ++r) {
    auto& v = readings[r];
    w.readings[r] = static_cast<ReadingCount>(v.size());
    if (v.empty()) continue;
    if (rule == Watch::kZero) {
      std::uint64_t bits = 0;
      for (double x : v)
        if (x != 0) {
          ++w.broken[r];
          bits |= static_cast<std::uint64_t>(std::fabs(x));
        }
      w.per_rank[r] = static_cast<double>(bits);
    } else if (rule == Watch::kPeers) {
      w.per_rank[r] = median_in_place(v);
    } else if (rule == Watch::kGrows) {
      for (std::size_t i = 1; i < v.size(); ++i)
        if (v[i] > v[i - 1]) ++w.broken[r];
      w.per_rank[r] = v.back() - v.front();
    } else {
      w.per_rank[r] = highest(v);
    }
  }
  if (rule == Watch::kReference || rule == Watch::kMargin) {
    reference.resize(ranks);
    w.reference_per_rank.assign(ranks, std::nan(""));
    // reference: the best the device allows; margin: its limit at its strictest
    for (std::size_t r = 0; r < ranks; ++r)
      w.reference_per_rank[r] =
          rule == Watch::kReference ? highest(reference[r]) : lowest(reference[r]);
  }
  return w;
}

}  // namespace preflight::schema
