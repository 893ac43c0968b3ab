// The metrics of a soak's Prometheus textfile (textfile_sink.hpp), declared once: the sink writes
// these and no other, and tests/soak/dashboard_test.py checks that every query of
// scripts/grafana/preflight-soak.json names only these (it reads the names from this file).
// Every sample also carries a `campaign` label: the campaign's name.
#pragma once

#include <array>
#include <string_view>

namespace preflight::textfile {

struct Metric {
  std::string_view name;
  std::string_view type;  // gauge or counter
  std::string_view help;
};

// The soak's state.
inline constexpr Metric kRound{"preflight_soak_round", "gauge",
                               "The round the latest finished case ran in, counted from 0 as the "
                               "console's soak round and the results' repetition."};
inline constexpr Metric kSoaked{
    "preflight_soak_seconds", "gauge",
    "Time soaked so far, seconds (with a resumed file's earlier time)."};
inline constexpr Metric kDuration{"preflight_soak_duration_seconds", "gauge",
                                  "The soak's duration (soak.duration or --soak), seconds."};
inline constexpr Metric kCases{"preflight_soak_cases_total", "counter", "Cases this job finished."};
inline constexpr Metric kFailedCases{"preflight_soak_failed_cases_total", "counter",
                                     "Cases this job finished with wrong elements."};
inline constexpr Metric kLastUpdate{
    "preflight_soak_last_update_timestamp_seconds", "gauge",
    "When preflight last rewrote this file, Unix time, seconds (after every finished case)."};
inline constexpr Metric kFinished{"preflight_soak_finished", "gauge",
                                  "1 once the soak ended (the status label says how), else 0."};
// Each case of the latest round (labels benchmark, variant, case).
inline constexpr Metric kHeadline{
    "preflight_soak_headline", "gauge",
    "Each case's headline figure at each point of its latest round (all ranks together), in the "
    "unit of its unit label; point is the value of the x_axis column."};
inline constexpr Metric kTimeMedian{
    "preflight_soak_time_median_seconds", "gauge",
    "Each case's median time per iteration at each point of its latest round (the slowest "
    "rank's), seconds."};
inline constexpr Metric kWrong{"preflight_soak_wrong_elements", "gauge",
                               "Wrong elements of each case in its latest round (0: all right)."};
// Each node, in the cases that compare a rank's own time with its peers' (peer_slow).
inline constexpr Metric kNodeRatio{
    "preflight_soak_node_time_ratio", "gauge",
    "A node's time against its peers' in a case's latest round: its ranks' median time over all "
    "ranks' median, at the point where it is highest (1: as its peers)."};
inline constexpr Metric kWorstNode{
    "preflight_soak_worst_node_ratio", "gauge",
    "The highest preflight_soak_node_time_ratio in this file: the node, its host and the case."};

inline constexpr std::array kAll = {kRound,       kSoaked,     kDuration,  kCases,
                                    kFailedCases, kLastUpdate, kFinished,  kHeadline,
                                    kTimeMedian,  kWrong,      kNodeRatio, kWorstNode};

}  // namespace preflight::textfile
