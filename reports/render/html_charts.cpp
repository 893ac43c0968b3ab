#include "render/html_charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <future>
#include <semaphore>
#include <thread>
#include <vector>

#include "render/charts.hpp"
#include "render/html_format.hpp"

namespace preflight::report {
namespace {

using html::e;

// One entry per series: a sample of its line (colour and dash as gnuplot drew it), its
// marker, its label; the list scrolls beside the plot, which keeps its size.
std::string legend_beside(const std::vector<LegendEntry>& entries) {
  static const char* markers[] = {"&#9679;", "&#9632;", "&#9650;", "&#9670;"};
  std::string out = "\n<ol class=\"legend\">";
  for (const auto& entry : entries) {
    const std::string& c = entry.colour;  // from the chart's own table, not from a file
    const std::string line =
        entry.dash == 2
            ? fmt::format("repeating-linear-gradient(90deg,{0} 0 5px,transparent 5px 9px)", c)
        : entry.dash == 3
            ? fmt::format("repeating-linear-gradient(90deg,{0} 0 2px,transparent 2px 5px)", c)
        : entry.dash == 4 ? fmt::format(
                                "repeating-linear-gradient(90deg,{0} 0 7px,transparent 7px "
                                "10px,{0} 10px 12px,transparent 12px 15px)",
                                c)
                          : c;
    out += fmt::format(
        "<li><span class=\"swatch\" style=\"background:{}\"></span><span class=\"marker\" "
        "style=\"color:{}\">{}</span><span>{}</span></li>",
        line, c, markers[entry.marker % 4], e(entry.label));
  }
  return out + "</ol>";
}

}  // namespace

// The SVG, and beside it the legend where the SVG has none (too many series for one below the
// plot, which would crowd it).
std::string chart_figure(Chart chart, const FigurePlace& place, const std::string& caption,
                         const std::string& gnuplot) {
  chart.id = place.svg_id;
  chart.draw_title = false;  // the heading says what it shows
  const auto drawn = draw_chart(chart, gnuplot);
  const bool beside = !drawn.svg.empty() && !drawn.legend_in_plot;
  std::string out = fmt::format("<figure class=\"{}{}\" id=\"{}\">\n", place.classes,
                                beside ? " legend-beside" : "", place.anchor);
  if (!drawn.svg.empty())
    out += drawn.svg;
  else
    out += fmt::format("<p class=\"note\">Chart &ldquo;{}&rdquo; not drawn: {}</p>", e(chart.title),
                       e(drawn.note));
  if (beside) out += legend_beside(drawn.legend);
  if (!caption.empty()) out += fmt::format("\n<figcaption>{}</figcaption>", caption);
  return out + "\n</figure>\n";
}

namespace {

constexpr std::string_view kMarker = "<!--figure ";

}  // namespace

struct ChartFigures::Drawing {
  std::string gnuplot;
  std::counting_semaphore<> slots{std::max<std::ptrdiff_t>(
      1, static_cast<std::ptrdiff_t>(std::thread::hardware_concurrency()))};
  std::vector<std::future<std::string>> figures;
};

ChartFigures::ChartFigures(std::string gnuplot) : drawing_(std::make_unique<Drawing>()) {
  drawing_->gnuplot = std::move(gnuplot);
}

ChartFigures::~ChartFigures() {
  for (auto& f : drawing_->figures)
    if (f.valid()) f.wait();
}

std::string ChartFigures::figure(Chart chart, const FigurePlace& place,
                                 const std::string& caption) {
  auto& d = *drawing_;
  d.figures.push_back(
      std::async(std::launch::async, [&d, chart = std::move(chart), place, caption]() mutable {
        d.slots.acquire();
        struct Release {
          std::counting_semaphore<>& slots;
          ~Release() { slots.release(); }
        } release{d.slots};
        return chart_figure(std::move(chart), place, caption, d.gnuplot);
      }));
  return fmt::format("{}{}-->", kMarker, d.figures.size() - 1);
}

std::string ChartFigures::numbered(const Chart& chart, int number, const std::string& caption) {
  return figure(chart, {fmt::format("c{}", number), fmt::format("chart-{}", number), "chart"},
                caption);
}

std::string ChartFigures::fill(const std::string& page) {
  std::string out;
  out.reserve(page.size());
  std::size_t from = 0;
  for (auto at = page.find(kMarker); at != std::string::npos; at = page.find(kMarker, from)) {
    out.append(page, from, at - from);
    const auto number_at = at + kMarker.size();
    const auto end = page.find("-->", number_at);
    const auto index = std::stoul(page.substr(number_at, end - number_at));
    out += drawing_->figures.at(index).get();
    from = end + 3;
  }
  out.append(page, from);
  return out;
}

std::string chart_heading(const PlannedChart& plan) {
  return e(plan.heading) +
         (plan.heading_run.empty() ? std::string() : " &middot; " + e(plan.heading_run));
}

}  // namespace preflight::report
