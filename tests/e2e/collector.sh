#!/bin/sh
# tests/e2e/collector.sh: ljleak run and the collector module end to end:
# every segment of plain, rotated and gzip captures is read without error by
# ljleak summary; the runner's usage and errors; the module in stock luajit.
E2E_NAME=collector
. tests/e2e/lib.sh

# segments DIR: the files the index lists, one per line.
segments() { "$LJLEAK" info --get files "$1" | tr '\t' '\n'; }

# all_segments_read DIR: ljleak summary --strict reads every listed segment.
all_segments_read() {
  n=0
  for f in $(segments "$1"); do
    "$LJLEAK" summary --strict "$1/$f" > "$tmp/summary.out" 2> "$tmp/summary.err" || { cat "$tmp/summary.err"; return 1; }
    n=$((n + 1))
  done
  [ "$n" -ge "${2:-1}" ]
}

"$LJLEAK" run -o "$tmp/plain" tests/lua/collector_jit.lua > "$tmp/out" 2> "$tmp/err"
check "run_exits_0_and_prints_like_luajit" test $? = 0 -a "$(cat "$tmp/out")" = "jit workload done"
check "plain_capture_reads_with_summary" all_segments_read "$tmp/plain" 1
# Compiled code's allocations are charged to their lines (the table of line
# 4 is made in the loop's trace), none to a trace.
check "summary_names_compiled_lines" grep -q "^@tests/lua/collector_jit.lua:4: " "$tmp/summary.out"
check "summary_names_no_trace_site" sh -c "! grep -q '^TRACE ' '$tmp/summary.out'"

"$LJLEAK" run -o "$tmp/rotated" --max-bytes 64k tests/lua/collector_coroutines.lua > /dev/null 2>&1
check "rotated_capture_every_segment_reads" all_segments_read "$tmp/rotated" 3
check "rotated_capture_has_no_part_left" test -z "$(ls "$tmp/rotated" | grep '\.part$')"

"$LJLEAK" run -o "$tmp/gz" --gzip --max-bytes 64k tests/lua/collector_ffi.lua > /dev/null 2>&1
check "gzip_capture_every_segment_reads" all_segments_read "$tmp/gz" 1
check "gzip_segments_are_named_gz" test -n "$(segments "$tmp/gz" | grep '\.memprof\.gz$')"

(cd testdata/tarantool-memprof && "../../$LJLEAK" run -o "$tmp/basic" -j off basic.lua 4000 > /dev/null)
"$LJLEAK" summary "$tmp/basic/seg-0001.memprof" > "$tmp/basic.txt"
check "jitoff_basic_summary_has_line_4" grep -qx "@basic.lua:4: 4000 events	+256000B	-0B" "$tmp/basic.txt"
check "jitoff_basic_summary_has_the_loadstring_alias" grep -q "^function_alias_1:2: 2020 events" "$tmp/basic.txt"

LUA_INIT='io.write("init ")' "$LJLEAK" run -o "$tmp/init" -e 'io.write("e ")' tests/lua/collector_jit.lua > "$tmp/out" 2>&1
check "run_runs_lua_init_then_e_then_the_script" test "$(cat "$tmp/out")" = "init e jit workload done"

# -v, -O and -E as luajit has them; -b and -i are refused (they run no script).
jitflags='local t = {jit.status()} for i = 2, #t do io.write(t[i], " ") end print()'
"$LJLEAK" run -o "$tmp/v" -v /dev/null > "$tmp/out" 2> "$tmp/err"
check "run_v_prints_luajit_version" test "$(cat "$tmp/out")" = "$(luajit -v)"
# and, when the script returns, how many allocations of compiled code got their line
check "run_v_counts_compiled_allocations" test "$(cat "$tmp/err")" = "ljleak: no allocations by compiled code"
"$LJLEAK" run -o "$tmp/opt" -O-fold,-cse -e "$jitflags" /dev/null > "$tmp/out" 2>&1
luajit -O-fold,-cse -e "$jitflags" > "$tmp/want" 2>&1
check "run_O_sets_jit_flags_like_luajit" cmp -s "$tmp/out" "$tmp/want"
check "run_O_turned_fold_off" test -z "$(grep -w fold "$tmp/out")"
LUA_INIT='io.write("init ")' LUA_PATH='/nowhere/?.lua' "$LJLEAK" run -o "$tmp/noenv" -E \
  -e 'io.write(tostring(package.path:find("nowhere") == nil))' /dev/null > "$tmp/out" 2>&1
