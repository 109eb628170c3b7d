#!/bin/sh
# tests/e2e/report.sh: ljleak report end to end: every format from a saved JSON
# result, the same output as the golden files, well-formed JUnit XML, exit codes,
# -o, usage and unreadable input; HTML source excerpts only beneath --source-root
# (a chunk named after a link to a secret, or after a FIFO, reads nothing).
E2E_NAME=report
. tests/e2e/lib.sh
data=testdata/report

# Runs ljleak report and records its exit status in $status.
run() { "$LJLEAK" report "$@"; status=$?; }

# Golden outputs: ljleak report gives what the renderer gave directly.
run "$data/trend.json" >"$tmp/trend.txt" 2>"$tmp/err"
check "trend_json_exits_1_when_sites_are_flagged" test "$status" = 1
check "trend_text_matches_golden" cmp -s "$tmp/trend.txt" "$data/trend.txt"
check "text_on_a_pipe_has_no_colour" sh -c "! grep -q \"\$(printf '\\033')\" '$tmp/trend.txt'"
if command -v script >/dev/null; then
  # On a terminal (script(1) gives the command a pty): colour, unless NO_COLOR.
  script -qc "$LJLEAK report $data/trend.json" /dev/null >"$tmp/tty.txt" 2>&1
  check "text_on_a_terminal_is_coloured" grep -q "$(printf '\033')\[1;31mljleak: 2 of 6" "$tmp/tty.txt"
  NO_COLOR=1 script -qc "$LJLEAK report $data/trend.json" /dev/null >"$tmp/tty.txt" 2>&1
  check "no_color_turns_colour_off_on_a_terminal" sh -c "! grep -q \"\$(printf '\\033')\" '$tmp/tty.txt'"
  # Reading a capture: a progress bar on a terminal's stderr, cleared at the end.
  script -qc "$LJLEAK diff testdata/tarantool-memprof/segments >/dev/null" /dev/null >"$tmp/bar.txt" 2>&1
  check "diff_draws_a_progress_bar_on_a_terminal" grep -q '\] 100%  1012\.2 KiB / 1012\.2 KiB' "$tmp/bar.txt"
  check "progress_bar_is_cleared_at_the_end" sh -c "tail -c 4 '$tmp/bar.txt' | od -c | grep -q '\\r 033   \\[   K'"
else
  echo "skip text_on_a_terminal: script(1) is not installed"
fi
run --format markdown "$data/trend.json" >"$tmp/trend.md"
check "trend_markdown_matches_golden" cmp -s "$tmp/trend.md" "$data/trend.md"
run --format junit "$data/base.json" >"$tmp/base.xml"
check "base_junit_matches_golden" cmp -s "$tmp/base.xml" "$data/base.junit.xml"
run --format=text "$data/base.json" >"$tmp/base.txt"
check "base_text_matches_golden" cmp -s "$tmp/base.txt" "$data/base.txt"
run --format text "$data/range.json" >"$tmp/range.txt"
check "range_text_matches_golden" cmp -s "$tmp/range.txt" "$data/range.txt"

# JSON in, JSON out: byte for byte.
for name in trend base range hostile; do
  run --format json "$data/$name.json" >"$tmp/$name.json"
  check "${name}_json_round_trips_byte_for_byte" cmp -s "$tmp/$name.json" "$data/$name.json"
done
run --format json - <"$data/trend.json" >"$tmp/stdin.json"
check "dash_reads_stdin" cmp -s "$tmp/stdin.json" "$data/trend.json"

# -o writes the file and nothing to stdout.
run --format html -o "$tmp/trend.html" "$data/trend.json" >"$tmp/stdout"
check "dash_o_writes_the_file" grep -q '<table class="sortable" id="sites">' "$tmp/trend.html"
check "dash_o_leaves_stdout_empty" test ! -s "$tmp/stdout"

