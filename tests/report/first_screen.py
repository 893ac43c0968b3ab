"""Where the verdict, its reasons and the first chart of a preflight-report HTML page land in a
1280 px wide browser: headless Chromium lays out a copy of the page with a small script added
(the page itself runs none: its Content-Security-Policy forbids it, so the copy drops that
policy), the script writes the boxes into the DOM, Chromium dumps the DOM, and this reads them.
Also takes a screenshot of the page itself, 1280 x 1000, for a person to look at.

first_screen.py CHROMIUM REPORT.html OUT_PREFIX EXIT_CODE
  writes OUT_PREFIX.png (the screenshot), OUT_PREFIX-layout.html (the copy) and
  OUT_PREFIX-layout.json (the boxes); prints one line per check, exits 1 when one fails.
"""
import json
import re
import subprocess
import sys

WIDTH, FIRST_SCREEN = 1280, 1000
MIN_PLOT = (500, 250)  # the first chart's plot must stay this large (px): readable, not squeezed

chromium, page_path, prefix, exit_code = sys.argv[1:5]
page = open(page_path, encoding="utf-8").read()

# The boxes, in page coordinates (0 is the top of the page, whatever is scrolled).
probe = """<script>
const box = e => { if (!e) return null; const b = e.getBoundingClientRect();
  return {top: b.top + scrollY, bottom: b.bottom + scrollY, width: b.width, height: b.height}; };
const headline = document.getElementById('verdict-headline') || document.querySelector('.headline');
const reasons = document.getElementById('verdict-reasons');
const out = {viewport_width: innerWidth, headline: box(headline), reasons: box(reasons),
  reason_lines: reasons ? reasons.querySelectorAll(':scope > li').length : 0,
  headline_text: headline ? headline.textContent : '',
  first_svg: box(document.querySelector('svg')),
  first_svg_section: (() => { const s = document.querySelector('svg');
    const f = s && s.closest('figure'); return f ? f.id : null; })()};
const pre = document.createElement('pre'); pre.id = 'first-screen-layout';
pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
</script>"""
copy = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page, count=1)
copy = copy.replace("</body>", probe + "\n</body>", 1)
open(prefix + "-layout.html", "w", encoding="utf-8").write(copy)

flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--window-size={WIDTH},{FIRST_SCREEN}"]
dom = subprocess.run([chromium, *flags, "--dump-dom", "file://" + prefix + "-layout.html"],
                     capture_output=True, text=True, timeout=90).stdout
subprocess.run([chromium, *flags, f"--screenshot={prefix}.png", "file://" + page_path],
               capture_output=True, timeout=90)

found = re.search(r'<pre id="first-screen-layout">(.*?)</pre>', dom, re.S)
if not found:
    print("FAIL: Chromium's DOM holds no layout (did it run?)")
    sys.exit(1)
layout = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
json.dump(layout, open(prefix + "-layout.json", "w"), indent=1)

failures = 0


def check(ok, what):
    global failures
    print(("ok:   " if ok else "FAIL: ") + what)
    failures += not ok


def bottom(name):
    b = layout.get(name)
    return None if b is None else round(b["bottom"])


check(layout["viewport_width"] == WIDTH, f"laid out {layout['viewport_width']} px wide")
h, r, svg = layout["headline"], layout["reasons"], layout["first_svg"]
check(h is not None and h["bottom"] <= FIRST_SCREEN,
      f"the verdict line ends at {bottom('headline')} px (within {FIRST_SCREEN})")
check(f"(exit {exit_code})" in layout["headline_text"],
      f"the verdict line states the report's exit code {exit_code}: {layout['headline_text']!r}")
check(r is not None and layout["reason_lines"] >= 1 and r["bottom"] <= FIRST_SCREEN,
      f"its {layout['reason_lines']} reason line(s) end at {bottom('reasons')} px")
check(svg is not None and h is not None and svg["top"] >= h["bottom"] and
      svg["bottom"] <= FIRST_SCREEN,
      f"a chart ({layout['first_svg_section']}) from {svg and round(svg['top'])} to "
      f"{bottom('first_svg')} px, below the verdict")
check(svg is not None and svg["width"] >= MIN_PLOT[0] and svg["height"] >= MIN_PLOT[1],
      f"its plot {svg and round(svg['width'])} x {svg and round(svg['height'])} px "
      f"(at least {MIN_PLOT[0]} x {MIN_PLOT[1]})")
sys.exit(1 if failures else 0)