check "run_E_ignores_lua_init_and_lua_path" test "$(cat "$tmp/out")" = "true"
"$LJLEAK" run -b x.lua x.out > /dev/null 2> "$tmp/err"
check "run_b_is_refused_with_exit_2" test $? = 2 -a -n "$(grep 'runs no script' "$tmp/err")"

"$LJLEAK" run --help > "$tmp/help"
check "run_help_exits_0_with_usage" test $? = 0 -a -n "$(grep '^usage: ljleak run' "$tmp/help")"
"$LJLEAK" run --bogus x.lua > /dev/null 2>&1
check "run_unknown_option_exits_2" test $? = 2
"$LJLEAK" run > /dev/null 2>&1
check "run_without_script_exits_2" test $? = 2
"$LJLEAK" run -o "$tmp/missing" "$tmp/no-such.lua" 2> "$tmp/err"
check "run_missing_script_exits_1_like_luajit" test $? = 1 -a -n "$(grep '^luajit: cannot open' "$tmp/err")"
mkdir -p "$tmp/ro" && echo x > "$tmp/ro/index"
"$LJLEAK" run -o "$tmp/ro" tests/lua/collector_jit.lua > "$tmp/out" 2> "$tmp/err"
check "run_into_an_existing_capture_exits_4" test $? = 4 -a ! -s "$tmp/out"

# The run's last counted boundary is the main chunk's return, with what its
# locals held still live: the records of line 8 and the string table of
# line 9, made last of all, are there at the series' last point.
"$LJLEAK" run -o "$tmp/locals" tests/lua/collector_main_locals.lua > /dev/null 2>&1
check "run_records_a_return_boundary_before_the_exit_one" \
  sh -c "grep '^boundary' '$tmp/locals/index' | tail -n 2 | sed 's/.*cause=//' | paste -sd ' ' - | grep -qx 'return exit'"
"$LJLEAK" diff -q --format json -o "$tmp/locals.json" "$tmp/locals" > /dev/null 2>&1
last_live() {
  luajit - "$1" "$2" <<'LUA'
local text = io.open(arg[1]):read("*a")
local site = text:find('"name": "' .. arg[2] .. '"', 1, true)
local series = site and text:match('"series": %[([%d, ]*)%]', site) or ""
local last = 0
for v in series:gmatch("%d+") do last = tonumber(v) end
print(last)
LUA
}
check "return_boundary_holds_the_main_chunks_records" \
  test "$(last_live "$tmp/locals.json" "@tests/lua/collector_main_locals.lua:8")" -ge 200000
check "return_boundary_holds_the_main_chunks_last_table" \
  test "$(last_live "$tmp/locals.json" "@tests/lua/collector_main_locals.lua:9")" -ge 100000
check "its_boundaries_cover_the_whole_run" grep -Eq '"coverage": (1|0\.99)' "$tmp/locals.json"

cat > "$tmp/module.lua" <<'LUA'
local c = require "ljleak.collector"
assert(c.start{dir = arg[1], max_bytes = 65536, gzip = true})
local t = {} for i = 1, 200000 do t[i % 1000 + 1] = {i} end
assert(c.stop())
local s = c.status()
assert(s.segments >= 1 and s.events > 200000 and s.bytes > 0 and not s.active)
LUA
LUA_CPATH="$BUILD/lua/?.so;;" LJLEAK_SIGNAL=none luajit "$tmp/module.lua" "$tmp/module" 2> "$tmp/err"
check "module_in_stock_luajit_captures" test $? = 0
check "module_capture_every_segment_reads" all_segments_read "$tmp/module" 1

finish