# An output that cannot be opened or written exits 4 and names it.
run -o "$tmp/no/such/dir/out.txt" "$data/trend.json" >/dev/null 2>"$tmp/err"
check "unwritable_output_exits_4" test "$status" = 4
check "unwritable_output_is_named" grep -qx "ljleak report: error: $tmp/no/such/dir/out.txt: No such file or directory" "$tmp/err"
if [ -w /dev/full ]; then
  run --format json -o /dev/full "$data/trend.json" >/dev/null 2>"$tmp/err"
  check "full_device_exits_4" test "$status" = 4
  check "full_device_is_named" grep -qx "ljleak report: error: /dev/full: cannot write the report: No space left on device" "$tmp/err"
  run "$data/trend.json" >/dev/full 2>"$tmp/err"
  check "full_stdout_exits_4" test "$status" = 4
  check "full_stdout_is_named" grep -qx "ljleak report: error: stdout: cannot write the report: No space left on device" "$tmp/err"
else
  echo "skip full_device: no /dev/full here"
fi

# JUnit must be well-formed XML, hostile names included.
for name in trend base range hostile; do
  run --format junit -o "$tmp/$name.xml" "$data/$name.json"
  check "${name}_junit_is_well_formed_xml" \
    python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$tmp/$name.xml"
done
cases=$(python3 -c 'import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
print(len(d.getElementsByTagName("testcase")), len(d.getElementsByTagName("failure")))' "$tmp/hostile.xml")
check "hostile_junit_has_three_cases_and_two_failures" test "$cases" = "3 2"
names=$(python3 -c 'import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
print(d.getElementsByTagName("testcase")[0].getAttribute("name"))' "$tmp/hostile.xml")
check "hostile_junit_name_reads_back_as_text" test "$names" = '@<script>alert(1)</script>.lua:1'

# A result with nothing flagged exits 0.
python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
r["flagged"] = 0
for s in r["sites"]:
    s["verdict"] = "steady"
json.dump(r, open(sys.argv[2], "w"))' "$data/trend.json" "$tmp/clean.json"
run "$tmp/clean.json" >"$tmp/clean.txt"
check "clean_result_exits_0" test "$status" = 0
check "clean_result_says_so" grep -q '^ljleak: no growing sites among 6$' "$tmp/clean.txt"

# Inconclusive is a result of its own: exit 5, INCONCLUSIVE first; a flagged
# site still wins (exit 1).
run "$data/undecided.json" >"$tmp/undecided.txt"
check "undecided_result_exits_5" test "$status" = 5
check "undecided_text_matches_golden" cmp -s "$tmp/undecided.txt" "$data/undecided.txt"
check "undecided_text_leads_with_inconclusive" sh -c "head -n 1 '$tmp/undecided.txt' | grep -q '^ljleak: INCONCLUSIVE: 1 site rose by'"
run --format markdown "$data/undecided.json" >"$tmp/undecided.md"
check "undecided_markdown_matches_golden" cmp -s "$tmp/undecided.md" "$data/undecided.md"
run --format junit "$data/undecided.json" >"$tmp/undecided.xml"
check "undecided_junit_matches_golden" cmp -s "$tmp/undecided.xml" "$data/undecided.junit.xml"
check "undecided_junit_is_well_formed_xml" \
  python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$tmp/undecided.xml"
errors=$(python3 -c 'import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
print(len(d.getElementsByTagName("error")), len(d.getElementsByTagName("failure")))' "$tmp/undecided.xml")
check "undecided_junit_has_one_error_and_no_failure" test "$errors" = "1 0"
run --format html "$data/undecided.json" >"$tmp/undecided.html"
check "undecided_html_leads_with_inconclusive" grep -q '<h1>INCONCLUSIVE</h1>' "$tmp/undecided.html"
python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
for s in r["sites"]:
    if s["name"] == "@app.lua:11":
        s["verdict"] = "growing"
json.dump(r, open(sys.argv[2], "w"))' "$data/undecided.json" "$tmp/flagged-and-undecided.json"
run "$tmp/flagged-and-undecided.json" >"$tmp/flagged-and-undecided.txt"
check "a_flagged_site_wins_over_undecided_ones" test "$status" = 1
check "flagged_text_still_lists_the_undecided" grep -q '^undecided (rose, but the boundaries cannot show a trend yet):' "$tmp/flagged-and-undecided.txt"

# A result saved before outcome, warmup and allow existed still renders, and
# exits by its verdicts.
python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
for key in ("outcome", "undecided", "outcome_reason"):
    del r[key]
del r["options"]["warmup"]
for s in r["sites"]:
    del s["allowed"], s["allow"]
json.dump(r, open(sys.argv[2], "w"))' "$data/trend.json" "$tmp/old.json"
run "$tmp/old.json" >"$tmp/old.txt"
check "old_result_without_the_new_members_exits_by_its_verdicts" test "$status" = 1
check "old_result_renders_as_before" cmp -s "$tmp/old.txt" "$data/trend.txt"

# --warmup and --allow decide a saved result again from its series.
capture=testdata/tarantool-memprof/segments
"$LJLEAK" diff -q --format json "$capture" >"$tmp/six.json" 2>/dev/null
run --warmup 2 "$tmp/six.json" >"$tmp/six-warmup.txt"
check "report_warmup_decides_again_and_exits_5" test "$status" = 5
check "report_warmup_says_why" grep -q '^ljleak: INCONCLUSIVE: 2 sites rose by ≥ 4.0 KiB but 4 boundaries after a warm-up of 2 cannot show a trend at p ≤ 0.01; 5 are needed$' "$tmp/six-warmup.txt"
"$LJLEAK" diff -q --warmup 2 "$capture" >"$tmp/six-warmup-direct.txt" 2>/dev/null
check "report_warmup_gives_what_diff_warmup_gives" cmp -s "$tmp/six-warmup.txt" "$tmp/six-warmup-direct.txt"
run --warmup 2 --format json "$tmp/six.json" >"$tmp/six-warmup.json"
check "report_warmup_is_recorded" grep -q '"warmup": 2$' "$tmp/six-warmup.json"
run --warmup 0 "$tmp/six-warmup.json" >/dev/null
check "report_warmup_0_decides_again_without_it" test "$status" = 1
printf '@segments.lua:14 16k/boundary # sessions, capped by the harness\nTRACE started at @segments.lua:14 100k/boundary # the same, compiled\n' >"$tmp/allow.txt"
run --allow "$tmp/allow.txt" "$tmp/six.json" >"$tmp/six-allowed.txt"
check "report_allow_within_budget_exits_0" test "$status" = 0
check "report_allow_shows_the_reason" grep -q 'within 16k/boundary (.*allow.txt line 1: @segments.lua:14): sessions, capped by the harness$' "$tmp/six-allowed.txt"
printf '@segments.lua:14 1k/boundary # sessions\n' >"$tmp/allow-past.txt"
run --allow "$tmp/allow-past.txt" "$tmp/six.json" >/dev/null
check "report_allow_past_budget_exits_1" test "$status" = 1
printf 'INTERNAL 1k/MB # interned strings\n' >"$tmp/allow-mb.txt"
run --allow "$tmp/allow-mb.txt" "$tmp/six.json" >/dev/null 2>"$tmp/err"
check "report_allow_per_mb_without_work_exits_2" test "$status" = 2
check "report_allow_per_mb_without_work_says_why" grep -q "allow-mb.txt: line 1: budget '1k/MB' is per MB of work, but the capture does not record the bytes allocated at each boundary" "$tmp/err"
# Per MB of work: the result's capture records the bytes allocated at each
# boundary (boundary_allocated); here 1 MiB per boundary.
python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
r["capture"]["boundary_allocated"] = [i * 1048576 for i in range(r["capture"]["boundary_count"])]
json.dump(r, open(sys.argv[2], "w"))' "$tmp/six.json" "$tmp/six-work.json"
printf '@segments.lua:14 16k/MB # sessions per MB of requests\nTRACE started at @segments.lua:14 100k/MB # the same, compiled\n' >"$tmp/allow-mb-within.txt"
run --allow "$tmp/allow-mb-within.txt" "$tmp/six-work.json" >"$tmp/six-mb.txt"
check "report_allow_per_mb_within_budget_exits_0" test "$status" = 0
check "report_allow_per_mb_shows_the_growth_per_mb" grep -q '+8.4 KiB per MB of work, within 16k/MB' "$tmp/six-mb.txt"
printf '@segments.lua:14 8k/MB # sessions per MB of requests\nTRACE started at @segments.lua:14 100k/MB # the same, compiled\n' >"$tmp/allow-mb-past.txt"
run --allow "$tmp/allow-mb-past.txt" "$tmp/six-work.json" >/dev/null
check "report_allow_per_mb_past_budget_exits_1" test "$status" = 1

# Usage errors exit 2 with a usage line; unreadable input exits 3 with FILE: byte N.
run >/dev/null 2>"$tmp/err"
check "no_file_is_a_usage_error" test "$status" = 2
check "usage_error_prints_usage" grep -q '^usage: ljleak report' "$tmp/err"
run --format pdf "$data/trend.json" >/dev/null 2>"$tmp/err"
check "unknown_format_is_a_usage_error" test "$status" = 2
run --bogus "$data/trend.json" >/dev/null 2>"$tmp/err"
check "unknown_option_is_a_usage_error" test "$status" = 2
run "$data/trend.json" "$data/base.json" >/dev/null 2>"$tmp/err"
check "two_files_are_a_usage_error" test "$status" = 2
run --help >"$tmp/help"
check "help_exits_0" test "$status" = 0
check "help_starts_with_usage" grep -q '^usage: ljleak report \[--format text|html|json|junit|markdown|pprof|folded\] \[-o FILE\]' "$tmp/help"
run "$tmp/missing.json" >/dev/null 2>"$tmp/err"
check "missing_file_exits_3" test "$status" = 3
check "missing_file_is_named" grep -q "missing.json: No such file or directory" "$tmp/err"
printf '{"ljleak_result": 1, "mode": "trend", "sites": [}' >"$tmp/broken.json"
run "$tmp/broken.json" >/dev/null 2>"$tmp/err"
check "broken_json_exits_3" test "$status" = 3
check "broken_json_gives_file_and_byte" grep -q "broken.json: byte 48: expected a JSON value, found '}'" "$tmp/err"
head -c 300 "$data/trend.json" >"$tmp/cut.json"
run "$tmp/cut.json" >/dev/null 2>"$tmp/err"
check "cut_json_exits_3" test "$status" = 3

"$LJLEAK" diff testdata/tarantool-memprof/segments 2>"$tmp/bar.err" >/dev/null
check "no_progress_bar_when_stderr_is_not_a_terminal" test ! -s "$tmp/bar.err"

# A real capture: ljleak diff --format F gives what ljleak report --format F
# gives from the saved JSON, in every format and every mode.
capture=testdata/tarantool-memprof/segments
"$LJLEAK" diff --format json "$capture" >"$tmp/real.json" 2>/dev/null
check "diff_writes_json_of_the_fixture" test -s "$tmp/real.json"
"$LJLEAK" diff --format json --from 2 --to 5 "$capture" >"$tmp/real-range.json" 2>/dev/null
"$LJLEAK" diff --format json --base "$capture" "$capture" >"$tmp/real-base.json" 2>/dev/null
for format in text html json junit markdown; do
  "$LJLEAK" diff --format "$format" "$capture" >"$tmp/direct.$format" 2>/dev/null
  run --format "$format" "$tmp/real.json" >"$tmp/again.$format"
  check "diff_and_report_agree_on_${format}" cmp -s "$tmp/direct.$format" "$tmp/again.$format"
  "$LJLEAK" diff --format "$format" --from 2 --to 5 "$capture" >"$tmp/direct.$format" 2>/dev/null
  run --format "$format" "$tmp/real-range.json" >"$tmp/again.$format"
  check "diff_and_report_agree_on_${format}_in_range_mode" cmp -s "$tmp/direct.$format" "$tmp/again.$format"
  "$LJLEAK" diff --format "$format" --base "$capture" "$capture" >"$tmp/direct.$format" 2>/dev/null
  run --format "$format" "$tmp/real-base.json" >"$tmp/again.$format"
  check "diff_and_report_agree_on_${format}_in_base_mode" cmp -s "$tmp/direct.$format" "$tmp/again.$format"
done
run "$tmp/real.json" >/dev/null
check "report_of_the_fixture_exits_1_like_diff" test "$status" = 1
run "$tmp/real-base.json" >/dev/null
check "report_of_a_capture_against_itself_exits_0" test "$status" = 0

# Source excerpts, from a real capture whose chunks are named after files a
# hostile process could plant where the report looks: steal.lua, a link to a
# secret; lnk/y.lua, through a link to a directory holding another; x.lua, a
# FIFO (opening it to read would block the report forever); ok.lua, a plain
# file beside them (the control). Under timeout, so a regression fails.
src=$tmp/src
mkdir -p "$src" "$tmp/elsewhere"
secret="LJLEAK-SECRET-$$-NOT-FOR-THE-PAGE"
echo "-- $secret" >"$tmp/secret.lua"
cp "$tmp/secret.lua" "$tmp/elsewhere/y.lua"
chmod 600 "$tmp/secret.lua" "$tmp/elsewhere/y.lua"
ln -s "$tmp/secret.lua" "$src/steal.lua"
ln -s "$tmp/elsewhere" "$src/lnk"
mkfifo "$src/x.lua"
printf -- '-- control 1\n-- control 2\n-- control 3\n-- control 4\n-- control 5\n-- control 6\n' >"$src/ok.lua"
cat >"$tmp/chunks.lua" <<'EOF'
local keep = {}
local code = "local keep = ...\nreturn function(n)\n  for i = 1, n do\n    keep[#keep + 1] = { i }\n  end\nend\n"
local function chunk(name) return assert(load(code, "@" .. name))(keep) end
local fills = { chunk("steal.lua"), chunk("lnk/y.lua"), chunk("x.lua"), chunk("ok.lua") }
for _ = 1, 12 do
  for _, fill in ipairs(fills) do fill(200) end
  collectgarbage()
end
EOF
"$LJLEAK" run -o "$tmp/chunks" --snapshots none "$tmp/chunks.lua" >"$tmp/chunks.out" 2>&1
check "chunks_capture_runs" test $? = 0
"$LJLEAK" diff --format json -o "$tmp/chunks.json" "$tmp/chunks" 2>/dev/null
for name in steal.lua lnk/y.lua x.lua ok.lua; do
  check "chunks_capture_has_a_site_in_$name" grep -q "\"name\": \"@$name:4\"" "$tmp/chunks.json"
done
ljleak_abs=$(cd "$(dirname "$LJLEAK")" && pwd)/$(basename "$LJLEAK")
timeout 60 "$ljleak_abs" report --format html --source-root "$src" -o "$tmp/chunks.html" "$tmp/chunks.json"
status=$?
check "source_root_report_finishes_despite_the_fifo" sh -c "test $status = 0 || test $status = 1 || test $status = 5"
check "source_root_report_shows_the_plain_file" grep -q '<span class="hit"><b>4</b>-- control 4</span>' "$tmp/chunks.html"
check "source_root_report_has_not_the_secret" sh -c "test -s '$tmp/chunks.html' && ! grep -q '$secret' '$tmp/chunks.html'"
check "source_root_report_refuses_the_links" test "$(grep -c 'source not shown: a symbolic link on the way' "$tmp/chunks.html")" -ge 2
check "source_root_report_refuses_the_fifo" grep -q 'source not shown: not a regular file' "$tmp/chunks.html"
# No --source-root: nothing is opened, not even beside the current directory.
(cd "$src" && timeout 60 "$ljleak_abs" report --format html -o "$tmp/chunks-cwd.html" "$tmp/chunks.json")
status=$?
check "report_without_source_root_finishes_beside_the_fifo" sh -c "test $status = 0 || test $status = 1 || test $status = 5"
check "report_without_source_root_has_not_the_secret" sh -c "test -s '$tmp/chunks-cwd.html' && ! grep -q '$secret' '$tmp/chunks-cwd.html'"
check "report_without_source_root_shows_no_source" sh -c "test -s '$tmp/chunks-cwd.html' && ! grep -q '<pre class=\"src\">' '$tmp/chunks-cwd.html'"
check "report_without_source_root_says_how" grep -q 'Source excerpts: give <code>--source-root DIR</code>' "$tmp/chunks-cwd.html"

finish
