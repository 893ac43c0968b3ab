// What the harness asks of a benchmark family. The harness owns timing, iteration counts,
// statistics and results; a family only says what its cases are and how to run one operation.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "preflight/schema/attr.hpp"
#include "preflight/schema/family_schema.hpp"
#include "preflight/schema/layout.hpp"

namespace preflight {

// What a case declares about its figures (stage, x-axis, scaling, peer rules, quality rules):
// the schema's CaseMeaning, written as the case's attributes. span_nodes is the harness's.
using CaseMeaning = schema::CaseMeaning;

// A named value recorded with a case (as an attribute) or a point (as a stats column).
struct Param {
  std::string name;
  std::variant<std::int64_t, double, std::string> value;
  std::string unit;       // "" when it has none
  bool in_table = false;  // shown in each row of the console table
  // A point column's declaration (what it means), from the family's schema table; required
  // for point columns, unused for case parameters.
  const schema::Column* column = nullptr;
};

// A case attribute from its declaration: a value of the declared type, under the declared name
// and unit. The only way a family makes a case attribute; the sink refuses a name that neither the
// case's family nor the harness declares.
template <typename T>
requires(!std::is_same_v<T, std::string> && !std::is_same_v<T, std::uint64_t>) Param
    attr(const schema::Attr<T>& a, std::type_identity_t<T> value, bool in_table = false) {
  return {std::string(a.name), value, std::string(a.unit), in_table};
}
inline Param attr(const schema::Attr<std::string>& a, std::string_view value,
                  bool in_table = false) {
  return {std::string(a.name), std::string(value), std::string(a.unit), in_table};
}

// A point column from its declaration.
inline Param column_param(const schema::Column& c,
                          std::variant<std::int64_t, double, std::string> v, bool in_table) {
  return {std::string(c.name), std::move(v), std::string(c.unit), in_table, &c};
}

// A figure derived from a time (e.g. bus bandwidth), or from the samples and counters. Its
// name, unit and meaning are its declaration's, a schema table entry of static lifetime.
struct Metric {
  std::string name;
  std::string unit;
  double value = 0;
  const schema::Column* column = nullptr;
  // A time metric's back-to-back twin (kBatchedPrefix + name), when there is one.
  const schema::Column* batched = nullptr;
};

inline Metric metric(const schema::Column& c, double value,
                     const schema::Column* batched = nullptr) {
  return {std::string(c.name), std::string(c.unit), value, &c, batched};
}

// A per-rank figure an operation reports besides its time, per timed iteration (for example
// the bytes a time-bounded read got through), or a per-rank time series. Written to
// points/<P>/counters/<name> (iteration x rank) or points/<P>/series/<name> (row x rank), with
// its declaration's name, unit, description, direction and kind.
struct CounterSpec {
  const schema::Column* column = nullptr;
  double interval_s = 0;  // series only: the time one row covers; 0 when rows are not times
  // Series only: what the report watches on it (schema::SeriesWatch), or nullptr: nothing.
  const schema::SeriesWatch* watch = nullptr;
};

// A group's raw results at one point, for figures that need more than the median time.
struct SampleView {
  std::size_t ranks = 0;             // world size: the row length of every matrix
  std::size_t iterations = 0;        // rows
  const std::vector<int>* members;   // world ranks of the group
  const std::vector<double>* times;  // iterations x ranks, seconds
  // One matrix per Case::counters() entry, iterations x ranks, in that order.
  const std::vector<std::vector<double>>* counters;
  // Case::measures_span() only (else nullptr): iterations x ranks, when each rank started each
  // timed iteration, seconds on rank 0's clock after the earliest start; NaN where it idled.
  const std::vector<double>* starts = nullptr;
};

// Times an operation on the device that runs it (CUDA events on the operation's stream), for a
// case whose operations are asynchronous: the host clock would time the launch, not the work.
// The harness calls start() right before the first launch() it times, stop() right after the
// last one (before wait()), and seconds() after wait(): the time between the two marks.
class DeviceTimer {
 public:
  virtual ~DeviceTimer() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  virtual double seconds() = 0;
};

// What one rank does for one point of a case. It owns its buffers.
//
// An operation is either synchronous or asynchronous. A synchronous one (MPI's blocking
// collectives, a read) implements run() and is complete on return; launch() then runs it and
// wait() has nothing to wait for. An asynchronous one (a kernel or NCCL call queued on a GPU
// stream) derives from AsyncOperation and implements launch() and wait(); run() is both. The
// harness only calls launch() and wait(): it launches N operations back to back and waits once,
// waits after each one in the per-iteration phase, and waits before count_wrong().
class Operation {
 public:
  virtual ~Operation() = default;
  // Writes the rank- and index-dependent input pattern.
  virtual void fill() = 0;
  // One operation, complete on this rank when this returns.
  virtual void run() = 0;
  // Starts one operation; it may still be running when this returns.
  virtual void launch() { run(); }
  // Returns when every operation launched so far is complete on this rank.
  virtual void wait() {}
  // `ops` operations back to back, as one timed block: launch() `ops` times unless the operation
  // has a better way (a CUDA graph of the whole block, as nccl-tests -G captures its loop, so
  // that per-launch host overhead leaves the figure).
  virtual void launch_batch(int ops) {
    for (int i = 0; i < ops; ++i) launch();
  }
  // Untimed, before blocks of `ops` are timed: whatever launch_batch(ops) needs made first.
  virtual void prepare_batch(int ops) { (void)ops; }
  // The timer the harness uses instead of the host clock, or nullptr (the default): host time.
  // Owned by the operation.
  virtual DeviceTimer* device_timer() { return nullptr; }
  // Result elements that differ from what the pattern implies, after fill(), launch(), wait().
  virtual std::uint64_t count_wrong() = 0;
  // Test-only fault injection: damages this rank's result so the check must catch it.
  virtual void corrupt_result() = 0;
  // Test-only, for an operation that checks its own result every time it runs (a correctness
  // case): from now on, flip one bit of the result of every `every`-th run, after the work and
  // before the check, as an intermittent fault would. Others ignore it.
  virtual void plant_corruption(int every) { (void)every; }
  // Result elements the operation's own checks found wrong in the runs since it was made
  // (warm-up, timed and back-to-back): added to the rank's wrong_per_rank, so that a wrong result
  // found while timing fails the case as the check before timing does. 0 for an operation that
  // checks nothing itself.
  virtual std::uint64_t wrong_in_runs() { return 0; }
  // Untimed, before the barrier that starts each warm-up and timed iteration: puts the rank in
  // the state every iteration must start from (e.g. evicts a file from the page cache). It
  // must not communicate: idle ranks do not call it.
  virtual void before_iteration() {}
  // Untimed, after each timed iteration: one value per Case::counters() entry, in order.
  virtual std::vector<double> iteration_counters() { return {}; }
  // After the timed phase: one series per Case::series() entry, in order (any lengths).
  virtual std::vector<std::vector<double>> series() { return {}; }
};

// An operation that runs asynchronously: it implements launch() and wait(), and run() is both.
class AsyncOperation : public Operation {
 public:
  void launch() override = 0;
  void wait() override = 0;
  void run() final {
    launch();
    wait();
  }
};

// One benchmark case: a fixed set of parameters swept over points (sizes). Every rank holds
// the same case; ranks outside all groups idle through it.
class Case {
 public:
  virtual ~Case() = default;
  virtual std::string name() const = 0;
  std::string family() const { return std::string(declaration().name); }
  virtual std::string backend() const = 0;
  virtual std::vector<Param> params() const = 0;
  // Its family's declaration (results-schema): the family's name, what every case of it means
  // (stage, x-axis, scaling, peer and quality rules) and its tables.
  virtual const schema::FamilySchema& declaration() const = 0;
  // What the case's meaning says of the case itself: its subject, and its series where the
  // family fixes none. The harness makes the CaseMeaning from both (schema::meaning_of) and adds
  // span_nodes. Every column, metric and counter carries its own declaration.
  virtual schema::OwnMeaning own_meaning() const = 0;
  // world rank -> index of the group it runs in, -1 when idle. Groups run at the same time.
  virtual const std::vector<int>& group_of_rank() const = 0;
  virtual std::size_t point_count() const = 0;
  // Columns that describe point `point` for group `group` (-1: all groups together).
  virtual std::vector<Param> point_columns(std::size_t point, int group) const = 0;
  // Figures derived from `seconds` per operation at that point for that group.
  virtual std::vector<Metric> metrics(std::size_t point, int group, double seconds) const = 0;
  // This rank's operation at `point`, or nullptr when this rank idles in this case.
  virtual std::unique_ptr<Operation> make_operation(std::size_t point) = 0;

