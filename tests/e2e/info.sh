#!/bin/sh
# tests/e2e/info.sh: ljleak info on real captures (stopped by --duration, ended with the
# script, killed mid-run), on boundary lines, on a cut and a malformed index, and its
# usage and exit codes.
E2E_NAME=info
. tests/e2e/lib.sh

# field FILE KIND KEY: KEY's raw value on the first KIND line of an index.
field() { awk -F'\t' -v kind="$2" -v key="$3=" '$1 == kind { for (i = 2; i <= NF; i++) if (index($i, key) == 1) { print substr($i, length(key) + 1); exit } }' "$1"; }
# has FILE TEXT: FILE has the line TEXT.
has() { grep -qxF -- "$2" "$1"; }

# A capture stopped by --duration, with a tab in an argument (escaped in the index).
tab=$(printf '\t')
"$LJLEAK" run -o "$tmp/duration" --snapshots none --period 0.2 --duration 1 testdata/demo/service.lua 1.5 "x${tab}y" \
  >/dev/null 2>&1
check "run_made_a_capture" test -f "$tmp/duration/index"
"$LJLEAK" info "$tmp/duration" >"$tmp/duration.out" 2>"$tmp/duration.err"
check "stopped_capture_exits_0" test $? = 0 -a ! -s "$tmp/duration.err"
check "prints_the_header_version" has "$tmp/duration.out" "version=1"
check "prints_the_pid_of_the_index" has "$tmp/duration.out" "pid=$(field "$tmp/duration/index" capture pid)"
check "prints_the_start_of_the_index" has "$tmp/duration.out" "start=$(field "$tmp/duration/index" capture start)"
check "prints_the_period" has "$tmp/duration.out" "period=0.2"
check "prints_the_command_with_its_tab_escaped" \
  grep -q '^command=.*service\.lua 1\.5 x\\ty$' "$tmp/duration.out"
segments=$(grep -c '^segment' "$tmp/duration/index")
check "counts_the_listed_segments" has "$tmp/duration.out" "segments=$segments"
check "lists_at_least_3_segments" test "$segments" -ge 3
check "counts_the_listed_boundaries" has "$tmp/duration.out" \
  "boundaries=$(grep -c '^boundary' "$tmp/duration/index")"
check "says_it_stopped" has "$tmp/duration.out" "stopped=1"
check "says_why_it_stopped" has "$tmp/duration.out" "stop_reason=duration"
check "gives_the_stop_time_of_the_index" has "$tmp/duration.out" \
  "stop_time=$(field "$tmp/duration/index" stop time)"
check "says_the_index_is_whole" has "$tmp/duration.out" "last_line_cut=0"
check "gives_the_stack_depth_of_the_sidecars" has "$tmp/duration.out" "stacks=16"
check "prints_the_keys_in_order" test "$(cut -d= -f1 "$tmp/duration.out" | tr '\n' ' ')" = \
  "version pid host exe ppid command luajit start sample period max_bytes gzip stacks luajit_flavour luajit_package luajit_package_version segments boundaries events bytes trace_events trace_lines heap_bytes files snapshots stopped stop_time stop_reason last_line_cut "
# The segment lines summed, as scripts added them up from the index.
sum() { awk -F'\t' -v key="$2=" '$1 == "segment" { for (i = 2; i <= NF; i++) if (index($i, key) == 1) n += substr($i, length(key) + 1) } END { printf "%d\n", n }' "$1"; }
check "sums_the_segments_events" has "$tmp/duration.out" "events=$(sum "$tmp/duration/index" events)"
check "sums_the_segments_bytes" has "$tmp/duration.out" "bytes=$(sum "$tmp/duration/index" bytes)"
check "has_events" test "$(sum "$tmp/duration/index" events)" -gt 0
if grep -q 'trace_events=' "$tmp/duration/index"; then
  check "sums_the_segments_trace_events" has "$tmp/duration.out" \
    "trace_events=$(sum "$tmp/duration/index" trace_events)"
  check "sums_the_segments_trace_lines" has "$tmp/duration.out" \
    "trace_lines=$(sum "$tmp/duration/index" trace_lines)"
else
  check "no_trace_keys_without_trace_counts" sh -c "! grep -q '^trace_' '$tmp/duration.out'"
fi
check "gives_the_last_segments_heap_bytes" has "$tmp/duration.out" \
  "heap_bytes=$(grep '^segment' "$tmp/duration/index" | tail -n 1 | tr '\t' '\n' | sed -n 's/^heap_bytes=//p')"
