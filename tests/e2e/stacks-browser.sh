#!/bin/sh
# tests/e2e/stacks-browser.sh: the leak flame graph in headless Chromium: drawn by the
# page's own script, each stack's box as wide as its share of the growth that the JSON
# result gives, the leaking caller's box red and the zoom on a click; nothing fetched.
# Saves a screenshot under $BUILD.
E2E_NAME=stacks-browser
. tests/e2e/lib.sh
. tests/e2e/browser.sh

result=testdata/report/stacks.json
page=$(pwd)/$BUILD/report-stacks.html
"$LJLEAK" report --format html -o "$page" "$result"
check "page_written" test -s "$page"
check "page_names_no_url" sh -c "! grep -Eiq 'url\\(|http:|https:|src=' '$page'"

chromium_run --log-net-log="$tmp/flame.netlog" --dump-dom "file://$page" >"$tmp/flame.dom"
check "chromium_rendered_the_page" test -s "$tmp/flame.dom"
python3 tests/browser/flame.py "$tmp/flame.dom" "$result" >"$tmp/flame.facts"
status=$?
sed 's/^/     /' "$tmp/flame.facts"
check "flame_widths_and_bytes_match_the_json" test "$status" = 0
check "flame_drawn_by_the_page_script" test "$(value drawn "$tmp/flame.facts")" = drawn
check "flame_has_the_root_and_both_paths" test "$(value boxes "$tmp/flame.facts")" = 7
check "leaking_caller_box_is_red" grep -q 'class="bad" data-name="@t.lua:21"' "$tmp/flame.dom"
check "steady_caller_box_is_grey" grep -q 'class="ok" data-name="@t.lua:31"' "$tmp/flame.dom"
check "hover_title_gives_bytes_and_verdict" grep -q '<title>@t.lua:21: 40.0 KiB grown (growing)</title>' "$tmp/flame.dom"
check "page_fetched_nothing" test -z "$(python3 tests/browser/inspect.py netlog "$tmp/flame.netlog")"

# A click on the leaking caller's box zooms it to the whole width.
zoomed=$(pwd)/$BUILD/report-stacks-zoomed.html
sed "s|</body>|<script>document.querySelectorAll('#flame rect[data-name=\"@t.lua:21\"]')[0].parentNode.dispatchEvent(new MouseEvent('click', {bubbles: true}));</script></body>|" "$page" >"$zoomed"
chromium_run --dump-dom "file://$zoomed" >"$tmp/zoomed.dom"
python3 tests/browser/flame.py "$tmp/zoomed.dom" "$result" @t.lua:21 >"$tmp/zoomed.facts"
status=$?
sed 's/^/     /' "$tmp/zoomed.facts"
check "click_zooms_the_box_to_the_whole_width" test "$status" = 0
check "zoom_recorded_on_the_graph" test "$(value zoom "$tmp/zoomed.facts")" = @t.lua:21

chromium_run --screenshot="$BUILD/report-stacks-screenshot.png" --window-size=1280,1000 \
  "file://$page" >/dev/null
check "screenshot_saved" test -s "$BUILD/report-stacks-screenshot.png"
finish
