#!/bin/sh
# tests/e2e/stacks.sh: stacks through ljleak report on a saved result with stacks (one
# helper, a leaking and a steady caller): --by stack, folded stacks, and pprof read back by
# `go tool pprof` (Debian's golang-go), where the leaking caller comes first.
E2E_NAME=stacks
. tests/e2e/lib.sh

result=testdata/report/stacks.json
leak='@t.lua:40;@t.lua:21;@t.lua:10'
steady='@t.lua:41;@t.lua:31;@t.lua:10'

# ---- Text and --by stack ----------------------------------------------------------
"$LJLEAK" report "$result" >"$tmp/text"
check "report_exits_1_for_the_growing_site" test $? = 1
check "text_lists_the_sites_stacks" grep -q 'stacks that hold the growth, by site' "$tmp/text"
check "text_names_the_leaking_caller_growing" grep -Eq "^    growing .*  $leak\$" "$tmp/text"
check "text_shows_the_steady_caller_steady" grep -Eq "^    steady .*  $steady\$" "$tmp/text"
"$LJLEAK" report --by stack --format json "$result" >"$tmp/by-stack.json"
check "by_stack_exits_1" test $? = 1
check "by_stack_rows_are_the_stacks" test "$(grep -c '"stack": true' "$tmp/by-stack.json")" = 2
check "by_stack_flags_one_stack" grep -q '"flagged": 1,' "$tmp/by-stack.json"
"$LJLEAK" report --by stack "$result" >"$tmp/by-stack.txt"
check "by_stack_text_flags_the_leaking_stack" grep -q "1 of 2 sites growing" "$tmp/by-stack.txt"
check "by_stack_bad_value_is_a_usage_error" sh -c "'$LJLEAK' report --by caller '$result' 2>/dev/null; test \$? = 2"
"$LJLEAK" report --format json "$result" >"$tmp/again.json"
check "json_round_trip_through_the_cli" cmp -s "$tmp/again.json" "$result"

# ---- Folded stacks ------------------------------------------------------------------
"$LJLEAK" report --format folded -o "$tmp/folded" "$result"
check "folded_matches_golden" cmp -s "$tmp/folded" testdata/report/stacks.folded
"$LJLEAK" report --format folded --pprof-growth "$result" >"$tmp/growth.folded"
check "folded_growth_names_the_leak_first" test "$(head -n 1 "$tmp/growth.folded")" = "$leak 40960"
check "boundary_past_the_last_is_an_error" sh -c "'$LJLEAK' report --format folded --boundary 9 '$result' >/dev/null 2>&1; test \$? = 4"

# ---- pprof, read by go tool pprof ---------------------------------------------------
if ! command -v go >/dev/null 2>&1; then
  bad "go_is_installed (Debian package golang-go; make deps-check installs it)"
  finish
  exit
fi
export HOME="$tmp" GOCACHE="$tmp/gocache" GOPATH="$tmp/gopath" GOFLAGS=-mod=mod GOTOOLCHAIN=local
"$LJLEAK" report --format pprof -o "$tmp/profile.pb.gz" "$result"
check "pprof_written_gzipped" sh -c "head -c 2 '$tmp/profile.pb.gz' | od -An -tx1 | grep -q '1f 8b'"
go tool pprof -top "$tmp/profile.pb.gz" >"$tmp/top" 2>"$tmp/top.err"
check "go_tool_pprof_reads_the_profile" test $? = 0
sed 's/^/     /' "$tmp/top"
check "top_is_inuse_space" grep -q '^Type: inuse_space' "$tmp/top"
check "top_totals_the_live_bytes" grep -q 'of 60kB total' "$tmp/top"
go tool pprof -traces "$tmp/profile.pb.gz" >"$tmp/traces" 2>/dev/null
check "go_tool_pprof_reads_the_traces" test $? = 0
# The first trace (largest first) is the leaking caller's, with its verdict.
first=$(awk '/^-+\+/ {n++} n == 1' "$tmp/traces")
check "first_trace_is_the_leaking_caller" sh -c "echo '$first' | grep -q '@t.lua:20' && ! echo '$first' | grep -q '@t.lua:30'"
check "first_trace_says_growing" sh -c "echo '$first' | grep -q 'verdict:  growing'"
check "first_trace_holds_48kB" sh -c "echo '$first' | grep -q '48kB'"
"$LJLEAK" report --format pprof --pprof-growth -o "$tmp/growth.pb.gz" "$result"
go tool pprof -top -cum "$tmp/growth.pb.gz" >"$tmp/growth.top" 2>/dev/null
sed 's/^/     /' "$tmp/growth.top"
check "growth_profile_defaults_to_growth_space" grep -q '^Type: growth_space' "$tmp/growth.top"
# By cumulative growth the leaking caller (44kB of 44kB) comes before the steady one (4kB).
check "leaking_caller_on_top_of_the_callers" sh -c "grep -n '@t.lua:20\$' '$tmp/growth.top' | cut -d: -f1 > '$tmp/a'; grep -n '@t.lua:30\$' '$tmp/growth.top' | cut -d: -f1 > '$tmp/b'; test \$(cat '$tmp/a') -lt \$(cat '$tmp/b')"
check "leaking_caller_holds_40kB_of_growth" grep -Eq '^ +0 +0% +[0-9.]+% +40kB +90\.91% +@t.lua:20$' "$tmp/growth.top"
finish
