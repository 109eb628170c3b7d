#!/bin/sh
# tests/e2e/values.sh: values on request only (docs/diff.md, "Values"): a session store whose
# tokens, kept as the keys of a global table, leak (testdata/values/tokens.lua). Captured with
# ljleak run --values, ljleak diff --values shows the suspect's leaked strings and its
# container's keys, cut and escaped, in text, JSON, Markdown and HTML, and the JSON reads back;
# without --values no format shows any of them (the secret's marker is nowhere), nor does
# ljleak report of a saved result with them; a capture made without --values says the values
# were not captured.
E2E_NAME=values
. tests/e2e/lib.sh

program=testdata/values/tokens.lua
secret=tok-SECRET-

"$LJLEAK" run -o "$tmp/cap" --values --snapshots 1 "$program" > "$tmp/run.out" 2>&1
check "run_with_values_exits_0" test $? = 0
check "run_writes_a_values_sidecar_beside_each_snapshot" sh -c "
  cd '$tmp/cap' && ls snap-*.heap > /dev/null && for h in snap-*.heap; do test -f \"\${h%.heap}.values\" || exit 1; done"
check "the_sidecar_is_private" sh -c "test \"\$(stat -c %a '$tmp/cap'/snap-*.values)\" = 600"

# With --values: the strings and the keys, marked, cut and escaped.
NO_COLOR=1 "$LJLEAK" diff --values "$tmp/cap" > "$tmp/text" 2> "$tmp/diff.err"
check "diff_values_flags_exit_1" test $? = 1
check "text_shows_leaked_strings" grep -qE '^     values \(--values\): "tok-SECRET-[0-9]{6}-\\x1b\[31mred\\x07-z+\.\.\." \(\+[0-9]+ bytes\)' "$tmp/text"
check "text_shows_the_tables_keys" grep -qE '^     keys \(--values\): "tok-SECRET-[0-9]{6}-.*, "tok-SECRET-' "$tmp/text"
check "text_shows_three_strings" sh -c "grep '^     values (--values): ' '$tmp/text' | grep -o '\"tok-SECRET-' | wc -l | grep -qx 3"
check "text_shows_eight_keys" sh -c "grep '^     keys (--values): ' '$tmp/text' | grep -o '\"tok-SECRET-' | wc -l | grep -qx 8"
check "text_escapes_control_characters" sh -c "! grep -q \"\$(printf '\\033')\" '$tmp/text' && ! grep -q \"\$(printf '\\007')\" '$tmp/text'"
"$LJLEAK" diff --values --format json -o "$tmp/values.json" "$tmp/cap" 2> /dev/null
check "json_has_the_suspects_values" python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
vs = r["suspects"][0]["values"]
strings = [v for v in vs if v["kind"] == "string"]
keys = [v for v in vs if v["kind"] == "key"]
ok = (r["values"] == "shown" and len(strings) == 3 and len(keys) == 8
      and all(v["text"].startswith("tok-SECRET-") and "\\x1b[31mred\\x07" in v["text"] and v["shown"] == 48
              and v["length"] > v["shown"] and v["site"] == r["suspects"][0]["sites"][0]["name"] for v in vs))
sys.exit(0 if ok else 1)' "$tmp/values.json"
check "json_values_round_trip" sh -c "'$LJLEAK' report --values --format json '$tmp/values.json' | cmp -s - '$tmp/values.json'"
NO_COLOR=1 "$LJLEAK" report --values "$tmp/values.json" > "$tmp/report" 2>&1
check "report_values_says_the_same_as_diff" cmp -s "$tmp/report" "$tmp/text"
"$LJLEAK" diff --values --format markdown "$tmp/cap" > "$tmp/values.md" 2> /dev/null
check "markdown_shows_values_as_code" grep -qE '^   \* values \(--values\): `"tok-SECRET-[0-9]{6}-\\x1b\[31mred\\x07-z+\.\.\." \(\+[0-9]+ bytes\)`' "$tmp/values.md"
"$LJLEAK" diff --values --format html "$tmp/cap" > "$tmp/values.html" 2> /dev/null
check "html_shows_values_escaped" grep -qE '<li class="values">keys \(--values\): <code>&quot;tok-SECRET-[0-9]{6}-\\x1b\[31mred\\x07-z+\.\.\.&quot;' "$tmp/values.html"
check "no_format_writes_a_raw_control" sh -c "! cat '$tmp/values.json' '$tmp/values.md' '$tmp/values.html' | grep -q \"\$(printf '\\033')\""

# Without --values: none of it, in any format, nor from the saved result.
for format in text json markdown html junit; do
  "$LJLEAK" diff --format $format "$tmp/cap" > "$tmp/plain.$format" 2> /dev/null
  check "diff_${format}_without_values_shows_none" sh -c "! grep -q '$secret' '$tmp/plain.$format' && ! grep -q 'values (--values)' '$tmp/plain.$format'"
  "$LJLEAK" report --format $format "$tmp/values.json" > "$tmp/saved.$format" 2> /dev/null
  check "report_${format}_without_values_shows_none" sh -c "! grep -q '$secret' '$tmp/saved.$format'"
done
check "json_without_values_has_no_values_member" sh -c "! grep -q '\"values\"' '$tmp/plain.json'"
check "report_json_without_values_is_the_default_json" cmp -s "$tmp/saved.json" "$tmp/plain.json"

# A capture without --values: diff --values says so, in every format that shows suspects.
"$LJLEAK" run -o "$tmp/plain-cap" --snapshots 1 "$program" > /dev/null 2>&1
check "run_without_values_writes_no_sidecar" sh -c "! ls '$tmp/plain-cap'/*.values > /dev/null 2>&1"
NO_COLOR=1 "$LJLEAK" diff --values "$tmp/plain-cap" > "$tmp/missing.text" 2> /dev/null
check "text_says_values_not_captured" grep -q '^          values: not captured; run with --values' "$tmp/missing.text"
check "text_without_sidecar_shows_none" sh -c "! grep -q '$secret' '$tmp/missing.text'"
"$LJLEAK" diff --values --format json "$tmp/plain-cap" > "$tmp/missing.json" 2> /dev/null
check "json_says_values_not_captured" python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(0 if r["values"] == "not captured" and all("values" not in s for s in r["suspects"]) else 1)' "$tmp/missing.json"
check "markdown_says_values_not_captured" sh -c "'$LJLEAK' diff --values --format markdown '$tmp/plain-cap' 2> /dev/null | grep -q '^values: not captured'"
check "html_says_values_not_captured" sh -c "'$LJLEAK' diff --values --format html '$tmp/plain-cap' 2> /dev/null | grep -q '<p>values: not captured'"

finish
