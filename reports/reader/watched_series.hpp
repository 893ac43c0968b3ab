// The series a case declares a watch on (schema::Watch): read point by point, each rank's
// readings kept over the whole case, then summarised as the rule needs (reader's part only:
// analysis/device_watch.hpp judges them).
#pragma once

#include <hdf5.h>

#include <map>
#include <string>
#include <vector>

#include "reader/results_reader.hpp"

namespace preflight::report {

// Each watched series' readings (and its reference's), per rank, over the points read so far.
struct WatchedReadings {
  std::map<std::string, WatchedSeries> declared;  // summaries still empty
  // watched series -> rank -> its readings, and those of the series it is watched against
  std::map<std::string, std::vector<std::vector<double>>> rows, reference_rows;
};

// Adds the watched series of one point (points/<P>) to `readings`; `where` names file and case
// for an unknown rule. Throws ReadError.
void read_watched_series(hid_t point, std::size_t ranks, WatchedReadings& readings,
                         const std::string& where);

// The case's summaries (CaseData::watched) from what read_watched_series gathered.
std::map<std::string, WatchedSeries> summarise(WatchedReadings&& readings, std::size_t ranks);

// A case written as summaries (SPEC.md "Summary points"): its watched series as stored, under
// cases/<C>/watched/; empty when it has none. Throws ReadError.
std::map<std::string, WatchedSeries> read_watched_summaries(hid_t case_group, std::size_t ranks,
                                                            const std::string& where);

}  // namespace preflight::report
