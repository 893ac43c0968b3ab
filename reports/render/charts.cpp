#include "render/charts.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string_view>

#include "analysis/format.hpp"

extern char** environ;

namespace preflight::report {
namespace {

constexpr auto kTimeout = std::chrono::seconds(30);  // one chart; gnuplot takes milliseconds
constexpr std::size_t kMaxOutput = 16u << 20;        // an SVG larger than this is not a chart

bool safe_char(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view(" .,:;/()[]+-_%=#*|!?").find(c) != std::string_view::npos;
}

// A temporary file that is removed when it goes out of scope.
struct TempFile {
  std::string path;
  int fd = -1;
  explicit TempFile(const char* kind) {
    const char* dir = std::getenv("TMPDIR");
    path = fmt::format("{}/preflight-chart-{}-XXXXXX", dir && *dir ? dir : "/tmp", kind);
    fd = mkostemp(path.data(), O_CLOEXEC);
    if (fd < 0) path.clear();
  }
  ~TempFile() {
    if (fd >= 0) close(fd);
    if (!path.empty()) unlink(path.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
};

bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::string read_head(int fd, std::size_t limit) {
  std::string text(limit, '\0');
  const ssize_t n = pread(fd, text.data(), limit, 0);
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return text;
}

struct Kept {
  std::string label;
  std::vector<std::pair<double, double>> points;
};

std::vector<Kept> usable_series(const Chart& chart) {
  std::vector<Kept> kept;
  for (const auto& s : chart.series) {
    Kept k{sanitize_chart_text(s.label), {}};
    for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      const double x = s.x[i], y = s.y[i];
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      if ((chart.log_x && x <= 0) || (chart.log_y && y <= 0)) continue;
      k.points.emplace_back(x, y);
    }
    if (k.points.empty()) continue;
    std::sort(k.points.begin(), k.points.end());
    kept.push_back(std::move(k));
  }
  return kept;
}

// The x axis: power-of-two ticks with byte labels, or a tick at each x when there are few and
// they are whole numbers (nodes, ranks), else gnuplot's own.
std::string x_axis(const Chart& chart, const std::vector<Kept>& series) {
  std::set<double> xs;
  for (const auto& s : series)
    for (const auto& p : s.points) xs.insert(p.first);
  const double lo = *xs.begin(), hi = *xs.rbegin();
  std::string out;
  if (chart.x_bytes && chart.log_x) {
    const int lo_exp = static_cast<int>(std::floor(std::log2(lo)));
    const int hi_exp = std::max(static_cast<int>(std::ceil(std::log2(hi))), lo_exp + 1);
    // At most 9 ticks; steps that keep 1 KiB, 1 MiB, 1 GiB among them.
    int stride = 1;
    for (int s : {1, 2, 5, 10, 20, 30}) {
      stride = s;
      if ((hi_exp - lo_exp) / s <= 8) break;
    }
    // Ticks on multiples of the stride (4 B, 1 KiB, 256 KiB, ...), the range out to them.
    const auto floor_to = [](int v, int m) { return (v >= 0 ? v : v - m + 1) / m * m; };
    const int e_lo = floor_to(lo_exp, stride);
    const int e_hi = -floor_to(-hi_exp, stride);
    std::string tics;
    for (int e = e_lo; e <= e_hi; e += stride)
      tics += fmt::format("{}'{}' {:.17g}", tics.empty() ? "" : ", ",
                          binary_bytes(std::ldexp(1, e)), std::ldexp(1, e));
    out += fmt::format("set logscale x 2\nset xtics ({})\n", tics);
  } else if (chart.log_x) {
    out += "set logscale x 2\n";
  }
  // Log axes: a margin around the points, so that none sits on the border.
  if (chart.log_x)
    out += lo == hi ? fmt::format("set xrange [{:.17g}:{:.17g}]\n", lo / 2, hi * 2)
                    : fmt::format("set xrange [{:.17g}:{:.17g}]\n", lo / 1.25, hi * 1.25);
  if (chart.x_bytes && chart.log_x) return out;
  const bool whole = std::all_of(
      xs.begin(), xs.end(), [](double x) { return x == std::floor(x) && std::fabs(x) < 1e15; });
  if (whole && xs.size() <= 12) {
    std::string tics;
    for (double x : xs) tics += fmt::format("{}'{:g}' {:.17g}", tics.empty() ? "" : ", ", x, x);
    out += fmt::format("set xtics ({})\n", tics);
    if (chart.log_x) {
    } else if (lo == hi) {
      out += fmt::format("set xrange [{:.17g}:{:.17g}]\n", lo - 1, hi + 1);
    } else {
      const double pad = (hi - lo) * 0.04;
      out += fmt::format("set xrange [{:.17g}:{:.17g}]\n", lo - pad, hi + pad);
    }
  }
  return out;
}

// Eight colours told apart also with colour-blindness (Okabe-Ito, yellow swapped for brown),
// then four dash types, then four markers: 128 series before a look repeats.
constexpr const char* kColours[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                    "#e69f00", "#56b4e9", "#000000", "#8c564b"};
constexpr int kMarkerPoints[] = {7, 5, 9,
                                 13};  // gnuplot's filled circle, square, triangle, diamond

LegendEntry look_of(std::size_t i, const std::string& label) {
  return {label, kColours[i % 8], static_cast<int>(i / 8 % 4) + 1, static_cast<int>(i / 32 % 4)};
}

bool legend_in_plot(const std::vector<Kept>& series) {
  return series.size() <= kMaxSeriesInPlotLegend;
}

// Rows of the legend below the plot: gnuplot fits as many columns as the longest entry allows
// (about 7 px a character at 12 px, plus the line sample), so the SVG grows by the rows beyond
// the first instead of squeezing the plot.
int legend_rows(const Chart& chart, const std::vector<Kept>& series) {
  std::size_t longest = 0;
  for (const auto& k : series) longest = std::max(longest, k.label.size());
  const int entry_px = static_cast<int>(longest) * 7 + 48;
  const int columns = std::max(1, (std::clamp(chart.width, 200, 4000) - 60) / entry_px);
  return static_cast<int>((series.size() + columns - 1) / columns);
}

std::string script(const Chart& chart, const std::vector<Kept>& series) {
  const bool key = legend_in_plot(series);
  const int extra_rows = key ? std::max(0, legend_rows(chart, series) - 1) : 0;
  std::string s = fmt::format(
      "set terminal svg size {},{} dynamic noenhanced font 'sans,12' background '#ffffff'\n"
      "set output\n"
      "set encoding utf8\n"
      "{}set xlabel '{}'\nset ylabel '{}'\n"
      "set border 3 lc rgb '#555555'\nset tics nomirror\n"
      "set grid xtics ytics lc rgb '#e4e4e4' lw 1 dt 1\n"
      "{}"
      "set style data linespoints\n",
      std::clamp(chart.width, 200, 4000),
      // The legend sits below the plot: room for it, so the plot keeps its height.
      std::clamp(chart.height + 18 * extra_rows, 150, 4000),
      chart.draw_title ? fmt::format("set title '{}'\n", sanitize_chart_text(chart.title)) : "",
      sanitize_chart_text(chart.x_label), sanitize_chart_text(chart.y_label),
      key ? "set key outside below center horizontal Left reverse samplen 2 spacing 1.1\n"
          : "set key off\n");
  for (int i = 0; i < 8; ++i) s += fmt::format("set linetype {} lc rgb '{}'\n", i + 1, kColours[i]);
  s += x_axis(chart, series);
  bool non_negative = true;
  for (const auto& k : series)
    for (const auto& p : k.points) non_negative = non_negative && p.second >= 0;
  if (chart.log_y)
    s += "set logscale y 10\nset format y '%g'\n";
  else if (non_negative)
    s += "set yrange [0:*]\n";
  for (std::size_t i = 0; i < series.size(); ++i) {
    s += fmt::format("$D{} << EOD\n", i);
    for (const auto& [x, y] : series[i].points) s += fmt::format("{:.17g} {:.17g}\n", x, y);
    s += "EOD\n";
  }
  s += "plot ";
  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto look = look_of(i, series[i].label);
    s += fmt::format("{}$D{} using 1:2 lt {} dt {} lw 1.6 pt {} ps 0.55 title '{}'",
                     i ? ", \\\n  " : "", i, i % 8 + 1, look.dash, kMarkerPoints[look.marker],
                     series[i].label);
  }
  s += "\n";
  return s;
}

// The <svg> element alone, its ids prefixed so that several charts can share a page.
std::string inline_svg(const std::string& out, const Chart& chart) {
  const auto begin = out.find("<svg");
  const auto end = out.rfind("</svg>");
  if (begin == std::string::npos || end == std::string::npos || end < begin) return {};
  std::string svg = out.substr(begin, end + 6 - begin);
  std::string prefix;
  for (char c : chart.id)
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_')
      prefix += c;
  if (!prefix.empty()) {
    prefix += '-';
    // One pass, copying: replacing in place moves the rest of the text at every id, quadratic in
    // a chart of thousands of points (each a use of a marker's id).
    for (const std::string_view from : {"id='", "id=\"", "href='#", "href=\"#", "url(#"}) {
      std::string prefixed;
      prefixed.reserve(svg.size());
      std::size_t done = 0;
      for (auto at = svg.find(from); at != std::string::npos; at = svg.find(from, done)) {
        prefixed.append(svg, done, at - done).append(from).append(prefix);
        done = at + from.size();
      }
      prefixed.append(svg, done, std::string::npos);
      svg = std::move(prefixed);
    }
  }
  const auto title = svg.find("<title>Gnuplot</title>");
  if (title != std::string::npos)
    svg.replace(title, 22, "<title>" + sanitize_chart_text(chart.title) + "</title>");
  svg.insert(4, " role=\"img\"");
  return svg;
}

ChartResult not_drawn(std::string why) {
  ChartResult result;
  result.note = std::move(why);
  return result;
}

}  // namespace

std::string sanitize_chart_text(const std::string& text) {
  std::string out;
  for (char c : text) {
    const char k = safe_char(c) ? c : ' ';
    if (k == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += k;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out.substr(0, 200);
}

ChartResult draw_chart(const Chart& chart, const std::string& gnuplot) {
  if (gnuplot.empty()) return not_drawn("charts are off");
  const auto series = usable_series(chart);
  if (series.empty()) return not_drawn("no data to chart");

  TempFile script_file("gp"), errors("err");
  if (script_file.fd < 0 || errors.fd < 0 || !write_all(script_file.fd, script(chart, series)))
    return not_drawn(
        fmt::format("chart not drawn: cannot write a temporary file ({})", std::strerror(errno)));

  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0)
    return not_drawn(fmt::format("chart not drawn: pipe: {}", std::strerror(errno)));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, errors.fd, 2);
  std::string program = gnuplot, script_path = script_file.path;
  char* argv[] = {program.data(), script_path.data(), nullptr};
  pid_t pid = -1;
  const int spawned = posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawned != 0) {
    close(pipe_fds[0]);
    if (spawned == ENOENT || spawned == EACCES || spawned == ENOTDIR)
      return not_drawn("gnuplot not found: install gnuplot-nox to see charts");
    return not_drawn(fmt::format("gnuplot could not start: {}", std::strerror(spawned)));
  }

