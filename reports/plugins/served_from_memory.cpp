// The served-from-memory plug-in (storage), serving the quality rule kQualityServedFromMemory:
// a read served from the page cache or a memory file system measures memory, not storage.
#include <fmt/format.h>

#include <cmath>

#include "analysis/report.hpp"
#include "plugins/plugins.hpp"
#include "preflight/schema/dataloader.hpp"
#include "preflight/schema/storage.hpp"

namespace preflight::report::plugins {
namespace {
constexpr double kResidentShare = 0.05;  // a read with more of its bytes cached than this
// The families that declare the rule (storage, dataloader) name the two attributes alike: read
// through storage's declarations, they are every such case's.
constexpr auto kCacheState = schema::storage::kCacheState;
constexpr auto kFsType = schema::storage::kFsType;
static_assert(kCacheState.name == schema::dataloader::kCacheState.name &&
              kFsType.name == schema::dataloader::kFsType.name);
}  // namespace

// Warm cache, a memory file system, or bytes found in the page cache before the read (or
// residency not measured). A rule that selects on cache_state judges what it selected.
std::string served_from_memory(const CaseView& v, std::size_t point, const Selection& where) {
  if (where.count(std::string(kCacheState.name))) return {};
  const auto cache = attribute_text(v.get(kCacheState)), fs = attribute_text(v.get(kFsType));
  std::string why;
  const double resident = v.number("resident_before_max", v.row(point));
  if (cache == "warm")
    why = "cache state warm: the page cache, not storage";
  else if (fs == "tmpfs" || fs == "ramfs")
    why = "file system " + fs + ": memory, not storage";
  else if (std::isnan(resident))
    why = "page-cache residency before the read was not measured";
  else if (resident > kResidentShare)
    why = fmt::format("up to {:.0f}% of a rank's bytes were in the page cache before the read",
                      resident * 100);
  return why.empty() ? why : why + ": not judged (select cache_state to judge it)";
}

void served_from_memory_findings(const RunReport& r, std::vector<Finding>& out) {
  std::vector<std::string> warm;
  for (const auto& c : r.run->cases) {
    const CaseView v(c);
    bool asks = false;
    for (const auto& rule : c.meaning.quality)
      asks = asks || rule == schema::kQualityServedFromMemory;
    if (!asks) continue;
    const auto cache = attribute_text(v.get(kCacheState)), fs = attribute_text(v.get(kFsType));
    if (cache == "warm" || fs == "tmpfs")
      warm.push_back(fmt::format("case {} {} (cache state {}, file system {})", c.group_name,
                                 c.name, cache, fs));
    else if (c.stats.count("resident_before_max"))
      for (std::size_t p = 0; p < v.points(); ++p) {
        const double resident = v.number("resident_before_max", v.row(p));
        if (resident > kResidentShare)
          warm.push_back(
              fmt::format("case {} {} at {}: up to {:.0f}% of a rank's bytes were in "
                          "the page cache before the read",
                          c.group_name, c.name, v.point_label(p), resident * 100));
      }
  }
  if (!warm.empty())
    out.push_back({Stage::kMeasurement, r.label,
                   "reads served from memory: these figures measure the page cache, not storage",
                   warm,
                   "Use cache: direct, evicted or other-node, on the file system under test (not "
                   "tmpfs); see docs/storage.md.",
                   1, false});
}

}  // namespace preflight::report::plugins
