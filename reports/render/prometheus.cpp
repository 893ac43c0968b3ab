#include "render/prometheus.hpp"

#include <fmt/format.h>

#include <map>
#include <set>
#include <utility>
#include <vector>

namespace preflight::report {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

// One metric family: its HELP and TYPE once, then its samples; a sample whose labels repeat an
// earlier one's gets a `duplicate` label, so that the collector never refuses the file.
class Family {
 public:
  Family(std::string name, std::string help) : name_(std::move(name)), help_(std::move(help)) {}
  void add(Labels labels, double value) {
    std::string key;
    for (const auto& [k, v] : labels) key += k + '\x1f' + v + '\x1e';
    if (const int n = seen_[key]++; n > 0) labels.emplace_back("duplicate", std::to_string(n));
    samples_.emplace_back(std::move(labels), value);
  }
  void write(std::string& out) const {
    if (samples_.empty()) return;
    out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name_, help_, name_);
    for (const auto& [labels, value] : samples_) {
      std::string text;
      for (const auto& [k, v] : labels)
        text += fmt::format("{}{}=\"{}\"", text.empty() ? "" : ",", k, prometheus_label_value(v));
      out += fmt::format("{}{}{}{} {}\n", name_, text.empty() ? "" : "{", text,
                         text.empty() ? "" : "}", prometheus_sample_value(value));
    }
  }

 private:
  std::string name_, help_;
  std::map<std::string, int> seen_;
  std::vector<std::pair<Labels, double>> samples_;
};

const char* verdict_text(CheckVerdict v) {
  return name_of(v);
}

}  // namespace

std::string render_prometheus(const Report& report) {
  Family exit_code("preflight_report_exit_code",
                   "The report's exit code: 0 pass, 1 a check failed or a size got slower, 3 "
                   "inconclusive (docs/report.md).");
  exit_code.add({}, report.exit_code());

  Family checks("preflight_check",
                "One acceptance check of a run; the verdict label says pass, fail or "
                "inconclusive; value is the measured figure (NaN where the check has none).");
  for (const auto& c : report.checks)
    checks.add({{"run", c.run_label},
                {"rule", c.rule},
                {"case", c.case_name},
                {"size", c.size},
                {"metric", c.metric},
                {"unit", c.unit},
                {"verdict", verdict_text(c.verdict)}},
               c.value);

  Family env("preflight_env_check",
             "One environment check run before measuring (docs/environment-checks.md); the "
             "status label says pass, warn, fail or skipped; value 1.");
  Family slow("preflight_slow_node_ratio",
              "A node or rank the report names as slow or late: its time against its peers' "
              "typical time.");
  Family suspects("preflight_suspect",
                  "A host, a link, the network of every host, or a rank's device (labels rank "
                  "and device: the GPU's UUID, empty for a CPU), that a finding names for an "
                  "operator to act on (the JSON verdict's suspects), its kind as named there; "
                  "value 1.");
  for (const auto& f : report.findings)
    for (const auto& s : f.suspects) {
      std::string hosts;
      for (const auto& h : s.hosts) hosts += (hosts.empty() ? "" : " ") + h;
      Labels labels{{"run", f.run_label}, {"kind", s.kind}, {"hosts", hosts}};
      if (s.kind == kDeviceSuspect) {
        labels.emplace_back("rank", std::to_string(s.rank));
        labels.emplace_back("device", s.device);
      }
      if (!s.pattern.empty()) {  // a soak's
        labels.emplace_back("remediation", std::string(schema::name_of(s.remediation)));
        labels.emplace_back("pattern", s.pattern);
      }
      suspects.add(std::move(labels), 1);
    }
  Family soak_rounds("preflight_soak_rounds",
                     "A soak's rounds (its campaign's cases repeated), each judged alone.");
  Family soak_verdict("preflight_soak_node_verdict",
                      "A soak's verdict on each node: the remediation label says ok, monitor, "
                      "reset, reboot or isolate; value its severity, 0 (ok) to 4 (isolate).");
  Family soak_drift("preflight_soak_drift_per_round",
                    "A node whose speed against its peers drifted over a soak: the slope per "
                    "round as a fraction of its first rounds' level.");
  Family figures("preflight_figure",
                 "Each case's headline figure at each point (all ranks together: host is the "
                 "host of the run's rank 0), in the unit of its unit label.");
  for (const auto& run : report.runs) {
    const RunData& data = *run.run;
    for (const auto& c : data.env_checks)
      env.add({{"run", run.label}, {"check", c.check}, {"where", c.where}, {"status", c.status}},
              1);
    const auto& hosts = run.host_of_node;
    for (const auto& o : run.outliers) {
      const auto host = hosts.find(o.name);
      slow.add({{"run", run.label},
                {"host", host == hosts.end() ? o.name : host->second},
                {"kind", o.kind},
                {"name", o.name}},
               o.ratio);
    }
    if (run.soak) {
      const auto& soak = *run.soak;
      soak_rounds.add({{"run", run.label}}, static_cast<double>(soak.rounds.size()));
      for (const auto& n : soak.nodes) {
        soak_verdict.add({{"run", run.label},
                          {"node", n.node},
                          {"host", n.host},
                          {"remediation", report::soak_verdict(n.verdict)}},
                         static_cast<double>(n.verdict));
        for (auto i : n.patterns)
          if (soak.patterns[i].kind == SoakPatternKind::kDrift)
            soak_drift.add({{"run", run.label}, {"node", n.node}, {"host", n.host}},
                           soak.patterns[i].slope);
      }
    }
    const std::string& host = run.rank0_host;
    for (const auto& f : run.figures)
      figures.add({{"run", run.label},
                   {"host", host},
                   {"case", f.case_label},
                   {"point", f.point},
                   {"metric", f.metric},
                   {"unit", f.unit}},
                  f.value);
  }
  std::string out;
  for (const Family* f : {&exit_code, &checks, &env, &slow, &suspects, &soak_rounds, &soak_verdict,
                          &soak_drift, &figures})
    f->write(out);
  return out;
}

}  // namespace preflight::report
