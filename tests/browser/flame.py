#!/usr/bin/env python3
"""tests/browser/flame.py: checks the leak flame graph that headless Chromium drew, for tests/e2e/stacks-browser.sh.

  flame.py DOM RESULT.json [ZOOMED]

DOM is the rendered page (--dump-dom), RESULT the JSON result it was made
from. Each stack of the result that grew must end in a drawn box whose bytes
are its growth (live bytes at the last boundary less the first judged one)
and whose width is that growth's share of the whole; each box's verdicts are
its stacks'. With ZOOMED (a frame's label), the page was clicked on that box:
it must then span the whole width. Prints key=value lines; exits 1 on a
mismatch.
"""
import html.parser
import json
import sys

WIDTH = 1200.0


class Flame(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rects = []
        self.svg = {}
        self.body = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and a.get("id") == "flame":
            self.svg = a
        if tag == "body":
            self.body = a
        if tag == "rect" and "data-name" in a:
            self.rects.append(a)


def main():
    page = Flame()
    with open(sys.argv[1], encoding="utf-8") as f:
        page.feed(f.read())
    with open(sys.argv[2], encoding="utf-8") as f:
        result = json.load(f)
    zoomed = sys.argv[3] if len(sys.argv) > 3 else None
    rows = result.get("stacks") or result["sites"]
    warmup = result.get("options", {}).get("warmup", 0)
    grown = {}
    for row in rows:
        series = row["series"]
        first = series[warmup] if warmup < len(series) else series[0]
        if series and series[-1] > first:
            grown[row["name"]] = (series[-1] - first, row["verdict"])
    total = sum(g for g, _ in grown.values())
    failures = []
    print("drawn=%s" % page.body.get("data-flame", ""))
    print("boxes=%d" % len(page.rects))
    print("zoom=%s" % page.svg.get("data-zoom", ""))
    # The path of labels from the root to a box: boxes are drawn parent first.
    path = {}
    stack = []
    for r in page.rects:
        depth = int(r["data-depth"])
        stack = stack[:depth]
        stack.append(r["data-name"])
        path[";".join(stack[1:])] = r
    for name, (growth, verdict) in sorted(grown.items()):
        if zoomed and zoomed not in name.split(";"):
            continue  # outside the zoomed box: not drawn
        box = path.get(name)
        if box is None:
            failures.append("no box for stack %s" % name)
            continue
        width = float(box["width"])
        print("stack=%s bytes=%s width=%.3f verdict=%s" % (name, box["data-bytes"], width,
                                                           box["data-verdict"]))
        if int(box["data-bytes"]) != growth:
            failures.append("%s: %s bytes drawn, the result says %d" % (name, box["data-bytes"], growth))
        if not zoomed and abs(width - WIDTH * growth / total) > 0.01:
            failures.append("%s: width %.3f, expected %.3f" % (name, width, WIDTH * growth / total))
        if verdict not in box["data-verdict"].split(", "):
            failures.append("%s: verdict %s not in %s" % (name, verdict, box["data-verdict"]))
    if page.rects and not zoomed and abs(float(page.rects[0]["width"]) - WIDTH) > 0.01:
        failures.append("the root box is not the whole width")
    if zoomed:
        boxes = [r for r in page.rects if r["data-name"] == zoomed]
        if not boxes or abs(float(boxes[0]["width"]) - WIDTH) > 0.01:
            failures.append("zoomed box %s does not span the width" % zoomed)
    for f in failures:
        print("mismatch=%s" % f)
    return 1 if failures or not grown else 0


if __name__ == "__main__":
    sys.exit(main())
