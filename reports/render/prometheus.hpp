// The report in Prometheus' text exposition format (version 0.0.4), for node_exporter's textfile
// collector: the verdict, every acceptance check, every environment check, the slow nodes named,
// and each case's headline figure at each point. Metric names are the report's own constants;
// every label value that comes from a results file is escaped, so that a name in a file cannot
// break the exposition or add labels of its own.
#pragma once

#include <string>

#include "analysis/report.hpp"
#include "preflight/common/prometheus_text.hpp"

namespace preflight::report {

std::string render_prometheus(const Report& report);

// Label values are escaped by common's prometheus_label_value, which the soak's textfile uses too.
using ::preflight::prometheus_label_value;

}  // namespace preflight::report
