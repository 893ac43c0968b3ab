#include "harness/sinks/textfile_sink.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <stdexcept>
#include <string_view>
#include <variant>

#include "harness/run/watchdog.hpp"
#include "preflight/common/prometheus_text.hpp"
#include "preflight/schema/item.hpp"

namespace preflight {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::string_view kKey = "soak.textfile";

// Where a metric's samples go in a Lines array.
constexpr std::size_t slot(const textfile::Metric& m) {
  return schema::index_in(textfile::kAll, m);
}

// `,name="value"` with the value escaped.
std::string label(std::string_view name, const std::string& value) {
  return fmt::format(",{}=\"{}\"", name, prometheus_label_value(value));
}

// One sample line; `labels` starts with the campaign label.
void add_sample(std::string& out, const textfile::Metric& m, const std::string& labels,
                double value) {
  out += fmt::format("{}{{{}}} {}\n", m.name, labels, prometheus_sample_value(value));
}

std::string param_text(const std::variant<std::int64_t, double, std::string>& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);
  return std::to_string(std::get<std::int64_t>(v));
}

std::string param_of(const CaseRecord& r, std::string_view name) {
  for (const auto& p : r.params)
    if (p.name == name) return param_text(p.value);
  return {};
}

// The case's declared headline figure at a point: a per-iteration metric, else a batched one.
const Metric* headline_of(const GroupResult& all) {
  for (const auto* list : {&all.metrics, &all.batched_metrics})
    for (const auto& m : *list)
      if (m.column != nullptr && m.column->headline) return &m;
  return nullptr;
}

// The point's x value: the case's x-axis column (meaning.x_axis), else the point's index.
std::string x_value(const CaseRecord& r, const PointResult& p, const GroupResult& all) {
  for (const auto& c : all.columns)
    if (!r.meaning.x_axis.empty() && c.name == r.meaning.x_axis) return param_text(c.value);
  return std::to_string(p.index);
}

// PATH.tmp, written whole and flushed to disk, then renamed over PATH.
void replace_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) throw std::runtime_error(fmt::format("{}: {}", tmp, std::strerror(errno)));
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size() &&
                       std::fflush(f) == 0 && ::fsync(fileno(f)) == 0;
  const int error = errno;
  if (std::fclose(f) != 0 || !written) {
    std::remove(tmp.c_str());
    throw std::runtime_error(fmt::format("{}: {}", tmp, std::strerror(written ? errno : error)));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int rename_error = errno;
    std::remove(tmp.c_str());
    throw std::runtime_error(fmt::format("{}: {}", path, std::strerror(rename_error)));
  }
}

}  // namespace

TextfileSink::TextfileSink(std::string path, std::string campaign, const RankContext& ctx)
    : path_(std::move(path)),
      campaign_label_(fmt::format("campaign=\"{}\"", prometheus_label_value(campaign))),
      ctx_(ctx),
      host_of_node_(static_cast<std::size_t>(ctx.node_count)) {
  for (std::size_t r = ctx.node_of_rank.size(); r-- > 0;)  // each node's first rank's host
    if (r < ctx.host_of_rank.size())
      host_of_node_[static_cast<std::size_t>(ctx.node_of_rank[r])] = ctx.host_of_rank[r];
}

void TextfileSink::case_started(const CaseHeading& heading) {
  soaked_at_start_s_ = heading.soaked_s;
  soak_s_ = heading.soak_s;
  started_ = Clock::now();
  round_ = heading.round;
  position_ = heading.total > 0 ? heading.index % heading.total : heading.index;
}

double TextfileSink::soaked_s() const {
  return soaked_at_start_s_ + std::chrono::duration<double>(Clock::now() - started_).count();
}

std::string TextfileSink::case_labels(const CaseRecord& record, std::size_t position) {
  const std::string benchmark = param_of(record, schema::harness::kBenchmark.name);
  const std::string variant = param_of(record, schema::harness::kVariant.name);
  std::string labels = campaign_label_ + label("benchmark", benchmark) + label("variant", variant) +
                       label("case", record.name);
  auto& positions = positions_of_[labels];
  positions.insert(position);
  const auto n = std::distance(positions.begin(), positions.find(position));
  return n == 0 ? labels : labels + label("duplicate", std::to_string(n));
}

