// preflight-report: turns results files into reports and verdicts. Links HDF5, not MPI: runs
// anywhere.
#include <fmt/format.h>
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <set>
#include <system_error>

#include "analysis/report.hpp"
#include "analysis/site_reference.hpp"
#include "huge_page_heap.hpp"
#include "preflight/common/stats.hpp"
#include "preflight/schema/h5.hpp"
#include "render/html.hpp"
#include "render/json.hpp"
#include "render/junit.hpp"
#include "render/markdown.hpp"
#include "render/prometheus.hpp"
#include "render/reference_yaml.hpp"
#include "render/terminal.hpp"

namespace {

namespace fs = std::filesystem;
using namespace preflight::report;

// The report's exit codes (docs/report.md): 0 all accepted, 1 a check failed or a run got
// slower, 2 bad input, 3 a check was inconclusive.
constexpr int kBadInput = 2;

struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Outputs {
  std::string html, markdown, json, junit, prometheus;
};

// An output must not replace an input: a slip of --html results.h5 would lose the results.
void check_outputs(const Outputs& o, const std::vector<std::string>& inputs) {
  std::set<fs::path> in;
  for (const auto& i : inputs)
    if (fs::exists(i)) in.insert(fs::weakly_canonical(fs::absolute(i)));
  const std::pair<const char*, const std::string*> all[] = {{"--html", &o.html},
                                                            {"--md", &o.markdown},
                                                            {"--json", &o.json},
                                                            {"--junit", &o.junit},
                                                            {"--prometheus", &o.prometheus}};
  std::set<fs::path> seen;
  for (const auto& [flag, path] : all) {
    if (path->empty()) continue;
    const auto canonical = fs::weakly_canonical(fs::absolute(*path));
    const bool same_file = std::any_of(in.begin(), in.end(), [&](const fs::path& i) {
      std::error_code ec;
      return fs::equivalent(i, canonical, ec);  // hard links too
    });
    if (in.count(canonical) || same_file)
      throw BadInput(fmt::format("{} {}: that is an input file; give another path", flag, *path));
    if (!seen.insert(canonical).second)
      throw BadInput(fmt::format("{} {}: another output goes there too", flag, *path));
    const auto dir = canonical.parent_path();
    if (!fs::is_directory(dir))
      throw BadInput(
          fmt::format("{} {}: the directory {} does not exist", flag, *path, dir.string()));
    if (fs::is_directory(canonical))
      throw BadInput(fmt::format("{} {}: that is a directory; give a file name", flag, *path));
  }
}

// Written whole or not at all: a fresh temporary file (mkstemp) in the same directory, synced,
// then renamed over the target.
void write_file(const std::string& path, const std::string& text) {
  const auto dir = fs::absolute(path).parent_path();
  std::string temp = (dir / ".preflight-report-XXXXXX").string();
  const int fd = mkstemp(temp.data());
  if (fd < 0)
    throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  std::size_t written = 0;
  while (written < text.size()) {
    const auto n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  const bool ok = written == text.size() && fchmod(fd, 0644) == 0 && fsync(fd) == 0;
  const int saved = errno;
  close(fd);
  if (!ok || std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    throw std::runtime_error(
        fmt::format("cannot write {}: {}", path, std::strerror(ok ? errno : saved)));
  }
}

std::vector<std::string> labels_for(const std::vector<std::string>& files,
                                    const std::vector<std::string>& given) {
  if (!given.empty() && given.size() != files.size())
    throw BadInput(fmt::format("--label: {} label(s) for {} file(s); give one per file, in order",
                               given.size(), files.size()));
  std::vector<std::string> labels = given;
  if (labels.empty())
    for (const auto& f : files) labels.push_back(fs::path(f).stem().string());
  std::set<std::string> unique(labels.begin(), labels.end());
  if (unique.size() != labels.size())
    throw BadInput("two files have the same label; name them with --label A --label B ...");
  return labels;
}

}  // namespace

// --make-reference: the envelope of one trusted run (analysis/site_reference.hpp), written whole;
// exit 0, or 2 with the reason.
int write_site_reference(const std::vector<std::string>& files,
                         const std::vector<std::string>& baselines, const std::string& out) {
  try {
    if (files.size() != 1 || !baselines.empty())
      throw BadInput("--make-reference: give exactly one results file, the run you trust");
    std::error_code ec;
    if (fs::equivalent(out, files.front(), ec))
      throw BadInput(fmt::format("--make-reference {}: that is the input file", out));
    if (fs::is_directory(out) || !fs::is_directory(fs::absolute(out).parent_path()))
      throw BadInput(fmt::format("--make-reference {}: give a file in an existing directory", out));
    const auto run = read_run(files.front());
    EnvelopeText e;
    e.name = fs::path(out).stem().string();
    e.title = fmt::format("what {} measured", run.path);
    e.made_from = fmt::format("{} ({}, revision {})", run.path, run.start_time, run.git_revision);
    e.match = site_match(run);
    e.figures = site_figures(run);
    if (e.figures.empty())
      throw BadInput(
          fmt::format("--make-reference: {} has no figure to make a reference of", run.path));
    write_file(out, render_reference_yaml(e));
    fmt::print("wrote {}: reference '{}', {} figures from {}\n", out, e.name, e.figures.size(),
               run.path);
    return 0;
  } catch (const ReadError& e) {
    fmt::print(stderr, "preflight-report: {}\n", e.what());
  } catch (const std::exception& e) {
    fmt::print(stderr, "preflight-report: {}\n", e.what());
  }
  return kBadInput;
}

// In builds that count work (PREFLIGHT_COUNT_WORK, the ci preset) the elements ordered, appended
// to the file PREFLIGHT_WORK_COUNT_FILE names: how tests/report/cost_linear_test.sh checks that
// the report's cost grows linearly with ranks without timing it.
void write_work_count() {
  const char* path = std::getenv("PREFLIGHT_WORK_COUNT_FILE");
  if (path == nullptr || !preflight::work_counted()) return;
  if (std::FILE* f = std::fopen(path, "a")) {
    fmt::print(f, "ordered_elements {}\n", preflight::ordered_elements_counted());
    std::fclose(f);
  }
}

int main(int argc, char** argv) {
  restart_with_huge_page_heap(argv);
  // Keep freed memory for the next matrix rather than handing it back and faulting it in again:
  // the reader takes a matrix per case and size, and HDF5 a buffer per chunk (at 65,536 ranks
  // page faults took a tenth of the report's time).
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  preflight::h5::silence_library_errors();
  CLI::App app{"preflight-report: reports, verdicts and comparisons from preflight results files"};
  std::vector<std::string> files, given_labels;
  std::vector<std::string> baseline_paths;
  std::string rules_path, prices_path;
  Outputs outputs;
  ReportInputs inputs;
  bool no_colour = false;
  app.add_option("files", files, "Results files written by preflight")->required();
  app.add_option("--baseline", baseline_paths,
                 "Compare each file with this earlier run (regression); give it again for each "
                 "run of a history of known-good runs, whose spread is then the noise a change "
                 "must exceed");
  app.add_option("--rules", rules_path,
                 "Acceptance rules (YAML), e.g. configs/rules/acceptance.yaml");
  app.add_option("--prices", prices_path,
                 "Instance price catalogue (YAML), e.g. configs/instances.yaml: compares the files "
                 "as instance types");
  app.add_option("--label", given_labels,
                 "A label per file, in order (instance types: their names in --prices); default: "
                 "the file name without .h5");
  app.add_option("--alpha", inputs.regression.alpha, "Significance level of comparisons (0.01)")
      ->check(CLI::Range(1e-9, 0.5));
  app.add_option("--min-change", inputs.regression.min_change,
                 "Smallest relative change flagged, e.g. 0.05 for 5% (0.05)")
      ->check(CLI::Range(0.0, 10.0));
  app.add_option("--html", outputs.html,
                 "Write one self-contained HTML report here (charts need gnuplot)");
  app.add_option("--md", outputs.markdown, "Write the Markdown summary here");
  app.add_option("--json", outputs.json, "Write the JSON verdict here");
  app.add_option("--junit", outputs.junit, "Write JUnit XML here, one test case per check");
  app.add_option("--prometheus", outputs.prometheus,
                 "Write the verdict, every check and the headline figures here in Prometheus' "
                 "text format (for node_exporter's textfile collector: name it *.prom)");
  std::string slow_nodes = "fail";
  app.add_option("--slow-nodes", slow_nodes,
                 "A named slow node or rank: fail (the check 'no slow nodes or ranks' fails, exit "
                 "1) or warn (listed only) (fail)")
      ->check(CLI::IsMember({"fail", "warn"}));
  app.add_option("--soak-isolate-episodes", inputs.soak.isolate_episodes,
                 "Soak: a node, host, link or device seen in this many episodes (runs of rounds) "
                 "gets its remedy (isolate, or what its telemetry declares); in fewer, monitor (2)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  app.add_option("--soak-min-drift", inputs.soak.min_drift,
                 "Soak: the least slow-down over the soak called drift, a fraction of a node's "
                 "first rounds' level, e.g. 0.05 for 5% (0.05)")
      ->check(CLI::Range(1e-6, 100.0));
  app.add_option("--soak-isolate-drift", inputs.soak.isolate_drift,
                 "Soak: drift of this much over the soak calls for isolation; less, monitor "
                 "(0.15)")
      ->check(CLI::Range(1e-6, 100.0));
  app.add_option("--soak-alpha", inputs.soak.alpha,
                 "Soak: significance of a node's drift and of a thing named beyond chance, divided "
                 "among the things of its kind (0.01)")
      ->check(CLI::Range(1e-9, 0.5));
  app.add_option("--soak-frequent-share", inputs.soak.frequent_share,
                 "Soak: named in this share of the rounds or more, a thing named beyond chance "
                 "is a pattern without a spell of consecutive rounds (0.1)")
      ->check(CLI::Range(1e-6, 1.0));
  std::string reference, references_dir, make_reference;
  app.add_option("--reference", reference,
                 "Judge every run against this reference envelope: a platform's name (e.g. "
                 "h200-sxm), a file (e.g. one --make-reference wrote), or none (peers only); "
                 "default: the envelope whose match holds on the run's recorded environment");
  app.add_option("--references", references_dir,
                 "Where the platforms' envelopes are (default: the shipped configs/references)");
  app.add_option("--make-reference", make_reference,
                 "Write a reference envelope from this one run, which you trust (typical values "
                 "and floors from its figures), to this file, and stop");
  app.add_flag("--no-color", no_colour, "No colour on the terminal");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "preflight-report: {}\nRun 'preflight-report --help' for the options.\n",
               e.what());
    return kBadInput;
  }
  inputs.outliers.slow_fails = slow_nodes == "fail";
  if (!make_reference.empty()) return write_site_reference(files, baseline_paths, make_reference);
  // Everything is read and checked before anything is printed or written: one bad input stops
  // the report with its reason, and no half-written output.
  std::vector<RunData> runs;
  std::vector<SoakStream> soak_streams;  // one per file: its soak judged as it is read
  std::vector<RunData> baselines;
  Rules rules;
  Catalogue catalogue;
  std::vector<Reference> references;
  Reference given_reference;
  Report report;
  try {
    auto all_inputs = files;
    all_inputs.insert(all_inputs.end(), baseline_paths.begin(), baseline_paths.end());
    for (const auto* path : {&rules_path, &prices_path})
      if (!path->empty()) all_inputs.push_back(*path);
    check_outputs(outputs, all_inputs);
    inputs.labels = labels_for(files, given_labels);
    if (references_dir.empty())
      references_dir = default_references_dir(argv[0]);
    else if (!fs::is_directory(references_dir))
      throw BadInput(fmt::format("--references {}: no such directory", references_dir));
    references = read_references(references_dir);
    inputs.references = &references;
    inputs.no_reference = reference == "none";
    if (!reference.empty() && !inputs.no_reference) {
      given_reference = find_reference(references, reference);
      inputs.given_reference = &given_reference;
    }
    // Each soak judged round by round as its file is read (the reader's thread reads, workers
    // judge): a day's soak at 1,000 nodes is thousands of rounds.
    std::uint64_t input_bytes = 0;
    for (const auto& path : files) {
      std::error_code ignored;
      const auto size = fs::file_size(path, ignored);
      if (!ignored) input_bytes += size;
    }
    const HeapPrefault prefault(input_bytes);  // while the files are read and judged
    soak_streams.reserve(files.size());
    for (std::size_t i = 0; i < files.size(); ++i) {
      auto& stream = soak_streams.emplace_back(inputs.labels[i], inputs.soak, inputs.outliers);
      runs.push_back(read_run(
          files[i], [&stream](RunData& run, std::size_t index) { stream.add(run, index); }));
      // Rounds out of order: the stream took watched series it cannot judge as read.
      if (stream.read_again()) {
        runs.back() = RunData{};  // one copy of the run at a time
        runs.back() = read_run(files[i]);
      }
    }
    inputs.runs = &runs;
    inputs.soak_streams = &soak_streams;
    baselines.reserve(baseline_paths.size());
    for (const auto& path : baseline_paths) {
      try {
        baselines.push_back(read_run(path));
      } catch (const ReadError& e) {
        throw BadInput(fmt::format("--baseline: {}", e.what()));
      }
    }
    for (const auto& b : baselines) inputs.baselines.push_back(&b);
    if (!rules_path.empty()) {
      rules = read_rules(rules_path);
      inputs.rules = &rules;
    }
    if (!prices_path.empty()) {
      if (files.size() < 2) throw BadInput("--prices compares instances: give two or more files");
      catalogue = read_catalogue(prices_path);
      inputs.catalogue = &catalogue;
    }
    report = build_report(inputs);
  } catch (const ReadError& e) {
    fmt::print(stderr, "preflight-report: {}\n", e.what());
    return kBadInput;
  } catch (const RulesError& e) {
    fmt::print(stderr, "preflight-report: --rules: {}\n", e.what());
    return kBadInput;
  } catch (const CatalogueError& e) {
    fmt::print(stderr, "preflight-report: --prices: {}\n", e.what());
    return kBadInput;
  } catch (const ReferenceError& e) {
    fmt::print(stderr, "preflight-report: reference envelope: {}\n", e.what());
    return kBadInput;
  } catch (const BadInput& e) {
    fmt::print(stderr, "preflight-report: {}\n", e.what());
    return kBadInput;
  } catch (const std::exception& e) {  // anything else an input made us trip on
    fmt::print(stderr, "preflight-report: cannot use the input: {}\n", e.what());
    return kBadInput;
  }
  // Each file rendered and written by its own thread while the terminal's report is printed
  // (the renderers only read the report): a day's soak's terminal, JSON and HTML took 5 s one after
  // the other. Every file is attempted; the first failure, in the order below, is the one reported.
  std::vector<std::future<void>> writing;
  const auto write = [&](const std::string& path, auto render) {
    if (path.empty()) return;
    const auto job = [&report, &path, render] { write_file(path, render(report)); };
    try {
      writing.push_back(std::async(std::launch::async, job));
    } catch (const std::system_error&) {  // no thread to be had: written when its turn comes
      writing.push_back(std::async(std::launch::deferred, job));
    }
  };
  write(outputs.html, [](const Report& r) { return render_html(r); });
  write(outputs.markdown, [](const Report& r) { return render_markdown(r); });
  write(outputs.json, [](const Report& r) { return render_json(r); });
  write(outputs.junit, [](const Report& r) { return render_junit(r); });
  write(outputs.prometheus, [](const Report& r) { return render_prometheus(r); });
  print_report(stdout, report, !no_colour && isatty(fileno(stdout)) != 0);
  std::string failed;
  for (auto& w : writing) {
    try {
      w.get();
    } catch (const std::exception& e) {
      if (failed.empty()) failed = e.what();
    }
  }
  if (!failed.empty()) {
    fmt::print(stderr, "preflight-report: {}\n", failed);
    return kBadInput;
  }
  write_work_count();
  return report.exit_code();
}
