#!/bin/sh
# tests/e2e/report-browser.sh: the HTML report in headless Chromium: from the
# rendered DOM, the table rows and charts are there, hostile names from a
# capture stay text and run nothing, and the page fetches nothing (net log).
# Saves screenshots under $BUILD. A control page that does fetch proves the
# net-log check can fail.
E2E_NAME=browser
. tests/e2e/lib.sh

. tests/e2e/browser.sh

page_requests() { python3 tests/browser/inspect.py netlog "$1"; }

# ---- The hostile page ---------------------------------------------------------
hostile=$(pwd)/$BUILD/report-hostile.html
"$LJLEAK" report --format html --source-root testdata/report -o "$hostile" \
  testdata/report/hostile.json
check "hostile_page_written" test -s "$hostile"
# Escaped text may say "src=" (&lt;img src=x); a tag may not carry such an attribute.
check "hostile_page_has_no_url_attribute_in_any_tag" \
  sh -c "! grep -Eiq '<[^>]*[[:space:]](src|href|action|srcset|poster|data)[[:space:]]*=' '$hostile'"
check "hostile_page_names_no_url" sh -c "! grep -Eiq 'url\\(|http:|https:|//' '$hostile'"

chromium_run --log-net-log="$tmp/hostile.netlog" --dump-dom "file://$hostile" >"$tmp/hostile.dom"
check "chromium_rendered_the_hostile_page" test -s "$tmp/hostile.dom"
python3 tests/browser/inspect.py dom "$tmp/hostile.dom" >"$tmp/hostile.facts"
cat "$tmp/hostile.facts" | sed 's/^/     /'
check "title_unchanged_no_hostile_script_ran" test "$(value title "$tmp/hostile.facts")" = "ljleak report: 2 flagged"
check "page_script_ran_and_made_the_table_sortable" test "$(value ready "$tmp/hostile.facts")" = sortable
check "table_has_three_site_rows" test "$(value site-rows "$tmp/hostile.facts")" = 3
check "chart_and_three_sparklines_are_svg" test "$(value svg "$tmp/hostile.facts")" = 4
check "no_img_element" test "$(value img "$tmp/hostile.facts")" = 0
check "only_the_pages_own_script_element" test "$(value script "$tmp/hostile.facts")" = 1
check "no_event_handler_attribute" test "$(value on-attribute "$tmp/hostile.facts")" = 0
check "no_url_attribute_in_the_dom" test "$(value url-attribute "$tmp/hostile.facts")" = 0
check "hostile_site_name_shown_as_text" test "$(value 'text:@<script>alert(1)<\/script>.lua:1' "$tmp/hostile.facts")" -ge 1
check "hostile_source_line_shown_as_text" test "$(value 'text:<img src=x onerror=alert(1)>' "$tmp/hostile.facts")" -ge 2
check "net_log_written" test -s "$tmp/hostile.netlog"
page_requests "$tmp/hostile.netlog" >"$tmp/hostile.requests"
check "hostile_page_fetched_nothing" test ! -s "$tmp/hostile.requests"
cat "$tmp/hostile.requests"
chromium_run --screenshot="$BUILD/report-hostile-screenshot.png" --window-size=1280,1000 \
  "file://$hostile" >/dev/null
check "hostile_screenshot_saved" test -s "$BUILD/report-hostile-screenshot.png"

# ---- Sorting: a click on a column header, in the browser --------------------------
# The page is the trend report with one more script at its end that clicks
# headers as a reader would; the DOM then shows the rows in the new order.
sorted_page() {  # HEADER CLICKS OUTPUT
  "$LJLEAK" report --format html -o "$3" testdata/report/trend.json
  clicks=""
  i=0
  while [ "$i" -lt "$2" ]; do clicks="${clicks}h.click();"; i=$((i + 1)); done
  sed -i "s|</body>|<script>var h = Array.prototype.filter.call(document.querySelectorAll('th'), function (t) { return t.textContent === '$1'; })[0]; ${clicks}</script></body>|" "$3"
  chromium_run --dump-dom "file://$3" >"$3.dom"
  python3 tests/browser/inspect.py dom "$3.dom" | sed -n 's/^sites=//p'
}
unsorted=$(sorted_page none 0 "$(pwd)/$BUILD/report-sort-0.html")
check "rows_start_in_the_engines_order" test "$unsorted" = \
  "@testdata/report/app.lua:16|TRACE started at @testdata/report/app.lua:16|@testdata/report/app.lua:11|string.rep|INTERNAL|@testdata/report/app.lua:3"
