// What a figure means (results schema v2). A family declares it, the harness writes it as
// attributes, and preflight-report reads only this: the report's generic code names no family
// and no metric. Each enum is written to the file as the name its table gives it (h5py users
// read words, not numbers), and read back through the same table; an unknown name is a read
// error, never a guess.
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <utility>

namespace preflight::schema {

// Which way is better for a figure.
enum class Direction { kNone, kHigher, kLower };
inline constexpr std::array kDirectionNames = {
    std::pair{Direction::kNone, std::string_view("none")},
    std::pair{Direction::kHigher, std::string_view("higher")},
    std::pair{Direction::kLower, std::string_view("lower")},
};

// What sort of quantity a column or counter holds.
enum class Kind { kLabel, kTime, kDataRate, kWorkRate, kCount, kFraction };
inline constexpr std::array kKindNames = {
    std::pair{Kind::kLabel, std::string_view("label")},         // a parameter, not a measure
    std::pair{Kind::kTime, std::string_view("time")},           // seconds
    std::pair{Kind::kDataRate, std::string_view("data_rate")},  // bytes per second
    std::pair{Kind::kWorkRate, std::string_view("work_rate")},  // operations, images, FLOP per s
    std::pair{Kind::kCount, std::string_view("count")},         // bytes, elements, operations
    std::pair{Kind::kFraction, std::string_view("fraction")},   // 0..1
};

// A case's stage in a training step's chain, in the order a troubleshooter walks it: whether
// the devices compute and communicate right comes before how fast. The report adds stragglers,
// hardware and measurement quality after.
enum class Stage { kCorrectness, kDataIn, kCompute, kCommunication, kCheckpoint, kStep };
inline constexpr std::array kStageNames = {
    std::pair{Stage::kCorrectness, std::string_view("correctness")},
    std::pair{Stage::kDataIn, std::string_view("data_in")},
    std::pair{Stage::kCompute, std::string_view("compute")},
    std::pair{Stage::kCommunication, std::string_view("communication")},
    std::pair{Stage::kCheckpoint, std::string_view("checkpoint")},
    std::pair{Stage::kStep, std::string_view("step")},
};
// What a person reads for each stage, same order.
inline constexpr std::array kStageLabels = {
    std::string_view("correctness"), std::string_view("data in"),
    std::string_view("compute"),     std::string_view("communication"),
    std::string_view("checkpoint"),  std::string_view("training step"),
};

// Where to look first when a stage's figures scale poorly as ranks or nodes are added, same
// order. The report prints it under a scaling finding; it is the stage's, not a family's.
inline constexpr std::array kStageScalingAdvice = {
    std::string_view("A check's throughput that falls as ranks are added is its load, not its "
                     "verdict: compare with the compute and communication stages."),
    std::string_view("Find what saturates as ranks are added: the storage servers and targets "
                     "they share (iostat, the file system's own statistics), client network "
                     "links, striping of the data set."),
    std::string_view("Find what the ranks share as they are added: memory bandwidth, power and "
                     "clocks (throttling), PCIe switches, CPU binding; compare the nodes' own "
                     "figures."),
    std::string_view("Look at the links between node groups: switch oversubscription, "
                     "rail-optimised wiring, adaptive routing; compare with the alpha-beta "
                     "predictions."),
    std::string_view("Find what saturates as writers are added: the storage servers and "
                     "targets, client network links, striping of the checkpoint directory."),
    std::string_view("Walk the chain stage by stage: the stage that scales worst holds the step "
                     "back."),
};

// How the headline figure should behave as ranks are added.
enum class Scaling { kNone, kAggregate, kPerRank };
inline constexpr std::array kScalingNames = {
    std::pair{Scaling::kNone, std::string_view("none")},            // not a scaling figure
    std::pair{Scaling::kAggregate, std::string_view("aggregate")},  // ideal: linear in ranks
    std::pair{Scaling::kPerRank, std::string_view("per_rank")},     // normalised; ideal: flat
};

// How points group when a case is summarised (scaling bands, charts).
enum class Bands { kSizeBands, kEachPoint };
inline constexpr std::array kBandsNames = {
    std::pair{Bands::kSizeBands, std::string_view("size_bands")},  // small / medium / large x
    std::pair{Bands::kEachPoint, std::string_view("each_point")},  // every x value its own series
};

// Where a metric's per-iteration values (and so its confidence interval) come from.
enum class PerIteration { kNone, kTime, kInverseTime, kCounterRate, kCounterMedian };
inline constexpr std::array kPerIterationNames = {
    std::pair{PerIteration::kNone, std::string_view("none")},  // no interval: not judged
    std::pair{PerIteration::kTime, std::string_view("time")},  // it is the iteration's time
    // fixed work per iteration: value_i = value * median_time / time_i
    std::pair{PerIteration::kInverseTime, std::string_view("inverse_time")},
    // value_i proportional to (sum over ranks of counter `source`) / slowest rank's time_i
    std::pair{PerIteration::kCounterRate, std::string_view("counter_rate")},
    // value_i = median over active ranks of counter `source` in iteration i
    std::pair{PerIteration::kCounterMedian, std::string_view("counter_median")},
};

// Measurement-quality rules a case asks the report to apply. Each name is served by a report
// plug-in (reports/plugins/); a rule no plug-in serves is reported as not checked.
inline constexpr std::string_view kQualityServedFromMemory = "served_from_memory";
// Whether a data pipeline feeds the accelerator (au against au_target); images per second are
// judged only where it does, as MLPerf Storage counts only runs that meet their AU.
inline constexpr std::string_view kQualityFeedsAccelerator = "feeds_accelerator";

// What the report watches on a series (the telemetry of the compute families): a rule each
// rank's readings must keep, declared on the series dataset, so that the report names a device
// that broke it without knowing what the series is. A series without the attribute `watch` is
// not watched (none).
enum class Watch { kNone, kZero, kPeers, kReference, kGrows, kMargin };
inline constexpr std::array kWatchNames = {
    std::pair{Watch::kNone, std::string_view("none")},
    // any reading other than 0 during the case is a finding; the value is bits watch_labels names
    std::pair{Watch::kZero, std::string_view("zero")},
    // the rank's median over the case lies within watch_tolerance (a fraction) of the median of
    // the medians of the case's active ranks (3 or more)
    std::pair{Watch::kPeers, std::string_view("peers")},
    // the rank's highest reading over the run's watched cases reaches the highest of series
    // watch_reference (its maximum) over the same cases
    std::pair{Watch::kReference, std::string_view("reference")},
    // a count that must not rise during the case: the rank's last reading is above its first (a
    // count since the driver loaded that stands still is history, one that rises is happening now)
    std::pair{Watch::kGrows, std::string_view("grows")},
    // a reading that must stay clear of a limit the device reports: the rank's highest reading
    // during the case stays more than watch_tolerance (in the series' unit) below the lowest
    // reading of series watch_reference (a temperature below the one where the hardware slows)
    std::pair{Watch::kMargin, std::string_view("margin")},
};
// What an operator does about a node or device a finding names again and again (a soak,
// docs/report.md "Soaks"), worst last: declared on every watched series (watch_remedy), so that
// the report acts on a telemetry finding without knowing the series.
enum class Remedy { kNone, kMonitor, kReset, kReboot, kIsolate };
inline constexpr std::array kRemedyNames = {
    std::pair{Remedy::kNone, std::string_view("none")},
    // watch it: no command; what it names may pass by itself
    std::pair{Remedy::kMonitor, std::string_view("monitor")},
    // reset the GPU or NIC (drain, nvidia-smi --gpu-reset): a link that trained narrower or
    // slower than its maximum retrains
    std::pair{Remedy::kReset, std::string_view("reset")},
    // reboot the host: a driver or software state (a clock held by a setting, a hung process)
    std::pair{Remedy::kReboot, std::string_view("reboot")},
    // drain the node for service: a hardware fault (wrong results, a slow or throttling part)
    std::pair{Remedy::kIsolate, std::string_view("isolate")},
};
// On a watched series dataset (points/<P>/series/<name>); listed in layout.hpp's
// kSeriesWatchAttributes.
inline constexpr std::string_view kWatchAttribute = "watch";                     // kWatchNames
inline constexpr std::string_view kWatchFindingAttribute = "watch_finding";      // words
inline constexpr std::string_view kWatchToleranceAttribute = "watch_tolerance";  // peers, margin
inline constexpr std::string_view kWatchReferenceAttribute =
    "watch_reference";                                                     // reference, margin
inline constexpr std::string_view kWatchLabelsAttribute = "watch_labels";  // zero
inline constexpr std::string_view kWatchRemedyAttribute = "watch_remedy";  // kRemedyNames

// Attributes on every stats column dataset (cases/<id>/stats/<column>) and on every counter
// and series dataset (points/<P>/counters/<name>, points/<P>/series/<name>).
inline constexpr std::string_view kDirectionAttribute = "direction";  // kDirectionNames
inline constexpr std::string_view kKindAttribute = "kind";            // kKindNames
// Stats columns only:
inline constexpr std::string_view kHeadlineAttribute = "headline";  // int 1 on exactly one column
inline constexpr std::string_view kPerIterationAttribute = "per_iteration";  // kPerIterationNames
inline constexpr std::string_view kPerIterationSourceAttribute = "per_iteration_source";  // counter
// The back-to-back twin of a time-derived metric is the column kBatchedPrefix + name.
inline constexpr std::string_view kBatchedPrefix = "batched_";

// Attributes on every case group (cases/<id>), written by the harness from the case's
// declaration. Listed with types and meaning in layout.hpp's kCaseMeaningAttributes.
inline constexpr std::string_view kStageAttribute = "stage";           // kStageNames
inline constexpr std::string_view kXAxisAttribute = "x_axis";          // a stats column name
inline constexpr std::string_view kBandsAttribute = "bands";           // kBandsNames
inline constexpr std::string_view kScalingAttribute = "scaling";       // kScalingNames
inline constexpr std::string_view kSubjectAttribute = "subject";       // constant along a series
inline constexpr std::string_view kSeriesAttribute = "series";         // which scaling curve
inline constexpr std::string_view kSpanNodesAttribute = "span_nodes";  // nodes group 0 spans
inline constexpr std::string_view kPeerSlowAttribute = "peer_slow";    // int 0/1
inline constexpr std::string_view kPeerLateAttribute = "peer_late";    // int 0/1
inline constexpr std::string_view kWorkCounterAttribute = "work_counter";  // counter or ""
inline constexpr std::string_view kQualityAttribute = "quality";  // comma-separated rule names
inline constexpr std::string_view kMinSamplesAttribute = "min_samples";  // int

// Name <-> enum through the tables above.
template <typename E, std::size_t N>
constexpr std::string_view name_of(E value,
                                   const std::array<std::pair<E, std::string_view>, N>& t) {
  for (const auto& [e, name] : t)
    if (e == value) return name;
  return {};
}
template <typename E, std::size_t N>
constexpr std::optional<E> parse(std::string_view name,
                                 const std::array<std::pair<E, std::string_view>, N>& t) {
  for (const auto& [e, n] : t)
    if (n == name) return e;
  return std::nullopt;
}

inline constexpr std::string_view name_of(Direction d) {
  return name_of(d, kDirectionNames);
}
inline constexpr std::string_view name_of(Kind k) {
  return name_of(k, kKindNames);
}
inline constexpr std::string_view name_of(Stage s) {
  return name_of(s, kStageNames);
}
inline constexpr std::string_view name_of(Remedy r) {
  return name_of(r, kRemedyNames);
}
inline constexpr std::string_view name_of(Scaling s) {
  return name_of(s, kScalingNames);
}
inline constexpr std::string_view name_of(Bands b) {
  return name_of(b, kBandsNames);
}
inline constexpr std::string_view name_of(PerIteration p) {
  return name_of(p, kPerIterationNames);
}
inline constexpr std::string_view name_of(Watch w) {
  return name_of(w, kWatchNames);
}
inline constexpr std::string_view label_of(Stage s) {
  return kStageLabels[static_cast<std::size_t>(s)];
}
inline constexpr std::string_view scaling_advice_of(Stage s) {
  return kStageScalingAdvice[static_cast<std::size_t>(s)];
}
static_assert(kStageLabels.size() == kStageNames.size() &&
              kStageScalingAdvice.size() == kStageNames.size());

}  // namespace preflight::schema
