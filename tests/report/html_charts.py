"""Lists the charts of a preflight-report HTML page, one line each, in page order:
`TITLE: LEGEND; LEGEND; ...`, the title from the chart's <title> and one legend per plotted
series (gnuplot's plot groups), so a test can compare the page's charts with the ones it expects.
A chart that is not drawn, not in a figure, without its own id prefix, or with a series that has
no line prints a line saying so, which no expected list holds.

html_charts.py REPORT.html
"""
import html
import re
import sys

page = open(sys.argv[1], encoding="utf-8").read()
figures = re.findall(r'<figure class="chart">\n(.*?)\n</figure>', page, re.S)
if len(figures) != page.count("<svg"):
    print(f"BROKEN: {page.count('<svg')} charts, {len(figures)} of them in a chart figure")
for number, figure in enumerate(figures, 1):
    svg = re.search(r"<svg\b.*?</svg>", figure, re.S)
    if not svg:
        print("NOT DRAWN:", html.unescape(re.sub(r"<[^>]+>", "", figure)).strip())
        continue
    svg = svg.group(0)
    title = re.search(r"<title>(.*?)</title>", svg, re.S)
    legends = []
    # Each series is a group c<N>-gnuplot_plot_<k>: its legend text, then its line.
    for group in re.split(r'<g id="[^"]*gnuplot_plot_\d+"', svg)[1:]:
        text = re.search(r"<text>(.*?)</text>", group, re.S)
        legends.append(html.unescape(text.group(1)) if text else "(no legend)")
        if "<path" not in group:
            print(f"BROKEN: chart {number}, series {legends[-1]!r} has no line")
    ids = set(re.findall(r'\bid="([^"]*)"', svg))
    if not ids or any(not i.startswith(f"c{number}-") for i in ids):
        print(f"BROKEN: chart {number}'s ids are not prefixed c{number}-: {sorted(ids)[:3]}")
    print(f"{html.unescape(title.group(1)) if title else '(no title)'}: {'; '.join(legends)}")