ascending=$(sorted_page growth/boundary 1 "$(pwd)/$BUILD/report-sort-1.html")
check "one_click_sorts_by_growth_ascending" test "$ascending" = \
  "INTERNAL|@testdata/report/app.lua:11|string.rep|@testdata/report/app.lua:3|TRACE started at @testdata/report/app.lua:16|@testdata/report/app.lua:16"
descending=$(sorted_page growth/boundary 2 "$(pwd)/$BUILD/report-sort-2.html")
check "second_click_sorts_descending" test "$descending" = \
  "@testdata/report/app.lua:16|TRACE started at @testdata/report/app.lua:16|@testdata/report/app.lua:3|@testdata/report/app.lua:11|string.rep|INTERNAL"
by_name=$(sorted_page site 1 "$(pwd)/$BUILD/report-sort-3.html")
check "site_column_sorts_by_name" test "$by_name" = \
  "@testdata/report/app.lua:11|@testdata/report/app.lua:16|@testdata/report/app.lua:3|INTERNAL|string.rep|TRACE started at @testdata/report/app.lua:16"
rm -f "$BUILD"/report-sort-*

# ---- Control: a page that does fetch is caught by the same check ------------------
cat >"$tmp/control.html" <<'EOF'
<!DOCTYPE html><html><head><title>control</title></head>
<body><img src="http://ljleak-control.invalid/x.png"></body></html>
EOF
chromium_run --log-net-log="$tmp/control.netlog" --dump-dom "file://$tmp/control.html" >/dev/null
page_requests "$tmp/control.netlog" >"$tmp/control.requests"
check "control_page_fetch_is_detected" grep -q '^http://ljleak-control.invalid/x.png$' "$tmp/control.requests"

# ---- The report of a capture: screenshot to look at -----------------------------
# A real capture: the demo service under the collector (6 s, a segment every
# 0.5 s); else the Tarantool fixture through the diff engine; else the
# hand-made trend result.
result=testdata/report/trend.json
source_root=.
if "$LJLEAK" run -o "$tmp/capture" --period 0.5 testdata/demo/service.lua 6 >/dev/null 2>&1 &&
   { "$LJLEAK" diff --format json -o "$tmp/real.json" "$tmp/capture" 2>/dev/null || [ $? = 1 ]; } &&
   { "$LJLEAK" report --format json "$tmp/real.json" >/dev/null 2>&1 || [ $? = 1 ]; }; then
  result=$tmp/real.json
elif { "$LJLEAK" diff --format json testdata/tarantool-memprof/segments >"$tmp/real.json" 2>/dev/null ||
       [ $? = 1 ]; } &&
     { "$LJLEAK" report --format json "$tmp/real.json" >/dev/null 2>&1 || [ $? = 1 ]; }; then
  result=$tmp/real.json
  source_root=testdata/tarantool-memprof
fi
echo "     screenshot of $result"
page=$(pwd)/$BUILD/report.html
"$LJLEAK" report --format html --source-root "$source_root" -o "$page" "$result"
chromium_run --log-net-log="$tmp/page.netlog" --dump-dom "file://$page" >"$tmp/page.dom"
python3 tests/browser/inspect.py dom "$tmp/page.dom" >"$tmp/page.facts"
check "report_page_has_rows" test "$(value site-rows "$tmp/page.facts")" -ge 1
check "report_page_has_charts" test "$(value svg "$tmp/page.facts")" -ge 2
page_requests "$tmp/page.netlog" >"$tmp/page.requests"
check "report_page_fetched_nothing" test ! -s "$tmp/page.requests"
rm -f "$BUILD/report-screenshot.png"
chromium_run --screenshot="$BUILD/report-screenshot.png" --window-size=1280,2000 "file://$page" >/dev/null
check "screenshot_saved" test -s "$BUILD/report-screenshot.png"

finish
