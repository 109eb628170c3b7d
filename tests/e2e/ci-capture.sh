#!/bin/sh
# tests/e2e/ci-capture.sh: ci/capture against a real long-running LuaJIT
# process (testdata/apps/worker.lua, which loaded the collector module): each
# run starts and stops a capture through the control files and leaves a
# report beside it; options and refusals reach ci/capture;
# --keep and --keep-days prune; processes it cannot capture are refused.
E2E_NAME=capture
. tests/e2e/lib.sh
export LJLEAK
# The registrations go to a directory of this test's own (ci/capture reads
# LJLEAK_RUN_DIR too).
export LJLEAK_RUN_DIR=$tmp/run
root=$tmp/root
mkdir -p "$root"
worker="" other="" dir1="" dir2="" dir3=""
cleanup() {
  [ -z "$worker" ] || kill "$worker" 2>/dev/null
  [ -z "$other" ] || kill "$other" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
captures() { find "$root" -mindepth 1 -maxdepth 1 -name 'ljleak-*' -type d | sort; }

# A registration left by a killed process (no exit handler ran) is removed
# when the next process registers.
mkdir -p "$LJLEAK_RUN_DIR" && chmod 700 "$LJLEAK_RUN_DIR"
gone=$(sh -c 'echo $$')
printf 'pid=%s\n' "$gone" > "$LJLEAK_RUN_DIR/$gone"
printf 'id=x\naction=start\n' > "$LJLEAK_RUN_DIR/$gone.request"
# The worker: stock luajit with the module loaded, a segment every 0.25 s
# (a forced full GC cycle ends each, so a short capture has enough of them).
LUA_CPATH="$BUILD/lua/?.so;;" LJLEAK_ROOT=$root LJLEAK_PERIOD=0.25 LJLEAK_FORCE_GC=1 \
  luajit -l ljleak.collector testdata/apps/worker.lua 300 >"$tmp/worker.log" 2>&1 &
worker=$!
n=0
until grep -q collector.so "/proc/$worker/maps" 2>/dev/null || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
check "worker_loaded_the_collector" grep -q collector.so "/proc/$worker/maps"
n=0; until [ -f "$LJLEAK_RUN_DIR/$worker" ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
check "a_dead_processs_registration_is_pruned" sh -c "test ! -e '$LJLEAK_RUN_DIR/$gone' && test ! -e '$LJLEAK_RUN_DIR/$gone.request'"
cat "$tmp/worker.log"

# Refusals.
ci/capture >/dev/null 2>&1
check "no_arguments_is_a_usage_error" test $? = 2
ci/capture --pid "$worker" >/dev/null 2>&1
check "missing_duration_is_a_usage_error" test $? = 2
sleep 60 & other=$!
ci/capture --pid "$other" --duration 1 >/dev/null 2>"$tmp/other.err"
check "a_process_without_the_collector_is_refused_with_3" test $? = 3
check "the_refusal_names_the_module" grep -q 'has not loaded the ljleak collector' "$tmp/other.err"
kill "$other"; wait "$other" 2>/dev/null; other=""
# A process with LJLEAK_DIR set: a request wants a new directory under the
# root, so the fixed directory is left alone.
LUA_CPATH="$BUILD/lua/?.so;;" LJLEAK_DIR=$tmp/fixed LJLEAK_ROOT=$tmp/fixed-root \
  luajit -l ljleak.collector testdata/apps/worker.lua 60 >/dev/null 2>&1 &
other=$!
n=0
until [ -f "$LJLEAK_RUN_DIR/$other" ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
check "the_collector_registers_the_process" grep -qx "pid=$other" "$LJLEAK_RUN_DIR/$other"
check "the_registration_names_the_executable" grep -qx "exe=$(readlink -f "$(command -v luajit)")" "$LJLEAK_RUN_DIR/$other"
check "the_registration_names_the_root" grep -qx "root=$tmp/fixed-root" "$LJLEAK_RUN_DIR/$other"
ci/capture --pid "$other" --duration 1 --quiet >/dev/null 2>"$tmp/fixed.err"
check "a_process_with_ljleak_dir_captures_under_its_root" test "$(ls -d "$tmp"/fixed-root/ljleak-"$other"-* 2>/dev/null | wc -l)" = 1
check "ljleak_dir_is_left_alone" test ! -e "$tmp/fixed"
# An option the collector cannot honour: its reason, exit 3, no capture.
ci/capture --pid "$other" --duration 1 --set period=soon >/dev/null 2>"$tmp/bad.err"
check "a_refused_option_exits_3" test $? = 3
check "the_refusal_gives_the_collectors_reason" grep -q "cannot start a capture: bad value 'soon' for period in the request" "$tmp/bad.err"
ci/capture --pid "$other" --duration 1 --root /dev/null/caps >/dev/null 2>"$tmp/root.err"
check "an_unwritable_root_exits_3" test $? = 3
check "the_refusal_says_why_the_root_cannot_be_made" grep -q "cannot create /dev/null/caps.*: Not a directory" "$tmp/root.err"
check "no_signal_option" sh -c "ci/capture --pid $other --duration 1 --signal USR2 2>&1 >/dev/null | grep -q 'sends no signal'"
kill "$other"; wait "$other" 2>/dev/null; other=""
# A malformed variable in the process's environment refuses a request.
LUA_CPATH="$BUILD/lua/?.so;;" LJLEAK_ROOT=$tmp/fixed-root LJLEAK_PERIOD=soon \
  luajit -l ljleak.collector testdata/apps/worker.lua 60 >/dev/null 2>&1 &
other=$!
n=0
until [ -f "$LJLEAK_RUN_DIR/$other" ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
ci/capture --pid "$other" --duration 1 >/dev/null 2>"$tmp/env.err"
check "a_bad_environment_value_exits_3" test $? = 3
check "the_refusal_names_the_variable" grep -q "cannot start a capture: bad value 'soon' in LJLEAK_PERIOD" "$tmp/env.err"
kill "$other"; wait "$other" 2>/dev/null; other=""
LUA_CPATH="$BUILD/lua/?.so;;" luajit -l ljleak.collector -e 'io.write(require("ffi").C.getpid and "" or "")' \
  -e 'print(io.open("/proc/self/stat"):read("*n"))' >"$tmp/short.out" 2>&1
short=$(cat "$tmp/short.out")
check "the_registration_is_removed_at_exit" sh -c "test -n '$short' && test ! -e '$LJLEAK_RUN_DIR/$short'"
check "the_run_dir_is_private" test "$(stat -c %a "$LJLEAK_RUN_DIR")" = 700
pid_gone=$(sh -c 'echo $$')
ci/capture --pid "$pid_gone" --duration 1 >/dev/null 2>"$tmp/gone.err"
check "a_missing_process_is_refused_with_3" test $? = 3

# Three captures with --keep 2: each has segments and a report; two remain.
for run in 1 2 3; do
  ci/capture --pid "$worker" --duration 4 --keep 2 >"$tmp/run$run.out" 2>"$tmp/run$run.err"
  status=$?
  check "run_${run}_exits_1_for_the_leaking_worker" test "$status" = 1
  [ "$status" = 1 ] || { cat "$tmp/run$run.out" "$tmp/run$run.err"; }
  dir=$(sed -n 's/^capture: capturing into \(.*\) for .* (process .*/\1/p' "$tmp/run$run.err")
  case $run in 1) dir1=$dir ;; 2) dir2=$dir ;; 3) dir3=$dir ;; esac
  check "run_${run}_names_its_capture" test -n "$dir"
  check "run_${run}_capture_is_stopped" test "$("$LJLEAK" info --get stopped "$dir" 2>/dev/null)" = 1
  segments=$("$LJLEAK" info --get segments "$dir" 2>/dev/null)
  check "run_${run}_capture_has_at_least_8_segments" test "${segments:-0}" -ge 8
  for f in report.html report.txt result.json; do
    check "run_${run}_writes_$f" test -s "$dir/$f"
  done
  check "run_${run}_report_names_the_leak" grep -q '@testdata/apps/worker.lua:17' "$dir/report.txt"
  check "run_${run}_prints_the_report" grep -q '@testdata/apps/worker.lua:17' "$tmp/run$run.out"
done
check "keep_2_leaves_two_captures" test "$(captures | wc -l)" = 2
check "keep_2_removes_the_oldest" test ! -e "$dir1"
check "keep_2_keeps_the_newest_two" sh -c "test -d '$dir2' && test -d '$dir3'"

# --keep-days: a capture ten days old goes, the recent ones stay.
old=$root/ljleak-1-old
mkdir -p "$old"
printf 'ljleak-index\tversion=1\ncapture\tpid=1\nstop\ttime=1\treason=stop\n' > "$old/index"
touch -d '10 days ago' "$old/index"
ci/capture --pid "$worker" --duration 2 --keep-days 5 --quiet >"$tmp/run4.out" 2>"$tmp/run4.err"
status=$?
check "keep_days_run_succeeds" sh -c "test $status = 0 || test $status = 1"
check "quiet_prints_no_report" test ! -s "$tmp/run4.out"
check "keep_days_removes_the_old_capture" test ! -e "$old"
check "keep_days_keeps_recent_captures" test "$(captures | wc -l)" = 3

# A capture already running (started by hand) is not stopped by mistake.
kill -USR2 "$worker"
n=0
until [ "$(captures | wc -l)" = 4 ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
ci/capture --pid "$worker" --duration 1 >/dev/null 2>"$tmp/busy.err"
check "a_running_capture_is_refused_with_3" test $? = 3
check "the_refusal_says_it_is_capturing" grep -q 'capturing already' "$tmp/busy.err"
kill -USR2 "$worker"
n=0
until [ "$("$LJLEAK" control --get state "$worker" 2>/dev/null)" = idle ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done

# SIGTERM to ci/capture in the middle of its capture (cron's time limit):
# the process is asked to stop, so that the next night's run is not refused
# as "capturing already"; the script dies of the signal, with no report.
before=$(captures | wc -l)
ci/capture --pid "$worker" --duration 60 >/dev/null 2>"$tmp/term.err" &
capture_pid=$!
n=0
until [ "$(captures | wc -l)" -gt "$before" ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
sleep 0.5
kill -TERM "$capture_pid"
wait "$capture_pid"
check "sigterm_ends_ci_capture_by_the_signal" test $? = 143
n=0
until [ "$("$LJLEAK" control --get state "$worker" 2>/dev/null)" = idle ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
check "sigterm_stops_the_processs_capture" test "$("$LJLEAK" control --get state "$worker" 2>/dev/null)" = idle
check "sigterm_is_explained" grep -q "^capture: stopped by SIGTERM: asked process $worker to stop its capture" "$tmp/term.err"
check "sigterm_writes_no_report" test -z "$(find "$root" -name report.txt -newer "$tmp/term.err")"
ci/capture --pid "$worker" --duration 1 --quiet >/dev/null 2>"$tmp/after-term.err"
status=$?
check "the_run_after_a_sigterm_captures" sh -c "test $status = 0 || test $status = 1 || test $status = 5"
[ "$status" = 0 ] || [ "$status" = 1 ] || [ "$status" = 5 ] || cat "$tmp/after-term.err"

# A process stopped for a while (a debugger, a long pause) misses the stop
# request's deadline: exit 4, and the request stays, so that the process
# stops its capture once it runs again instead of capturing without end.
(sleep 1; kill -STOP "$worker") &
pauser=$!
ci/capture --pid "$worker" --duration 1.5 --wait-stop 1 --quiet >/dev/null 2>"$tmp/paused.err"
status=$?
wait "$pauser"
kill -CONT "$worker"
check "a_late_stop_exits_4" test "$status" = 4
check "a_late_stop_is_explained" grep -q "did not take the stop request within 1 s (it stays" "$tmp/paused.err"
n=0
until [ "$("$LJLEAK" control --get state "$worker" 2>/dev/null)" = idle ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
check "a_late_stop_is_taken_when_the_process_runs_again" test "$("$LJLEAK" control --get state "$worker" 2>/dev/null)" = idle

kill "$worker"; wait "$worker" 2>/dev/null; worker=""
finish
