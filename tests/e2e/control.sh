#!/bin/sh
# tests/e2e/control.sh: ljleak control against a real LuaJIT process that
# loaded the collector: its registration as text, JSON and single keys; a
# start and a stop request taken and answered; a refused option; malformed,
# stale and linked registrations, an unsafe run directory, planted links
# beside the request; usage errors and exit codes.
E2E_NAME=control
. tests/e2e/lib.sh
export LJLEAK_RUN_DIR=$tmp/run
worker=""
cleanup() {
  [ -z "$worker" ] || kill "$worker" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/root"

LUA_CPATH="$BUILD/lua/?.so;;" LJLEAK_ROOT=$tmp/root \
  luajit -l ljleak.collector testdata/apps/worker.lua 120 >"$tmp/worker.log" 2>&1 &
worker=$!
n=0; until [ -f "$LJLEAK_RUN_DIR/$worker" ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
check "the_worker_registered" test -f "$LJLEAK_RUN_DIR/$worker"

# Reading.
"$LJLEAK" control "$worker" >"$tmp/text" 2>"$tmp/text.err"
check "a_registration_reads_with_exit_0" test $? = 0 -a ! -s "$tmp/text.err"
check "text_is_the_files_key_lines" sh -c "tail -n +2 '$LJLEAK_RUN_DIR/$worker' | cmp -s - '$tmp/text'"
check "get_prints_one_value_a_line" test "$("$LJLEAK" control --get pid --get state "$worker" | tr '\n' ' ')" = "$worker idle "
check "get_root_is_the_collectors_root" test "$("$LJLEAK" control --get root "$worker")" = "$tmp/root"
"$LJLEAK" control --format json "$worker" >"$tmp/json"
if command -v python3 >/dev/null; then
  check "json_parses_with_numbers_and_strings" python3 -c "
import json, sys
d = json.load(open('$tmp/json'))
sys.exit(0 if d['pid'] == $worker and d['state'] == 'idle' and d['error'] == '' else 1)"
fi
LJLEAK_RUN_DIR= "$LJLEAK" control --run-dir "$LJLEAK_RUN_DIR" --get poll "$worker" >"$tmp/poll"
check "run_dir_option_reads_the_same" test "$(cat "$tmp/poll")" = thread

# A start request: taken, answered ok, a capture under the root; then a stop.
id=$("$LJLEAK" control --request start --set period=0.2 "$worker")
check "a_request_prints_its_id" test -n "$id"
n=0; until [ "$("$LJLEAK" control --get request "$worker")" = "$id" ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
check "the_start_is_answered_ok" test "$("$LJLEAK" control --get result "$worker")" = ok
check "the_worker_is_capturing" test "$("$LJLEAK" control --get state "$worker")" = capturing
dir=$("$LJLEAK" control --get dir "$worker")
check "the_capture_is_under_the_root" sh -c "case '$dir' in '$tmp/root/ljleak-$worker-'*) test -f '$dir/index' ;; *) false ;; esac"
"$LJLEAK" control --request stop --id stop-1 "$worker" >"$tmp/stop.id"
check "a_given_id_is_printed" test "$(cat "$tmp/stop.id")" = stop-1
n=0; until [ "$("$LJLEAK" control --get request "$worker")" = stop-1 ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
n=0; until [ "$("$LJLEAK" info --get stopped "$dir" 2>/dev/null)" = 1 ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
check "the_stop_ends_the_capture" test "$("$LJLEAK" info --get stop_reason "$dir")" = stop
check "the_request_file_is_taken" test ! -e "$LJLEAK_RUN_DIR/$worker.request"

# A value the collector refuses: its message in the registration.
id=$("$LJLEAK" control --request start --set period=soon "$worker")
n=0; until [ "$("$LJLEAK" control --get request "$worker")" = "$id" ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
check "a_refused_option_answers_error" test "$("$LJLEAK" control --get result "$worker")" = error
check "the_error_is_the_collectors" test "$("$LJLEAK" control --get error "$worker")" = "bad value 'soon' for period in the request"

# The request file (the worker stopped, so that it takes none): readable by
# all, written through no planted link.
kill -STOP "$worker"
"$LJLEAK" control --request stop --id planted "$worker" >/dev/null 2>&1
mode=$(stat -c %a "$LJLEAK_RUN_DIR/$worker.request" 2>/dev/null)
rm -f "$LJLEAK_RUN_DIR/$worker.request"
echo keep > "$tmp/victim"
ln -s "$tmp/victim" "$LJLEAK_RUN_DIR/$worker.request"
"$LJLEAK" control --request stop --id over-link "$worker" >/dev/null 2>&1
check "a_request_replaces_a_link_instead_of_following_it" \
  sh -c "test ! -L '$LJLEAK_RUN_DIR/$worker.request' && test \"\$(cat '$tmp/victim')\" = keep"
check "a_request_is_readable_by_all" test "$mode" = 644
check "no_temporary_file_is_left" test "$(ls "$LJLEAK_RUN_DIR" | grep -c '\.request\.')" = 0
rm -f "$LJLEAK_RUN_DIR/$worker.request"
kill -CONT "$worker"

# Registrations that are not the worker's, as it runs now.
mkdir -m 700 "$tmp/bad" "$tmp/stale" "$tmp/link" "$tmp/open"
sed 's/^pid=.*/pid=x/' "$LJLEAK_RUN_DIR/$worker" > "$tmp/bad/$worker"
"$LJLEAK" control --run-dir "$tmp/bad" "$worker" >/dev/null 2>"$tmp/bad.err"
check "a_malformed_registration_exits_3" test $? = 3
check "the_error_gives_the_file_and_byte_offset" grep -q "^ljleak control: error: $tmp/bad/$worker: byte 22: pid is not a whole number$" "$tmp/bad.err"
mkdir -m 700 "$tmp/bytes"
sed 's/^exe=.*/exe=\/opt\/a"b\\c\xff\x01d/' "$LJLEAK_RUN_DIR/$worker" > "$tmp/bytes/$worker"
"$LJLEAK" control --run-dir "$tmp/bytes" --format json "$worker" >"$tmp/bytes.json"
if command -v python3 >/dev/null; then
  check "json_parses_whatever_bytes_a_value_holds" python3 -c "
import json, sys
d = json.load(open('$tmp/bytes.json', encoding='utf-8'))
sys.exit(0 if d['exe'] == '/opt/a\"b\\\\c\ufffd\x01d' else 1)"
fi
sed 's/^started=.*/started=1/' "$LJLEAK_RUN_DIR/$worker" > "$tmp/stale/$worker"
"$LJLEAK" control --run-dir "$tmp/stale" "$worker" >/dev/null 2>"$tmp/stale.err"
check "an_earlier_processs_registration_exits_1" test $? = 1
check "it_says_an_earlier_process_left_it" grep -q 'left by an earlier process' "$tmp/stale.err"
ln -s "$LJLEAK_RUN_DIR/$worker" "$tmp/link/$worker"
"$LJLEAK" control --run-dir "$tmp/link" "$worker" >/dev/null 2>"$tmp/link.err"
check "a_linked_registration_is_refused_with_3" test $? = 3
cp "$LJLEAK_RUN_DIR/$worker" "$tmp/open/$worker"
chmod 777 "$tmp/open"
"$LJLEAK" control --run-dir "$tmp/open" "$worker" >/dev/null 2>"$tmp/open.err"
check "a_run_dir_others_may_write_holds_no_registration_exit_1" test $? = 1
"$LJLEAK" control --run-dir "$tmp/open" --request stop "$worker" >/dev/null 2>&1
check "no_request_goes_to_a_run_dir_others_may_write" test ! -e "$tmp/open/$worker.request"
if [ "$(id -u)" = 0 ]; then   # an nginx master's run directory is its workers'
  mkdir -m 700 "$tmp/others"
  cp "$LJLEAK_RUN_DIR/$worker" "$tmp/others/$worker"
  chown -R 65534 "$tmp/others"
  "$LJLEAK" control --run-dir "$tmp/others" "$worker" >/dev/null 2>&1
  check "another_users_run_dir_holds_no_registration_exit_1" test $? = 1
fi
"$LJLEAK" control --run-dir "$tmp/none" "$worker" >/dev/null 2>&1
check "no_run_dir_exits_1" test $? = 1
gone=$(sh -c 'echo $$')
"$LJLEAK" control "$gone" >/dev/null 2>"$tmp/gone.err"
check "no_process_exits_1" test $? = 1
check "it_says_no_process" grep -q "no process $gone" "$tmp/gone.err"
"$LJLEAK" control "$$" >/dev/null 2>&1
check "an_unregistered_process_exits_1" test $? = 1

# Usage.
usage() { "$LJLEAK" control "$@" >/dev/null 2>&1; test $? = 2; }
check "no_pid_is_a_usage_error" usage
check "a_bad_pid_is_a_usage_error" usage 12x
check "an_unknown_key_is_a_usage_error" usage --get nosuch "$worker"
check "a_bad_action_is_a_usage_error" usage --request restart "$worker"
check "set_without_request_is_a_usage_error" usage --set period=1 "$worker"
check "set_with_stop_is_a_usage_error" usage --request stop --set period=1 "$worker"
check "set_root_is_a_usage_error" usage --request start --set root=/x "$worker"
check "set_without_a_value_is_a_usage_error" usage --request start --set period "$worker"
check "get_with_json_is_a_usage_error" usage --format json --get pid "$worker"
check "get_with_request_is_a_usage_error" usage --request stop --get pid "$worker"
check "help_exits_0" sh -c "'$LJLEAK' control --help | grep -q '^usage: ljleak control'"

kill "$worker"; wait "$worker" 2>/dev/null; worker=""
finish