check "lists_the_segment_files_in_order" test "$("$LJLEAK" info --get files "$tmp/duration" | tr '\t' ' ')" = \
  "$(awk -F'\t' '$1 == "segment" { for (i = 2; i <= NF; i++) if ($i ~ /^file=/) printf "%s ", substr($i, 6) }' "$tmp/duration/index" | sed 's/ $//')"
check "get_events_prints_the_sum" test "$("$LJLEAK" info --get events "$tmp/duration")" = \
  "$(sum "$tmp/duration/index" events)"

# The LuaJIT built for: this build's package (mk/luajit.mk), as dpkg names it.
case "$(sh mk/luajit.sh installed)" in
  luajit2) flavour=openresty package=libluajit2-5.1-2 ;;
  *) flavour=debian package=libluajit-5.1-2 ;;
esac
check "names_the_luajit_flavour" has "$tmp/duration.out" "luajit_flavour=$flavour"
check "names_the_luajit_package" has "$tmp/duration.out" "luajit_package=$package"
check "names_the_luajit_package_version" has "$tmp/duration.out" \
  "luajit_package_version=$(dpkg-query -W -f='${Version}' "$package")"
check "names_the_running_luajit_version" has "$tmp/duration.out" "luajit=$(luajit -e 'io.write(jit.version)')"

"$LJLEAK" info --get stop_reason --get segments --get pid "$tmp/duration" >"$tmp/get.out"
check "get_prints_the_values_in_order" test "$(cat "$tmp/get.out")" = \
  "$(printf 'duration\n%s\n%s' "$segments" "$(field "$tmp/duration/index" capture pid)")"
"$LJLEAK" info --get command "$tmp/duration" >"$tmp/command.out"
check "get_escapes_like_the_index" grep -q 'x\\ty$' "$tmp/command.out"

"$LJLEAK" info --format json "$tmp/duration" >"$tmp/json.out"
check "json_exits_0" test $? = 0
check "json_has_the_reason" grep -q '^  "stop_reason": "duration",$' "$tmp/json.out"
check "json_has_typed_values" sh -c "grep -q '^  \"stopped\": true,\$' '$tmp/json.out' &&
  grep -q '^  \"segments\": $segments,\$' '$tmp/json.out' && grep -q '^  \"gzip\": false,\$' '$tmp/json.out'"
check "json_escapes_the_tab" grep -q '^  "command": ".*x\\ty",$' "$tmp/json.out"
if command -v python3 >/dev/null; then
  check "json_parses" python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$tmp/json.out"
fi

check "json_has_the_sums" sh -c "grep -q '^  \"events\": $(sum "$tmp/duration/index" events),\$' '$tmp/json.out' &&
  grep -q '^  \"files\": \[\"seg-0001\.memprof\", ' '$tmp/json.out'"

# A hand-made index whose text values hold bytes that are no UTF-8 (0xff), a
# control character, a quote and the index's escapes: the JSON is still JSON,
# the text keeps the escapes as the index has them and escapes the byte and
# the control character for the terminal (\xff, \x01).
mkdir -p "$tmp/bytes"
printf 'ljleak-index\tversion=1\ncapture\tpid=5\thost=h\001\tcommand=a\377b\001c"d\\\\e\\tf\nsegment\tseq=1\tfile=s\377\\t.memprof\tevents=3\tbytes=10\ttrace_events=2\ttrace_lines=1\theap_bytes=7\nsegment\tseq=2\tfile=t.memprof\tevents=4\tbytes=20\n' \
  > "$tmp/bytes/index"
"$LJLEAK" info --format json "$tmp/bytes" >"$tmp/bytes.json"
check "json_of_bytes_exits_0" test $? = 0
if command -v python3 >/dev/null; then
  check "json_of_bytes_parses" sh -c "python3 -c 'import json,sys; json.load(sys.stdin)' < '$tmp/bytes.json'"
  check "json_of_bytes_has_the_replacement_and_the_escapes" python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))
assert v["command"] == "a\ufffdb\x01c\"d\\e\tf", repr(v["command"])
assert v["host"] == "h\x01" and v["files"] == ["s\ufffd\t.memprof", "t.memprof"], v
assert (v["events"], v["bytes"], v["trace_events"], v["trace_lines"]) == (7, 30, 2, 1), v
assert "heap_bytes" not in v, v' "$tmp/bytes.json"
fi
"$LJLEAK" info "$tmp/bytes" >"$tmp/bytes.out"
check "text_of_bytes_escapes_the_index_bytes" \
  has "$tmp/bytes.out" 'command=a\xffb\x01c"d\\e\tf'
