#!/usr/bin/env python3
"""tests/browser/inspect.py: reads what headless Chromium saw, for tests/e2e/report-browser.sh.

  inspect.py dom FILE      the rendered DOM (--dump-dom): prints key=value lines
  inspect.py netlog FILE   a net log (--log-net-log): prints each URL a page asked for

Chromium itself fetches things in the background (component updates, account
checks) whatever the flags; those requests have no initiating origin. A request
a page makes carries the page's origin (for a file: page, "null" with a file://
isolation key), and those are the ones printed.
"""
import html.parser
import json
import sys


class DomCounter(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.counts = {}
        self.title = ""
        self.in_title = False
        self.in_tbody = False
        self.body_ready = ""
        self.text = []
        self.in_pre = False
        self.in_held = False
        self.in_name = False
        self.names = []

    def handle_starttag(self, tag, attrs):
        self.counts[tag] = self.counts.get(tag, 0) + 1
        attributes = dict(attrs)
        if tag == "title":
            self.in_title = True
        if tag == "tbody":
            self.in_tbody = True
        if tag == "tr" and self.in_tbody and "row" in attributes.get("class", "").split():
            self.counts["site-rows"] = self.counts.get("site-rows", 0) + 1
        if tag == "pre":
            self.in_pre = True
        if tag == "details" and "held" in attributes.get("class", "").split():
            self.in_held = True  # holder paths under a site's name are not names
        if tag == "code" and self.in_tbody and not self.in_pre and not self.in_held:
            self.in_name = True
            self.names.append("")
        if tag == "body":
            self.body_ready = attributes.get("data-ready", "")
        for name, value in attrs:
            if name.startswith("on"):
                self.counts["on-attribute"] = self.counts.get("on-attribute", 0) + 1
            if name in ("src", "href", "srcset", "action", "formaction", "poster", "data"):
                self.counts["url-attribute"] = self.counts.get("url-attribute", 0) + 1

    def handle_endtag(self, tag):
        if tag == "pre":
            self.in_pre = False
        if tag == "details":
            self.in_held = False
        if tag == "code":
            self.in_name = False
        if tag == "title":
            self.in_title = False
        if tag == "tbody":
            self.in_tbody = False

    def handle_data(self, data):
        if self.in_title:
            self.title += data
        if self.in_name:
            self.names[-1] += data
        self.text.append(data)


def inspect_dom(path):
    counter = DomCounter()
    with open(path, encoding="utf-8") as f:
        counter.feed(f.read())
    text = "".join(counter.text)
    print("title=" + counter.title)
    print("ready=" + counter.body_ready)
    print("sites=" + "|".join(counter.names))
    for key in ("site-rows", "tbody", "svg", "polyline", "img", "script", "iframe", "object", "embed",
                "on-attribute", "url-attribute", "pre"):
        print("%s=%d" % (key, counter.counts.get(key, 0)))
    # Hostile strings must be there as text (escaped in the file, decoded here).
    for needle in ("@<script>alert(1)</script>.lua:1", "<img src=x onerror=alert(1)>"):
        print("text:%s=%d" % (needle, text.count(needle)))


def inspect_netlog(path):
    with open(path, encoding="utf-8") as f:
        log = json.load(f)
    names = {number: name for name, number in log["constants"]["logEventTypes"].items()}
    for event in log.get("events", []):
        if names.get(event.get("type")) != "URL_REQUEST_START_JOB":
            continue
        params = event.get("params") or {}
        url = params.get("url")
        if not url:
            continue
        initiator = params.get("initiator", "")
        isolation = str(params.get("network_isolation_key", ""))
        if initiator != "not an origin" or isolation.startswith("file:"):
            print(url)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("dom", "netlog"):
        sys.stderr.write("usage: inspect.py dom|netlog FILE\n")
        return 2
    if sys.argv[1] == "dom":
        inspect_dom(sys.argv[2])
    else:
        inspect_netlog(sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
