#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>
#include <string>

#include "analysis/report.hpp"
#include "reader/v1_adapter.hpp"
#include "render/charts.hpp"
#include "render/html.hpp"

namespace preflight::report {
namespace {

const char* kEvilHost = "<script>alert(1)</script>";

bool gnuplot_installed() {
  return std::system("gnuplot --version >/dev/null 2>&1") == 0;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

CaseData comm_case(int index, const std::string& topology, double scale) {
  CaseData c;
  c.index = index;
  c.group_name = "00000" + std::to_string(index);
  c.family = "comm";
  c.backend = "mpi";
  c.status = "ok";
  c.name = "allreduce float32 sum out-of-place " + topology + " 4 ranks & \"quoted\"";
  c.params = {{"collective", "allreduce"},
              {"dtype", "float32"},
              {"redop", "sum"},
              {"placement", "out-of-place"},
              {"topology", topology},
              {"layout", topology + " 4 ranks & \"quoted\""}};
  const double sizes[] = {8, 1024, 65536, 1048576, 16777216};
  auto& size = c.stats["size_bytes"];
  size.unit = "B";
  auto& group = c.stats["group"];
  auto& busbw = c.stats["busbw"];
  busbw.unit = "GB/s";
  busbw.better = "higher";
  for (double s : sizes) {
    // The all-groups row, then a per-group row that must not be drawn.
    size.numbers.insert(size.numbers.end(), {s, s});
    group.numbers.insert(group.numbers.end(), {-1, 0});
    busbw.numbers.insert(busbw.numbers.end(), {scale * s / (s + 65536.0), 1e6});
  }
  busbw.numbers[2] = std::numeric_limits<double>::quiet_NaN();  // a NaN point is skipped
  return c;
}

RunData fake_run() {
  RunData run;
  run.path = "/results/run-a&b.h5";
  run.schema_version = 1;
  run.status = "failed";
  run.git_revision = "abc1234";
  run.command_line = "preflight comm --op allreduce --note '<b>bold</b>'";
  run.config = "comm:\n  sizes: [8, 1K]\n";
  run.start_time = "2026-11-30T01:00:00Z";
  run.world_size = 4;
  run.node_count = 2;
  run.environment["host"] = {kEvilHost, kEvilHost, "node-b", "node-b"};
  run.cases.push_back(comm_case(0, "world", 20));
  run.cases.push_back(comm_case(1, "rail", 12));
  for (auto& c : run.cases) declare_v1(c, run.node_count);
  return run;
}

ScalingSeries series(const std::string& family, const std::string& subject,
                     const std::string& topology, const std::string& band,
                     const std::string& metric, double peak) {
  ScalingSeries s;
  s.run_label = "run-a";
  s.family = family;
  s.aggregate = family == "storage";
  s.subject = subject;
  s.topology = topology;
  s.band = band;
  s.metric = metric;
  s.unit = "GB/s";
  s.reference_nodes = 2;
  const double steps[] = {1, 2, 4, 8};
  for (double n : steps) {
    ScalingPoint p;
    p.nodes = n;
    p.ranks = n * 4;
    // Bus bandwidth falls a little per node added; storage's aggregate grows.
    const auto value = [&](double k) {
      return (family == "storage" ? k * peak : peak) / (1 + 0.1 * k);
    };
    p.value = value(n);
    p.efficiency = n < 2 ? std::numeric_limits<double>::quiet_NaN() : p.value / value(2);
    p.cases = {"000000"};
    s.points.push_back(p);
  }
  return s;
}

struct Fixture {
  RunData run = fake_run(), baseline = fake_run();
  Report report;

  Fixture() {
    baseline.path = "/results/before.h5";
    RunReport r;
    r.run = &run;
    r.label = "run-a";
    r.outliers.push_back({"node", kEvilHost, {0, 1}, 1.4, 7.5, 12});
    r.hosts = {kEvilHost, "node-b"};  // as build_report reads them from run.environment
    report.runs.push_back(r);

    report.scaling.push_back(
        series("comm", "allreduce float32 sum", "inter", "large", "busbw", 10));
    report.scaling.push_back(series("comm", "allgather float32", "inter", "large", "busbw", 7));
    report.scaling.push_back(
        series("storage", "storage psync seq direct", "nodes", "", "read_bw", 3));

    AlphaBetaFit fit;
    fit.run_label = "run-a";
    fit.subject = "allreduce float32 sum";
    fit.collective = "allreduce";
    fit.topology = "world";
    fit.alpha_s = 4.2e-6;
    fit.beta_s_per_byte = 1.0 / 12e9;
    fit.ranks_per_node = 2;
    fit.points = 10;
    fit.median_rel_error = 0.07;
    fit.model = "ring: 2(n-1) steps of alpha + 2(n-1)/n S beta";
    fit.predictions.push_back({64, 128, 1 << 30, 0.19, std::nan("")});
    report.fits.push_back(fit);

    Finding slow;
    slow.stage = Stage::kCommunication;
    slow.run_label = "run-a";
    slow.title = std::string("inter-node busbw low on ") + kEvilHost;
    slow.evidence = {"busbw 3.1 GB/s at 16 MiB (000001 rail & co)"};
    slow.next_check = "ibstat on every node";
    report.findings.push_back(slow);
    Finding noisy;
    noisy.stage = Stage::kMeasurement;
    noisy.title = "timings too noisy to judge";
    noisy.evidence = {"cv 40% at 8 B"};
    noisy.next_check = "rerun with --min-iters 50";
    noisy.trustworthy = false;
    report.findings.push_back(noisy);

    const CheckVerdict verdicts[] = {CheckVerdict::kPass, CheckVerdict::kFail,
                                     CheckVerdict::kInconclusive};
    for (auto v : verdicts) {
      Check c;
      c.rule = "busbw-large";
      c.run_label = "run-a";
      c.case_name = run.cases[0].name;
      c.size = "16777216";
      c.metric = "busbw";
      c.unit = "GB/s";
      c.better = "higher";
      c.value = 11.5;
      c.ci_low = 11;
      c.ci_high = 12;
      c.expected = 12;
      c.threshold = 10.8;
      c.samples = 40;
      c.verdict = v;
      c.reason = "CI within <threshold> & above";
      report.checks.push_back(c);
    }

    RegressionSection reg;
    reg.baselines = {&baseline};
    reg.current = &run;
    reg.result.environment.push_back({"host of rank 0", "node-a", kEvilHost});
    PointComparison p;
    p.case_name = run.cases[0].name;
    p.size = "1048576";
    p.test.baseline = 1e-3;
    p.test.current = 1.3e-3;
    p.test.change = 0.3;
    p.test.p_value = 1e-6;
    p.test.baseline_n = p.test.current_n = 3;
    p.verdict = Verdict::kSlower;
    reg.result.points.push_back(p);
    p.verdict = Verdict::kSame;
    reg.result.points.push_back(p);
    report.regressions.push_back(reg);

    InstanceComparison cmp;
    cmp.currency = "USD";
    cmp.labels = {"p5.48xlarge", "a3-<mega>"};
    cmp.prices = {98.3, 88.2};
    InstanceRow row;
    row.subject = "allreduce 16 MiB";
    row.metric = "busbw";
    row.unit = "GB/s";
    row.cells = {{100, 100 / 98.3, 0.001}, {90, 90 / 88.2, 1}};
    row.winner = 1;
    row.clear = true;
    cmp.rows.push_back(row);
    cmp.wins = {0, 1};
    report.instances = cmp;
  }
};

TEST(EscapeHtml, EscapesTheFiveCharacters) {
  EXPECT_EQ(escape_html("a & b < c > d \" e ' f"), "a &amp; b &lt; c &gt; d &quot; e &#39; f");
  EXPECT_EQ(escape_html(kEvilHost), "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(escape_html("&amp;"), "&amp;amp;");
  EXPECT_EQ(escape_html(""), "");
  EXPECT_EQ(escape_html("plain µs text"), "plain µs text");
}

TEST(ChartText, KeepsOnlyInertCharacters) {
  EXPECT_EQ(sanitize_chart_text("allreduce [rail] 1/2: 90%"), "allreduce [rail] 1/2: 90%");
  const std::string out =
      sanitize_chart_text(R"(a"; system("touch x"); `id` 'q' @m $D {x}^_\n&<>)");
  for (char c : std::string("\"'`@$\\{}^&<>\n")) EXPECT_EQ(out.find(c), std::string::npos) << c;
  EXPECT_EQ(sanitize_chart_text("  many    spaces  "), "many spaces");
}

TEST(Chart, MaliciousLabelsRunNothing) {
  if (!gnuplot_installed()) GTEST_SKIP() << "gnuplot not installed";
  const auto dir =
      std::filesystem::temp_directory_path() / ("preflight-chart-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string marker = (dir / "pwned").string();
  const std::string payloads[] = {
      "\"; system(\"touch " + marker + "\"); \"",
      "'; system('touch " + marker + "'); '",
      "`touch " + marker + "`",
      "x\nsystem(\"touch " + marker + "\")\n",
      "@evil ! touch " + marker,
  };
  for (const auto& payload : payloads) {
    Chart c;
    c.title = payload;
    c.x_label = payload;
    c.y_label = payload;
    c.series.push_back({payload, {1, 2, 3}, {1, 4, 9}});
    const auto r = draw_chart(c, "gnuplot");
    EXPECT_NE(r.svg.find("<svg"), std::string::npos) << r.note;
    EXPECT_FALSE(std::filesystem::exists(marker)) << payload;
  }
  std::filesystem::remove_all(dir);
}

TEST(Chart, InlineSvgWithPrefixedIds) {
  if (!gnuplot_installed()) GTEST_SKIP() << "gnuplot not installed";
  Chart c;
  c.title = "t";
  c.id = "c7";
  c.log_x = c.log_y = c.x_bytes = true;
  c.series.push_back({"a", {8, 1024, 1 << 20}, {0.01, 1, 10}});
  c.series.push_back({"one point", {4096}, {2}});
  c.series.push_back({"all NaN", {1, 2}, {std::nan(""), std::nan("")}});
  c.series.push_back({"non-positive on log axes", {0, -1}, {1, 2}});
  const auto r = draw_chart(c, "gnuplot");
  ASSERT_EQ(r.svg.rfind("<svg", 0), 0u) << r.note;  // no XML prolog or doctype
  EXPECT_EQ(r.svg.substr(r.svg.size() - 6), "</svg>");
  EXPECT_EQ(r.svg.find("<?xml"), std::string::npos);
  EXPECT_EQ(r.svg.find("id='gp"), std::string::npos);
  EXPECT_NE(r.svg.find("id='c7-gpPt"), std::string::npos);
  EXPECT_NE(r.svg.find("1 MiB"), std::string::npos);  // byte ticks
  EXPECT_NE(r.svg.find("one point"), std::string::npos);
  EXPECT_EQ(r.svg.find("all NaN"), std::string::npos);  // series without points skipped
  EXPECT_EQ(r.svg.find("non-positive"), std::string::npos);
}

TEST(Chart, NotesInsteadOfFailing) {
  Chart c;
  c.series.push_back({"a", {1, 2}, {1, 2}});
  auto r = draw_chart(c, "/nonexistent/gnuplot");
  EXPECT_TRUE(r.svg.empty());
  EXPECT_EQ(r.note, "gnuplot not found: install gnuplot-nox to see charts");
  r = draw_chart(c, "");
  EXPECT_TRUE(r.svg.empty());
  EXPECT_FALSE(r.note.empty());
  Chart empty;
  empty.series.push_back({"nan", {std::nan("")}, {1}});
  r = draw_chart(empty, "gnuplot");
  EXPECT_TRUE(r.svg.empty());
  EXPECT_EQ(r.note, "no data to chart");
  r = draw_chart(c, "false");  // runs, writes nothing
  EXPECT_TRUE(r.svg.empty());
  EXPECT_NE(r.note.find("gnuplot failed"), std::string::npos) << r.note;
}

TEST(HtmlReport, SelfContainedEscapedAndComplete) {
  Fixture f;
  const std::string html = render_html(f.report, HtmlOptions{});
  if (const char* dir = std::getenv("PREFLIGHT_HTML_SAMPLE")) {  // to look at it in a browser
    std::ofstream(std::string(dir) + "/report.html") << html;
  }
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);

  // Nothing runs, nothing is fetched.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<b>bold</b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(html.find(kEvilHost), std::string::npos);
  EXPECT_NE(html.find("/results/run-a&amp;b.h5"), std::string::npos);
  EXPECT_NE(html.find("&amp; &quot;quoted&quot;"), std::string::npos);
  const std::regex external(R"((src|href|url)\s*[=(]\s*["']?\s*(https?:|//|ftp:|data:))",
                            std::regex::icase);
  EXPECT_FALSE(std::regex_search(html, external));
  // The only URLs are the SVG namespaces.
  std::string rest = html;
  for (const std::string ns :
       {"xmlns=\"http://www.w3.org/2000/svg\"", "xmlns:xlink=\"http://www.w3.org/1999/xlink\""})
    for (auto at = rest.find(ns); at != std::string::npos; at = rest.find(ns))
      rest.erase(at, ns.size());
  EXPECT_EQ(rest.find("http://"), std::string::npos);
  EXPECT_EQ(rest.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);

  // Every section, in order.
  std::size_t at = 0;
  for (const char* heading :
       {"id=\"verdict\"", "id=\"runs\"", "id=\"bottlenecks\"", "id=\"checks\"", "id=\"scaling\"",
        "Storage scaling", "id=\"bandwidth\"", "id=\"fits\"", "id=\"outliers\"",
        "id=\"regression\"", "id=\"instances\""}) {
    const auto found = html.find(heading, at);
    ASSERT_NE(found, std::string::npos) << heading;
    at = found;
  }
  // Headline: a failed check and a slower size make it FAIL.
  EXPECT_NE(html.find("v-fail\">FAIL<"), std::string::npos);
  EXPECT_NE(html.find("3 checks: 1 pass, 1 fail, 1 inconclusive"), std::string::npos);
  for (const char* v : {">pass<", ">fail<", ">inconclusive<", ">not trustworthy<", ">limit<"})
    EXPECT_NE(html.find(v), std::string::npos) << v;
  EXPECT_NE(html.find("ring: 2(n-1) steps of alpha"), std::string::npos);
  EXPECT_NE(html.find("td class=\"num winner\""), std::string::npos);
  EXPECT_NE(html.find("a3-&lt;mega&gt;"), std::string::npos);
  // Environment changes come before the changed sizes.
  EXPECT_LT(html.find("host of rank 0"), html.find(">slower<"));

  if (gnuplot_installed()) {
    // Scaling: comm busbw (one chart for the large band) and storage; bandwidth vs size: one;
    // and the first screen's copy of one of them.
    EXPECT_EQ(count(html, "<svg"), 4u);
    const auto storage = html.find("Storage scaling");
    EXPECT_NE(html.find("<svg", storage), std::string::npos);
    EXPECT_EQ(html.find("not drawn"), std::string::npos);
    // Ids differ between charts.
    EXPECT_NE(html.find("id='c1-gpPt0'"), std::string::npos);
    EXPECT_NE(html.find("id='c3-gpPt0'"), std::string::npos);
  }
}

TEST(HtmlReport, NoteWhenGnuplotIsMissing) {
  Fixture f;
  const std::string html = render_html(f.report, HtmlOptions{"/nonexistent/gnuplot"});
  EXPECT_EQ(html.find("<svg"), std::string::npos);
  EXPECT_EQ(count(html, "gnuplot not found: install gnuplot-nox to see charts"), 4u);
  EXPECT_NE(html.find("Storage scaling"), std::string::npos);
}

TEST(HtmlReport, HeadlineVerdicts) {
  Report empty;
  EXPECT_NE(render_html(empty, {""}).find("v-pass\">PASS<"), std::string::npos);
  Fixture f;
  f.report.regressions.clear();
  f.report.checks.erase(f.report.checks.begin() + 1);  // the failed one
  EXPECT_NE(render_html(f.report, {""}).find("v-inconclusive\">INCONCLUSIVE<"), std::string::npos);
  f.report.checks.pop_back();
  const auto html = render_html(f.report, {""});
  EXPECT_NE(html.find("v-pass\">PASS<"), std::string::npos);
  EXPECT_EQ(html.find("id=\"regression\""), std::string::npos);  // empty sections omitted
}

// The part of the page between two markers (the first screen: from the verdict to the runs).
std::string between(const std::string& html, const std::string& from, const std::string& to) {
  const auto begin = html.find(from);
  const auto end = html.find(to, begin);
  if (begin == std::string::npos || end == std::string::npos) return {};
  return html.substr(begin, end - begin);
}

std::string first_chart_heading(const std::string& html) {
  return between(html, "<h3 id=\"first-chart-heading\">", "</h3>");
}

TEST(HtmlFirstScreen, VerdictReasonsThenTheFirstRankedFindingsChart) {
  Fixture f;
  // The storage series measure data in, as the first-ranked (trustworthy) finding does: its
  // chart, not the first scaling chart, comes first.
  f.report.scaling[2].stage = schema::Stage::kDataIn;
  f.report.findings[0].stage = Stage::kDataIn;
  const std::string html = render_html(f.report, HtmlOptions{""});
  const std::string top = between(html, "id=\"verdict\"", "id=\"runs\"");
  ASSERT_FALSE(top.empty());
  // The verdict line with each reason's count, then the reasons, fail before inconclusive.
  EXPECT_NE(top.find("v-fail\">FAIL<"), std::string::npos);
  EXPECT_NE(top.find("fail (exit 1): 1 check failed, 1 size slower"), std::string::npos) << top;
  const auto reasons = between(top, "id=\"verdict-reasons\"", "</ul>");
  const auto failed = reasons.find("busbw-large: run-a");
  const auto inconclusive = reasons.find("v-inconclusive\">inconclusive</span>busbw-large");
  EXPECT_NE(failed, std::string::npos) << reasons;
  EXPECT_NE(inconclusive, std::string::npos) << reasons;
  EXPECT_LT(failed, inconclusive);
  EXPECT_LT(top.find("id=\"verdict-reasons\""), top.find("id=\"first-chart\""));
  EXPECT_NE(first_chart_heading(html).find("Storage scaling"), std::string::npos) << top;
  EXPECT_NE(top.find("The chart of finding 1"), std::string::npos);
  EXPECT_NE(top.find("href=\"#chart-2\""), std::string::npos);  // the storage chart's section
  EXPECT_NE(html.find("id=\"chart-2\""), std::string::npos);

  // No trustworthy finding with a chart: the first scaling chart.
  f.report.findings[0].stage = Stage::kStragglers;
  const std::string fallback = render_html(f.report, HtmlOptions{""});
  EXPECT_NE(first_chart_heading(fallback).find("comm busbw vs nodes"), std::string::npos);
  EXPECT_NE(fallback.find("The first scaling chart (no trustworthy finding has a chart)"),
            std::string::npos);
  // A finding that is not trustworthy does not choose, even of the right stage.
  f.report.findings[0].trustworthy = false;
  f.report.findings[0].stage = Stage::kDataIn;
  EXPECT_NE(first_chart_heading(render_html(f.report, HtmlOptions{""})).find("comm busbw"),
            std::string::npos);
  // No scaling ladder: the first chart against size.
  f.report.scaling.clear();
  const std::string sizes = render_html(f.report, HtmlOptions{""});
  EXPECT_NE(first_chart_heading(sizes).find("comm busbw allreduce"), std::string::npos) << sizes;
  // Nothing to chart: no first chart, the reasons still there.
  f.run.cases.clear();
  const std::string none = render_html(f.report, HtmlOptions{""});
  EXPECT_EQ(none.find("id=\"first-chart\""), std::string::npos);
  EXPECT_NE(none.find("id=\"verdict-reasons\""), std::string::npos);
}

TEST(HtmlFirstScreen, ManyReasonsFold) {
  Fixture f;
  f.report.regressions.clear();
  // Ten rules' failed checks: ten reason lines, six shown, four folded.
  const Check failed = f.report.checks[1];
  f.report.checks.clear();
  for (int i = 0; i < 10; ++i) {
    f.report.checks.push_back(failed);
    f.report.checks.back().rule = "rule-" + std::to_string(i);
  }
  const std::string html = render_html(f.report, HtmlOptions{""});
  const std::string reasons = between(html, "id=\"verdict-reasons\"", "id=\"runs\"");
  EXPECT_EQ(count(reasons, "<li>"), 11u);  // 6 + the folded line + 4 inside it
  EXPECT_NE(reasons.find("<details><summary>4 more reasons</summary>"), std::string::npos);
  EXPECT_LT(reasons.find("rule-5:"), reasons.find("<details>"));
  EXPECT_GT(reasons.find("rule-6:"), reasons.find("<details>"));
  // Nothing wrong: one line says so.
  Report empty;
  EXPECT_NE(render_html(empty, {""}).find("nothing failed, nothing was too noisy to judge"),
            std::string::npos);
}

TEST(HtmlFirstScreen, AlikeFindingsAndLongEvidenceFold) {
  Fixture f;
  f.report.findings.resize(1);
  Finding& first = f.report.findings[0];
  first.evidence.clear();
  for (int i = 0; i < 10; ++i)
    first.evidence.push_back("series " + std::to_string(i) + ": 0." + std::to_string(i) + " GB/s");
  for (int rank = 0; rank < 6; ++rank) {
    Finding slow;
    slow.stage = Stage::kStragglers;
    slow.title = "slow rank: rank " + std::to_string(rank);
    slow.evidence = {"1.5x its peers'", "over 3 sizes", "robust z 9", "host a"};  // 4: all shown
    f.report.findings.push_back(slow);
  }
  const std::string html = render_html(f.report, HtmlOptions{""});
  const std::string section = between(html, "id=\"bottlenecks\"", "id=\"checks\"");
  EXPECT_NE(section.find("<li>series 2: 0.2 GB/s</li></ul><details><summary>7 more</summary>"),
            std::string::npos)
      << section;
  EXPECT_EQ(count(section, "<details><summary>7 more</summary>"), 1u);
  EXPECT_EQ(count(section, "<li>host a</li>"), 6u);  // four lines of evidence are not folded
  // Six alike findings: three, then three more folded, numbered on from 5.
  EXPECT_NE(section.find("<summary>3 more findings like these</summary>\n<ol class=\"findings\" "
                         "start=\"5\">"),
            std::string::npos)
      << section;
  EXPECT_LT(section.find("slow rank: rank 2"), section.find("3 more findings like these"));
  EXPECT_GT(section.find("slow rank: rank 3"), section.find("3 more findings like these"));
}

TEST(Chart, ManySeriesListedBesideThePlot) {
  if (!gnuplot_installed()) GTEST_SKIP() << "gnuplot not installed";
  Chart c;
  c.id = "m";
  for (int i = 0; i < static_cast<int>(kMaxSeriesInPlotLegend); ++i)
    c.series.push_back({"series number " + std::to_string(i), {1, 2}, {1.0 + i, 2.0 + i}});
  auto r = draw_chart(c, "gnuplot");
  ASSERT_FALSE(r.svg.empty()) << r.note;
  EXPECT_TRUE(r.legend_in_plot);
  EXPECT_NE(r.svg.find("<text>series number 7</text>"), std::string::npos);
  c.series.push_back({"series number 8", {1, 2}, {9, 10}});
  c.series.push_back({"no points", {}, {}});
  r = draw_chart(c, "gnuplot");
  ASSERT_FALSE(r.svg.empty()) << r.note;
  EXPECT_FALSE(r.legend_in_plot);
  EXPECT_EQ(r.svg.find("<text>series number"), std::string::npos);  // no legend in the SVG
  ASSERT_EQ(r.legend.size(), 9u);  // the drawn series, in plot order
  EXPECT_EQ(r.legend[0].label, "series number 0");
  EXPECT_EQ(r.legend[8].label, "series number 8");
  // The ninth has the first's colour, dashed: told apart by the dash type.
  EXPECT_EQ(r.legend[8].colour, r.legend[0].colour);
  EXPECT_EQ(r.legend[0].dash, 1);
  EXPECT_EQ(r.legend[8].dash, 2);
  EXPECT_NE(r.svg.find("stroke-dasharray"), std::string::npos);
}

TEST(HtmlReport, ManySeriesLegendBesideThePlot) {
  if (!gnuplot_installed()) GTEST_SKIP() << "gnuplot not installed";
  Fixture f;
  for (int i = 0; i < 10; ++i)
    f.report.scaling.push_back(
        series("storage", "storage engine " + std::to_string(i), "nodes", "", "read_bw", 1 + i));
  const std::string html = render_html(f.report, HtmlOptions{});
  const std::string figure =
      between(html, "<figure class=\"chart legend-beside\" id=\"chart-2\">", "</figure>");
  ASSERT_FALSE(figure.empty());
  EXPECT_EQ(count(figure, "<li><span class=\"swatch\""), 11u);  // 1 + 10 storage series
  EXPECT_NE(figure.find("<span>storage engine 9 [nodes]</span>"), std::string::npos);
  // Two series: the legend stays in the plot.
  EXPECT_NE(html.find("<figure class=\"chart\" id=\"chart-1\">"), std::string::npos);
}

}  // namespace
}  // namespace preflight::report
