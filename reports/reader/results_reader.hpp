// Reads preflight results files through the same schema definitions the writer uses
// (results-schema/). Every problem with a file -- not HDF5, truncated, another schema version,
// a required part missing -- is a ReadError naming the file and the part, never a crash.
//
// What a figure means is read from the file (schema v2: the case's and each column's
// declarations, preflight/schema/meaning.hpp). A version-1 file carries no declarations: the one
// v1 adapter (reader/v1_adapter.hpp) supplies them, so that nothing after the reader knows which
// version it read.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

#include "preflight/schema/attr.hpp"
#include "preflight/schema/layout.hpp"
#include "preflight/schema/meaning.hpp"
#include "preflight/schema/point_summary.hpp"

namespace preflight::report {

struct ReadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One column of a case's stats table; numbers as double (ints fit), or strings.
struct Column {
  std::string unit;
  // The column's declaration (v2 attributes; the v1 adapter's table for v1 files).
  schema::Direction direction = schema::Direction::kNone;
  schema::Kind kind = schema::Kind::kLabel;
  bool headline = false;
  schema::PerIteration per_iteration = schema::PerIteration::kNone;
  std::string per_iteration_source;  // counter name, or ""
  std::string better;  // version-1 files only: the raw `better` attribute the adapter reads
  std::vector<double> numbers;
  std::vector<std::string> strings;
};

// A series the case declares a watch on (schema::Watch, SPEC.md "Telemetry"): the declaration
// and each rank's readings over the whole case (every point), summarised as its rule needs.
struct WatchedSeries {
  schema::Watch rule = schema::Watch::kNone;
  std::string finding;    // what a broken rule means, as declared
  std::string unit;       // of the readings
  double tolerance = 0;   // peers
  std::string reference;  // reference: the series whose highest reading is to be reached
  std::string labels;     // zero: "0x4 name; 0x8 name"
  // What an operator does when it is broken round after round (files before watch_remedy: the
  // reader's choice by rule, SPEC.md "What the report watches").
  schema::Remedy remedy = schema::Remedy::kNone;
  // Per world rank, NaN where it has no reading: zero: every reading's bits OR-ed; peers: the
  // median reading; reference: the highest reading.
  std::vector<double> per_rank;
  std::vector<double> reference_per_rank;  // reference: the highest reading of `reference`
  // Per rank (rules zero and grows; empty for the others, which do not judge them): readings,
  // and those that broke the rule.
  std::vector<schema::ReadingCount> readings, broken;
};

// One cell of a per-iteration counter (iterations x ranks): the timed iteration, the world rank,
// the value.
using CounterCell = schema::CounterCell;

struct CaseData {
  std::int64_t index = 0;
  std::string group_name;  // "000012"
  std::string name, family, backend, status;
  // Every other string or number attribute, as text (a number as the reader writes it: a whole
  // number without a fraction, any other with 6 significant digits). Read one through its
  // declaration with get().
  std::map<std::string, std::string> params;
  // The hosts' CPU others took while the case ran (SPEC "Host load"); NaN: not measured.
  double host_cpu_stolen = std::numeric_limits<double>::quiet_NaN();
  double host_cpu_foreign = std::numeric_limits<double>::quiet_NaN();
  double host_cpu_s = 0;
  std::map<std::string, Column> stats;  // empty for a case that timed out before a size ended
  // What its figures mean: the writer's own struct, read from the file (v2) or supplied by the
  // v1 adapter; a CaseData made by hand sets what it relies on.
  schema::CaseMeaning meaning;
  // Per point (size): each timed iteration's time, the slowest rank's, from the raw samples.
  std::vector<std::vector<double>> iteration_times;
  // Per counter the family writes, per point: each timed iteration's median over the active
  // ranks, and its sum over them (the work all ranks did, for the work counter).
  std::map<std::string, std::vector<std::vector<double>>> iteration_counters;
  std::map<std::string, std::vector<std::vector<double>>> iteration_totals;
  // Per point: each rank's median time over the iterations (NaN where it idled); with a work
  // counter, its median time per unit of work, so that a rank that does less in a time-bounded
  // iteration is the slow one.
  std::vector<std::vector<double>> rank_medians;
  // Per point: each rank's median back-to-back time per operation (points/<P>/batched), empty
  // for a point without back-to-back blocks. In a block the ranks' arrival skew and their roles
  // in the algorithm amortise: what peer_slow compares (docs/report.md, "Slow nodes").
  std::vector<std::vector<double>> rank_batched_medians;
  // Per point: operations in each back-to-back block (stats column batch_ops; 0: no blocks).
  // A block of few operations amortises nothing: its time per operation is a rank's role.
  std::vector<std::int64_t> batch_ops;
  // World rank -> the group it ran in (-1: idle). Ranks of different groups never wait for
  // each other; empty (a CaseData made by hand): all active ranks are one group.
  std::vector<std::int64_t> group_of_rank;
  // The series the case declares a watch on, by name (reader/watched_series.hpp).
  std::map<std::string, WatchedSeries> watched;
  // Per point: each rank that had wrong result elements (points/<P>/wrong_per_rank, what the
  // harness and the family found), rank -> elements; empty where every rank was right or the
  // file does not record it.
  std::vector<std::map<std::int64_t, std::uint64_t>> wrong_per_rank;
  // Per counter declared a count of what should not happen (kind count, direction lower), per
  // point: its cells that are neither 0 nor NaN, in iteration then rank order. Few in a sound run.
  std::map<std::string, std::vector<std::vector<CounterCell>>> fault_cells;
  // Per series whose rows are events, not time intervals (its interval_s is 0), per point: each
  // rank's values from row 0 to its first NaN; a rank without any is absent.
  std::map<std::string, std::vector<std::map<std::int64_t, std::vector<double>>>> event_series;
  std::size_t rows() const;
  // A case attribute, read through its one declaration (schema::Attr): its value when the case
  // has it and it reads as the declared type; nullopt otherwise. Types are told from the text,
  // so that a file that stored a number as a string (older writers) reads as before: a
  // std::string is any text, a double any number, an std::int64_t a whole number.
  template <typename T>
  std::optional<T> get(const schema::Attr<T>& attr) const;
  // (point, group) -> row of stats, built by the reader so that lookups stay cheap with many
  // groups; empty for a CaseData made by hand (lookups then scan).
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> row_index;
};

// An attribute's text (CaseData::params) as a number: all of it read by std::strtod, as the
// report has always read a number attribute ("nan" and "inf" are numbers); nullopt for "".
std::optional<double> number_of_text(const std::string& text);

// ... as a whole number of type T: an integer, or a number without a fraction ("4.0", "1e+06":
// what an older file may have stored as a string) within T's range.
template <typename T>
std::optional<T> whole_of_text(const std::string& text) {
  T whole{};
  const char* end = text.data() + text.size();
  const auto [at, error] = std::from_chars(text.data(), end, whole);
  if (error == std::errc() && at == end) return whole;
  const auto number = number_of_text(text);
  const double above = std::ldexp(1.0, std::numeric_limits<T>::digits);
  const double lowest = std::is_signed_v<T> ? -above : 0.0;
  if (!number || !std::isfinite(*number) || *number != std::trunc(*number) || *number < lowest ||
      *number >= above)
    return std::nullopt;
  return static_cast<T>(*number);
}

template <typename T>
std::optional<T> CaseData::get(const schema::Attr<T>& attr) const {
  const auto it = params.find(std::string(attr.name));
  if (it == params.end()) return std::nullopt;
  if constexpr (std::is_same_v<T, std::string>)
    return it->second;
  else if constexpr (std::is_same_v<T, double>)
    return number_of_text(it->second);
  else
    return whole_of_text<T>(it->second);
}

struct RunData {
  std::string path;
  std::int64_t schema_version = 0;
  std::string status, git_revision, command_line, config, start_time, end_time;
  std::int64_t exit_code = -1, world_size = 0, node_count = 0;
  std::map<std::string, std::vector<std::string>> environment;  // column -> one entry per rank
  std::vector<CaseData> cases;
  std::vector<std::string> skipped;  // what the campaign left out, and why (attribute skipped)
  // The environment checks run before measuring (group env_checks; empty when not run).
  struct EnvCheck {
    std::string check, status, where, detail, fix;
  };
  std::vector<EnvCheck> env_checks;
  // The scheduler's facts, key -> value in the file's order (attribute scheduler; empty: none).
  std::vector<std::pair<std::string, std::string>> scheduler;
  // A soak's duration (root attribute soak_s, SPEC "Soak"): its cases were repeated in rounds,
  // each case's repetition its round; 0 on any other run.
  double soak_s = 0;
};

// The schema versions this report reads: 2 natively, 1 through the v1 adapter.
inline constexpr std::int64_t kSchemaV1 = 1, kSchemaV2 = 2;

// Called after each case is read, in the file's order, with the run so far (environment and
// cases read until now) and the case's index in run.cases; what it keeps, it copies or takes
// from the case (a soak's rounds take their cases' watched series).
using CaseRead = std::function<void(RunData& run, std::size_t index)>;

// Throws ReadError.
RunData read_run(const std::string& path, const CaseRead& on_case = {});

}  // namespace preflight::report