TextfileSink::CaseSamples TextfileSink::samples_of(const CaseRecord& record) {
  CaseSamples s;
  const std::string labels = case_labels(record, position_);
  for (const auto& p : record.points) {
    if (p.groups.empty()) continue;
    const GroupResult& all = p.groups.front();
    const std::string point = label("point", x_value(record, p, all));
    if (const Metric* m = headline_of(all))
      add_sample(
          s.lines[slot(textfile::kHeadline)], textfile::kHeadline,
          labels + label("metric", m->name) +
              label("x_axis", record.meaning.x_axis.empty() ? "point" : record.meaning.x_axis) +
              point + label("unit", m->unit),
          m->value);
    add_sample(s.lines[slot(textfile::kTimeMedian)], textfile::kTimeMedian, labels + point,
               all.per_iteration.median);
  }
  add_sample(s.lines[slot(textfile::kWrong)], textfile::kWrong, labels,
             static_cast<double>(record.wrong_elements));
  const auto& ratios = record.node_time_ratios;
  for (std::size_t n = 0; n < ratios.size(); ++n) {
    if (std::isnan(ratios[n])) continue;
    const std::string node_labels =
        labels +
        label("node", n < ctx_.node_names.size() ? ctx_.node_names[n] : std::to_string(n)) +
        label("host", n < host_of_node_.size() ? host_of_node_[n] : std::string());
    add_sample(s.lines[slot(textfile::kNodeRatio)], textfile::kNodeRatio, node_labels, ratios[n]);
    if (ratios[n] > s.worst_ratio) {
      s.worst_ratio = ratios[n];
      s.worst_labels = node_labels;
    }
  }
  return s;
}

void TextfileSink::case_finished(const CaseRecord& record) {
  ++cases_;
  if (record.wrong_elements > 0) ++failed_;
  latest_[position_] = samples_of(record);
  write("running", false);
}

void TextfileSink::case_timed_out(const CaseRecord&, const TimeoutVerdict&) {
  // run_finished follows at once, with the timeout's status.
}

void TextfileSink::run_finished(const std::string& status, int, const std::string&) {
  write(status, true);
}

void TextfileSink::write(const std::string& status, bool finished) {
  Lines state;
  const auto now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  add_sample(state[slot(textfile::kRound)], textfile::kRound, campaign_label_,
             static_cast<double>(round_));
  add_sample(state[slot(textfile::kSoaked)], textfile::kSoaked, campaign_label_, soaked_s());
  add_sample(state[slot(textfile::kDuration)], textfile::kDuration, campaign_label_, soak_s_);
  add_sample(state[slot(textfile::kCases)], textfile::kCases, campaign_label_,
             static_cast<double>(cases_));
  add_sample(state[slot(textfile::kFailedCases)], textfile::kFailedCases, campaign_label_,
             static_cast<double>(failed_));
  add_sample(state[slot(textfile::kLastUpdate)], textfile::kLastUpdate, campaign_label_, now);
  add_sample(state[slot(textfile::kFinished)], textfile::kFinished,
             campaign_label_ + label("status", status), finished ? 1 : 0);
  const CaseSamples* worst = nullptr;
  for (const auto& [position, s] : latest_)
    if (s.worst_ratio > 0 && (worst == nullptr || s.worst_ratio > worst->worst_ratio)) worst = &s;
  if (worst != nullptr)
    add_sample(state[slot(textfile::kWorstNode)], textfile::kWorstNode, worst->worst_labels,
               worst->worst_ratio);

  std::string text;
  for (std::size_t i = 0; i < textfile::kAll.size(); ++i) {
    std::string body = state[i];
    for (const auto& [position, s] : latest_) body += s.lines[i];
    if (body.empty()) continue;
    const auto& m = textfile::kAll[i];
    text += fmt::format("# HELP {} {}\n# TYPE {} {}\n", m.name, m.help, m.name, m.type);
    text += body;
  }
  try {
    replace_file(path_, text);
  } catch (const std::exception& e) {
    // The results file is the record; a textfile that cannot be written stops no soak.
    if (!warned_)
      std::fprintf(stderr, "preflight: warning: %s: could not rewrite %s (%s); the soak goes on\n",
                   kKey.data(), path_.c_str(), e.what());
    warned_ = true;
  }
}

std::string textfile_problem(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path file(path);
  const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  const std::string fix = fmt::format(
      "set {} to a file in the directory node_exporter's --collector.textfile.directory names",
      kKey);
  if (file.extension() != ".prom")
    return fmt::format(
        "{}: '{}' does not end in .prom, and node_exporter's textfile collector reads only *.prom "
        "files; name it e.g. {}",
        kKey, path, (dir / "preflight.prom").string());
  std::error_code ec;
  if (!fs::exists(dir, ec))
    return fmt::format("{}: directory '{}' does not exist; create it, or {}", kKey, dir.string(),
                       fix);
  if (!fs::is_directory(dir, ec))
    return fmt::format("{}: '{}' is not a directory; {}", kKey, dir.string(), fix);
  if (fs::is_directory(file, ec))
    return fmt::format("{}: '{}' is a directory; expected a file name in it, e.g. {}", kKey, path,
                       (file / "preflight.prom").string());
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    return fmt::format(
        "{}: cannot write in directory '{}' ({}); give the user preflight runs as "
        "write access to it, or {}",
        kKey, dir.string(), std::strerror(errno), fix);
  ::close(fd);
  ::unlink(tmp.c_str());
  return {};
}

}  // namespace preflight