check "text_of_bytes_escapes_the_file_bytes" has "$tmp/bytes.out" "$(printf 'files=s\\xff\\t.memprof\tt.memprof')"
check "text_of_bytes_has_no_raw_byte" sh -c "! LC_ALL=C grep -q '[^ -~	]' '$tmp/bytes.out'"
check "sums_and_no_heap_bytes_of_a_last_segment_without_it" \
  test "$("$LJLEAK" info --get events --get bytes --get trace_events --get heap_bytes "$tmp/bytes" | tr '\n' ' ')" = "7 30 2  "

# A capture the script's end stops: reason exit.
"$LJLEAK" run -o "$tmp/exit" --period 0.2 testdata/demo/service.lua 0.5 >/dev/null 2>&1
check "ended_capture_gives_reason_exit" test "$("$LJLEAK" info --get stop_reason "$tmp/exit")" = exit

# A capture killed mid-run: no stop line, a .part beside the listed segments.
setsid "$LJLEAK" run -o "$tmp/killed" --period 0.2 testdata/demo/service.lua 60 >/dev/null 2>&1 &
run_pid=$!
n=0
while listed=$("$LJLEAK" info --get segments "$tmp/killed" 2>/dev/null) && [ "${listed:-0}" -lt 2 ] ||
      [ -z "$listed" ]; do
  [ $n -lt 200 ] || break
  sleep 0.1; n=$((n + 1))
done
kill -KILL "-$run_pid" 2>/dev/null
wait "$run_pid" 2>/dev/null
"$LJLEAK" info "$tmp/killed" >"$tmp/killed.out" 2>"$tmp/killed.err"
check "killed_capture_exits_0" test $? = 0 -a ! -s "$tmp/killed.err"
check "killed_capture_has_not_stopped" has "$tmp/killed.out" "stopped=0"
check "killed_capture_has_no_stop_keys" sh -c "! grep -q '^stop_' '$tmp/killed.out'"
check "killed_capture_counts_its_segments" has "$tmp/killed.out" \
  "segments=$(grep -c '^segment' "$tmp/killed/index")"
check "killed_capture_lists_2_segments_or_more" test "$(grep -c '^segment' "$tmp/killed/index")" -ge 2
check "killed_capture_left_a_part" sh -c "ls '$tmp/killed' | grep -q '\.part\$'"
check "killed_capture_get_of_an_absent_key_is_an_empty_line" \
  test "$("$LJLEAK" info --get stop_reason "$tmp/killed" | od -An -c | tr -d ' ')" = '\n'

# The index cut inside its last line, as a process killed mid-write leaves it.
mkdir -p "$tmp/cut"
size=$(wc -c < "$tmp/duration/index")
head -c $((size - 60)) "$tmp/duration/index" > "$tmp/cut/index"
"$LJLEAK" info "$tmp/cut" >"$tmp/cut.out" 2>"$tmp/cut.err"
check "cut_index_exits_0" test $? = 0 -a ! -s "$tmp/cut.err"
check "cut_index_says_so" has "$tmp/cut.out" "last_line_cut=1"
check "cut_index_has_no_stop" has "$tmp/cut.out" "stopped=0"

# An index with boundary lines (a full GC cycle each), interleaved with its
# segment lines as the collector writes them, the last two pointing into the
# segment being written.
mkdir -p "$tmp/boundaries"
printf 'ljleak-index\tversion=1\ncapture\tpid=9\tstart=100.000\n%s\n%s\n%s\n%s\n%s\n' \
  "$(printf 'boundary\tseq=1\tsegment=1\tevents=0\ttime=100.001\tgc_cycles=1\theap_bytes=900\tallocated=0\tyoung_from=0\tcause=start')" \
  "$(printf 'boundary\tseq=2\tsegment=1\tevents=40\ttime=101.000\tgc_cycles=2\theap_bytes=990\tallocated=4096\tyoung_from=31\tcause=gc')" \
  "$(printf 'segment\tseq=1\tfile=seg-0001.memprof\tstart=100.000\tend=102.000\tevents=50\tcomplete=0')" \
  "$(printf 'boundary\tseq=3\tsegment=2\tevents=5\ttime=102.500\tgc_cycles=3\theap_bytes=1000\tallocated=8192\tyoung_from=5\tcause=every')" \
  "$(printf 'boundary\tseq=4\tsegment=2\tevents=9\ttime=103.000\tgc_cycles=4\theap_bytes=1010\tallocated=9000\tyoung_from=6\tcause=call')" \
  > "$tmp/boundaries/index"
