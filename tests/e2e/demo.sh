#!/bin/sh
# tests/e2e/demo.sh: `make demo` end to end in a shorter form (12 s, a segment
# every 0.5 s): it succeeds, the report flags the demo service's leak (the
# listener closure at line 91 and the pool_on function that stores it, lines
# 28-33) and nothing else, and every file it points to exists.
E2E_NAME=demo
. tests/e2e/lib.sh
out=$tmp/out

# The flagged sites of a JUnit report, one per line: the test cases with a
# <failure> (an undecided site is an <error>, an allowed one has output only),
# and the sites under a leak suspect (whose failure is in its lead site's test case).
junit_failures() {
  awk '/<testcase name="/ { name = $0; sub(/.*<testcase name="/, "", name); sub(/".*/, "", name) }
       /<failure / { print name }
       /<system-out>under leak suspect / { print name }' "$1"
}

check "demo_service_marks_its_leak_at_line_91" \
  sh -c 'grep -n "the leak: never removed" testdata/demo/service.lua | grep -q "^91:"'

DEMO_OUT=$out DEMO_SECONDS=12 DEMO_PERIOD=0.5 BUILD=$BUILD sh mk/demo.sh >"$tmp/stdout" 2>"$tmp/stderr"
status=$?
check "demo_exits_0" test "$status" = 0
[ "$status" = 0 ] || { cat "$tmp/stdout" "$tmp/stderr"; }
check "demo_prints_the_leak_site" grep -q '@testdata/demo/service.lua:91' "$tmp/stdout"
check "demo_prints_where_everything_is" grep -q 'Where everything is' "$tmp/stdout"
# who holds the leak: the pool's list of close listeners, a local of the main chunk
check "demo_names_the_holder_of_its_leak" grep -qF '(local pool in main chunk@testdata/demo/service.lua).listeners.close[*]' "$tmp/stdout"
check "demo_html_names_the_holder" grep -qF 'listeners.close[*]' "$out/report.html"
for f in capture/index result.json report.txt report.html; do
  check "demo_writes_$f" test -s "$out/$f"
done
check "demo_capture_is_stopped" test "$("$LJLEAK" info --get stopped "$out/capture" 2>/dev/null)" = 1
segments=$("$LJLEAK" info --get segments "$out/capture" 2>/dev/null)
check "demo_capture_has_at_least_12_segments" test "${segments:-0}" -ge 12
check "demo_html_report_names_the_leak" grep -q 'service.lua:91' "$out/report.html"
# mk/demo.sh gives --source-root .: the page shows the leaking line in its excerpt.
check "demo_html_shows_the_leaking_source_line" grep -q '<span class="hit"><b>91</b>.*the leak: never removed' "$out/report.html"

"$LJLEAK" report --format junit -o "$tmp/junit.xml" "$out/result.json"
junit_failures "$tmp/junit.xml" > "$tmp/flagged"
echo "flagged:"; sed 's/^/  /' "$tmp/flagged"
check "demo_flags_the_listener_closure" grep -qx '@testdata/demo/service.lua:91' "$tmp/flagged"
# Anything else flagged must be part of the same leak: pool_on, lines 28-33.
others=$(grep -v -x '@testdata/demo/service.lua:91' "$tmp/flagged" |
         grep -v -E '^(TRACE started at )?@testdata/demo/service.lua:(2[89]|3[0-3])$')
check "demo_flags_nothing_but_the_leak" sh -c "test -s '$tmp/junit.xml' && test -z '$others'"
[ -z "$others" ] || echo "  wrongly flagged: $others"

finish
