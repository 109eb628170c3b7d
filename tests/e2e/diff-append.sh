#!/bin/sh
# tests/e2e/diff-append.sh: a string kept and appended to (testdata/append/log_leak.lua), the
# leak that is a new copy at every append. With boundaries the collector forces (--every), it
# is growing at its line; it was steady (exit 0), its last segment read as a flush. With no
# option, the program's own cycles count its newest copy young and see it flat: the forced
# boundaries still show it growing, so the result is inconclusive (exit 5) and says so and
# what to do; it passed (exit 0). --forced-only then flags it (exit 1). The same leak beside a
# flushed buffer, on a trace (testdata/append/log_buffer.lua), with --every: flagged; with no
# option, inconclusive, as its newest copy is young at every boundary.
E2E_NAME=diff-append
. tests/e2e/lib.sh
prog=testdata/append/log_leak.lua
"$LJLEAK" run -o "$tmp/every" --every 64k "$prog" 20000 >/dev/null 2>&1
"$LJLEAK" diff "$tmp/every" >"$tmp/every.out" 2>&1
check "forced_boundaries_flag_the_appended_string" test $? = 1
check "at_its_line" grep -q "@testdata/append/log_leak.lua:9\$" "$tmp/every.out"
"$LJLEAK" run -o "$tmp/default" "$prog" 20000 >/dev/null 2>&1
"$LJLEAK" diff "$tmp/default" >"$tmp/default.out" 2>&1
check "with_no_option_it_is_inconclusive_not_a_pass" test $? = 5
check "saying_the_forced_boundaries_show_it_growing" \
  grep -q "grows at the full cycles the collector forced, but not at the program's own" "$tmp/default.out"
check "and_what_to_do" grep -q "what to do: judge the boundaries whose full cycles the collector forced alone" "$tmp/default.out"
"$LJLEAK" diff --forced-only "$tmp/default" >"$tmp/forced.out" 2>&1
check "forced_only_flags_it" test $? = 1
check "forced_only_at_its_line" grep -q "@testdata/append/log_leak.lua:9\$" "$tmp/forced.out"
"$LJLEAK" diff --format junit "$tmp/default" >"$tmp/junit.xml" 2>&1
check "junit_says_why" grep -q "it grows at the full cycles the collector forced, not at the program's own" "$tmp/junit.xml"
# The same leak beside a flushed buffer, in a loop the JIT compiles: a forced cycle's atomic
# phase waited for the trace to exit, the log's new copy made in between was young and left out
# (0 at such boundaries, then its size: a flush), and --every passed it (exit 0, 3 runs of 3).
"$LJLEAK" run -o "$tmp/buffer" --every 64k testdata/append/log_buffer.lua 60000 >/dev/null 2>&1
"$LJLEAK" diff "$tmp/buffer" >"$tmp/buffer.out" 2>&1
check "a_log_beside_a_flushed_buffer_on_a_trace_is_flagged" test $? = 1
check "at_its_line_too" grep -q "@testdata/append/log_buffer.lua:16\$" "$tmp/buffer.out"
# The same with no option, at 200000 requests: no forced boundary holds the copy, the newest is
# young at each of the program's own cycles, and the live bytes fell to 0 every few boundaries,
# read as a flush: steady, exit 0 (5 runs of 5). Counted with its young blocks, it grows.
"$LJLEAK" run -o "$tmp/young" testdata/append/log_buffer.lua 200000 >/dev/null 2>&1
"$LJLEAK" diff "$tmp/young" >"$tmp/young.out" 2>&1
check "a_copy_young_at_every_boundary_is_inconclusive_not_a_pass" test $? = 5
check "saying_it_grows_with_its_young_blocks" \
  grep -q "1 site grows with the blocks born during each boundary's cycle counted" "$tmp/young.out"
check "and_to_capture_with_every" grep -q "what to do: capture with \`ljleak run --every BYTES\`" "$tmp/young.out"
"$LJLEAK" diff --format json "$tmp/young" >"$tmp/young.json" 2>&1
check "the_json_says_young_growing" grep -q '"young_growing": true' "$tmp/young.json"
finish