"$LJLEAK" info "$tmp/boundaries" >"$tmp/boundaries.out" 2>"$tmp/boundaries.err"
check "boundary_lines_exit_0" test $? = 0 -a ! -s "$tmp/boundaries.err"
check "counts_4_boundary_lines" has "$tmp/boundaries.out" "boundaries=4"
check "counts_1_segment_beside_them" has "$tmp/boundaries.out" "segments=1"
check "get_boundaries_prints_the_count" test "$("$LJLEAK" info --get boundaries "$tmp/boundaries")" = 4
"$LJLEAK" info --format json "$tmp/boundaries" >"$tmp/boundaries.json"
check "json_has_the_boundary_count" grep -q '^  "boundaries": 4,$' "$tmp/boundaries.json"
printf 'boundary\tseq=5\tsegment=2\tevents=12\ttime=103.5\tgc_cyc' >> "$tmp/boundaries/index"
check "cut_boundary_line_is_not_counted" test "$("$LJLEAK" info --get boundaries "$tmp/boundaries")" = 4
printf 'ljleak-index\tversion=1\nboundary\tseq=1\tsegment=1\tevents=5\tyoung_from=6\n' > "$tmp/boundaries/index"
"$LJLEAK" info "$tmp/boundaries" >/dev/null 2>"$tmp/boundaries.err"
check "boundary_young_from_after_its_events_exits_3" test $? = 3
check "boundary_young_from_after_its_events_names_the_line" has "$tmp/boundaries.err" \
  "ljleak info: error: $tmp/boundaries/index: byte 23: boundary line: young_from is greater than events"

# A malformed index: exit 3, the file and the byte offset named.
mkdir -p "$tmp/bad"
printf 'ljleak-index\tversion=1\ncapture\tpid=7\nsegment\tseq=1\tfile=seg-0001.memprof\tend=12x\n' \
  > "$tmp/bad/index"
"$LJLEAK" info "$tmp/bad" >"$tmp/bad.out" 2>"$tmp/bad.err"
check "malformed_index_exits_3" test $? = 3 -a ! -s "$tmp/bad.out"
check "malformed_index_message_names_file_and_offset" has "$tmp/bad.err" \
  "ljleak info: error: $tmp/bad/index: byte 73: segment line: end is not a number"
check "diff_reports_the_same_malformed_index" \
  sh -c "'$LJLEAK' diff -q '$tmp/bad' 2>&1 >/dev/null | grep -qF '$tmp/bad/index: byte 73: segment line: end is not a number'"
printf 'capture\tpid=7\n' > "$tmp/bad/index"
"$LJLEAK" info "$tmp/bad" 2>"$tmp/header.err"
check "index_without_header_exits_3" test $? = 3
check "index_without_header_says_so" has "$tmp/header.err" \
  "ljleak info: error: $tmp/bad/index: byte 0: the first line is not the ljleak-index header"

# No capture there.
mkdir -p "$tmp/none" "$tmp/empty" && : > "$tmp/empty/index"
"$LJLEAK" info "$tmp/none" 2>"$tmp/none.err"
check "no_index_exits_3" test $? = 3
check "no_index_names_the_file" grep -qF "ljleak info: error: $tmp/none/index: cannot open: " "$tmp/none.err"
"$LJLEAK" info --get version "$tmp/empty" >"$tmp/empty.out" 2>"$tmp/empty.err"
check "empty_index_is_no_capture" test $? = 3 -a ! -s "$tmp/empty.out"
check "empty_index_says_it_has_no_header" grep -qF "$tmp/empty/index: byte 0: no ljleak-index header" "$tmp/empty.err"

# Usage.
"$LJLEAK" info --help >"$tmp/help.out"
check "help_exits_0_with_usage" test $? = 0 -a -n "$(grep '^usage: ljleak info' "$tmp/help.out")"
"$LJLEAK" info >/dev/null 2>"$tmp/usage.err"
check "no_directory_exits_2" test $? = 2 -a -n "$(grep '^usage: ljleak info' "$tmp/usage.err")"
"$LJLEAK" info --get nope "$tmp/duration" >/dev/null 2>"$tmp/usage.err"
check "unknown_key_exits_2" test $? = 2 -a -n "$(grep "bad value 'nope' for --get" "$tmp/usage.err")"
"$LJLEAK" info --format xml "$tmp/duration" >/dev/null 2>&1
check "unknown_format_exits_2" test $? = 2
"$LJLEAK" info --bogus "$tmp/duration" >/dev/null 2>&1
check "unknown_option_exits_2" test $? = 2
"$LJLEAK" info "$tmp/duration" "$tmp/exit" >/dev/null 2>&1
check "two_directories_exit_2" test $? = 2
"$LJLEAK" info --format json --get pid "$tmp/duration" >/dev/null 2>&1
check "get_with_json_exits_2" test $? = 2

finish