  std::string out;
  bool timed_out = false, too_big = false;
  const auto deadline = std::chrono::steady_clock::now() + kTimeout;
  char buffer[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{pipe_fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
    if (out.size() > kMaxOutput) {
      too_big = true;
      break;
    }
  }
  close(pipe_fds[0]);
  if (timed_out || too_big) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) return not_drawn("gnuplot took too long; chart not drawn");
  if (too_big) return not_drawn("gnuplot wrote too much; chart not drawn");
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    return not_drawn("gnuplot not found: install gnuplot-nox to see charts");
  std::string svg = inline_svg(out, chart);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || svg.empty()) {
    std::string why = read_head(errors.fd, 2000);
    // gnuplot's message is the last non-empty line; its script is ours, so keep it short.
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    if (const auto nl = why.rfind('\n'); nl != std::string::npos) why = why.substr(nl + 1);
    return not_drawn(fmt::format("gnuplot failed ({}): {}",
                                 WIFEXITED(status) ? fmt::format("exit {}", WEXITSTATUS(status))
                                                   : fmt::format("signal {}", WTERMSIG(status)),
                                 why.empty() ? "no SVG written" : why.substr(0, 300)));
  }
  ChartResult drawn{std::move(svg), {}, {}, legend_in_plot(series)};
  for (std::size_t i = 0; i < series.size(); ++i)
    drawn.legend.push_back(look_of(i, series[i].label));
  return drawn;
}

}  // namespace preflight::report
