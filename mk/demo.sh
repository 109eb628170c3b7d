#!/bin/sh
# mk/demo.sh: `make demo`: runs the leaky demo service under the collector for
# about 20 seconds, finds its leak, prints the text report, writes the HTML
# report, and says where everything is.
# Knobs (for tests): DEMO_OUT (default demo-out), DEMO_SECONDS (default 20),
# DEMO_PERIOD (default 1).
BUILD=${BUILD:-build}
out=${DEMO_OUT:-demo-out}
seconds=${DEMO_SECONDS:-20}
period=${DEMO_PERIOD:-1}
ljleak=$BUILD/ljleak
service=testdata/demo/service.lua
began=$(date +%s)

die() { echo "demo: $*" >&2; exit 1; }
[ -x "$ljleak" ] || die "no $ljleak: run make first"
rm -rf "$out" && mkdir -p "$out" || die "cannot create $out"

echo "== The service: $service, a request loop with an LRU cache, a log buffer,"
echo "   per-request churn, and one leak. Capturing it for $seconds s, one segment per ${period} s;"
echo "   a boundary at the end of every full GC cycle, the program's own and one forced"
echo "   after every MiB allocated (--every 1M: exact boundaries, by work):"
echo "\$ $ljleak run -o $out/capture --period $period --every 1M $service $seconds"
"$ljleak" run -o "$out/capture" --period "$period" --every 1M "$service" "$seconds" ||
  die "ljleak run failed (status $?)"
segments=$("$ljleak" info --get segments "$out/capture" 2>/dev/null)
boundaries=$("$ljleak" info --get boundaries "$out/capture" 2>/dev/null)
echo "   $segments segments, $boundaries boundaries, $(du -sh "$out/capture" | cut -f1) in $out/capture"
echo

echo "== What grows across the GC boundaries:"
echo "\$ $ljleak diff --format json -o $out/result.json $out/capture"
"$ljleak" diff --format json -o "$out/result.json" "$out/capture"
verdict=$?
# 0 nothing flagged, 1 flagged, 5 inconclusive: results; anything else failed
case "$verdict" in 0|1|5) ;; *) die "ljleak diff failed (status $verdict)" ;; esac
echo "\$ $ljleak report $out/result.json"
"$ljleak" report "$out/result.json"
NO_COLOR=1 "$ljleak" report -o "$out/report.txt" "$out/result.json"
# The chunk names (@testdata/demo/service.lua) are relative to this directory:
# the page's source excerpts are read beneath it, and without it none is read.
"$ljleak" report --format html --source-root . -o "$out/report.html" "$out/result.json"
case $? in 0|1|5) ;; *) die "the HTML report failed" ;; esac
echo

took=$(( $(date +%s) - began ))
echo "== Where everything is ($took s in all):"
echo "   capture       $out/capture/ (index and $segments memprof segments)"
echo "   text report   $out/report.txt"
echo "   HTML report   $out/report.html (open it in a browser; it is self-contained)"
echo "   JSON result   $out/result.json (ljleak report --format junit|markdown|html re-renders it;"
echo "                 html with --source-root . for the source lines around each site)"
echo "   the leak      $service:91 makes a listener closure per keep-alive request;"
echo "                 pool_on (line 31) appends it to a list that is never emptied: the"
echo "                 report's \"held by\" block names it, pool.listeners.close, from a heap snapshot"
echo "   try also      $ljleak summary --leak-only --human-readable $out/capture/seg-0001.memprof"
if [ "$verdict" != 1 ]; then
  die "the diff flagged nothing: the demo's leak was not found"
fi
exit 0
