"""Lists the charts of a preflight-report HTML page, one line each, in page order:
`TITLE: LEGEND; LEGEND; ...`, the title from the chart's <title> and one legend per plotted
series: gnuplot's plot groups, or the list beside the plot where the chart has too many series
for a legend inside it. So a test can compare the page's charts with the ones it expects. A chart
that is not drawn, not in a figure, without its own id prefix, or with a series that has no line
prints a line saying so, which no expected list holds.

The first screen's chart (a copy of one of the sections' charts, at the top of the page) is left
out; with --first-screen only it is listed.

html_charts.py REPORT.html [--first-screen]
"""
import html
import re
import sys

page = open(sys.argv[1], encoding="utf-8").read()
first_screen = "--first-screen" in sys.argv[2:]
figures = re.findall(r'<figure class="chart([^"]*)" id="([^"]*)">\n(.*?)\n</figure>', page, re.S)
if len(figures) != page.count("<svg"):
    print(f"BROKEN: {page.count('<svg')} charts, {len(figures)} of them in a chart figure")
number = 0
for classes, anchor, figure in figures:
    is_first = "first-screen" in classes.split()
    if not is_first:
        number += 1
    if is_first != first_screen:
        continue
    prefix = "first" if is_first else f"c{number}"
    svg = re.search(r"<svg\b.*?</svg>", figure, re.S)
    if not svg:
        print("NOT DRAWN:", html.unescape(re.sub(r"<[^>]+>", "", figure)).strip())
        continue
    svg = svg.group(0)
    title = re.search(r"<title>(.*?)</title>", svg, re.S)
    beside = re.search(r'<ol class="legend">(.*?)</ol>', figure, re.S)
    legends = []
    # Each series is a group <prefix>-gnuplot_plot_<k>: its legend text (unless the legend is
    # beside the plot), then its line.
    for group in re.split(r'<g id="[^"]*gnuplot_plot_\d+"', svg)[1:]:
        text = re.search(r"<text>(.*?)</text>", group, re.S)
        legends.append(html.unescape(text.group(1)) if text else "(no legend)")
        if "<path" not in group:
            print(f"BROKEN: chart {anchor}, series {legends[-1]!r} has no line")
    if beside:
        listed = [html.unescape(re.sub(r"<[^>]+>", "", item))
                  for item in re.findall(r"<li>.*?<span>(.*?)</span></li>", beside.group(1), re.S)]
        if len(listed) != len(legends) or any(l != "(no legend)" for l in legends):
            print(f"BROKEN: chart {anchor}: {len(legends)} series, {len(listed)} listed beside")
        legends = listed
    ids = set(re.findall(r'\bid="([^"]*)"', svg))
    if not ids or any(not i.startswith(f"{prefix}-") for i in ids):
        print(f"BROKEN: chart {anchor}'s ids are not prefixed {prefix}-: {sorted(ids)[:3]}")
    print(f"{html.unescape(title.group(1)) if title else '(no title)'}: {'; '.join(legends)}")