  // Optional parts; the defaults are what a collective needs.
  // Collective over the world, before the case's first point runs (not on a dry run): e.g.
  // write the files the case reads. Every rank must return, or throw, together.
  virtual void start() {}
  // False: no back-to-back phase (each operation must start from the before_iteration state).
  virtual bool back_to_back() const { return true; }
  // True: before_iteration runs after a barrier too, when no rank is still in the previous
  // operation (ranks that share data must not refill what another just evicted).
  virtual bool quiet_setup() const { return false; }
  // True: the case's figure spans its ranks, first start to last finish (storage and
  // checkpoint bandwidth, as IOR), not the slowest rank's own time: the harness then records
  // when each rank started each timed iteration, on rank 0's clock (points/<P>/starts), for
  // sample_metrics (SampleView::starts; rank_span.hpp derives the spans).
  virtual bool measures_span() const { return false; }
  // Per-iteration counters and per-rank series the operations report.
  virtual std::vector<CounterSpec> counters() const { return {}; }
  virtual std::vector<CounterSpec> series() const { return {}; }
  // Figures derived from the group's samples and counters at a point (no batched twin).
  virtual std::vector<Metric> sample_metrics(std::size_t /*point*/, int /*group*/,
                                             const SampleView& /*view*/) const {
    return {};
  }
};

}  // namespace preflight
