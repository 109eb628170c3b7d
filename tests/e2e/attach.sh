#!/bin/sh
# tests/e2e/attach.sh: ljleak attach against plain luajit processes that never loaded the
# collector: a leaking loop (JIT on) captured mid-run twice, its leak found at its line, the
# process running on with the same pid and its own output; a loop whose traces are stitched
# across a C call (attached while the recorder runs, the process lives); two Lua states (refused without
# --state, captured with it); a process that loaded the collector,
# and one already capturing (refused); a process blocked in C (no safe point: given up, left
# running); a process without LuaJIT, a missing gdb, bad usage: each refused; a gdb whose answer
# never ends is ended.
E2E_NAME=attach
. tests/e2e/lib.sh
export LJLEAK_RUN_DIR=$tmp/run
pids=""
cleanup() {
  for p in $pids; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
if ! command -v gdb >/dev/null 2>&1; then
  echo "attach: gdb is not installed (apt-get install gdb)"; bad "gdb_installed"; finish; exit
fi
alive() { kill -0 "$1" 2>/dev/null; }
# a growing site of the diff's text output at this line of leak.lua
grows_at() { sed -n '/^growing/,/^$/p' "$1" | grep -q "@testdata/attach/leak.lua:$2"; }

# Every wait of attach's is bounded, whatever gdb's output or the process do. Stand-ins for gdb:
# one stuck in the call into the process (a process whose dlopen never returns: another of its
# threads holds the loader's lock), ended 60 s after it said "calling" (in the background, checked
# at the end); one with more lines about the process than attach keeps, stuck before any call.
sleep 300 &
victim=$!; pids="$pids $victim"
printf '#!/bin/sh\necho "ljleak-attach: calling"\nexec sleep 300\n' >"$tmp/gdb-calling"
printf '#!/bin/sh\nfor i in $(seq 300); do echo "[New LWP $i] a line about the process"; done\nexec sleep 300\n' >"$tmp/gdb-flood"
chmod +x "$tmp/gdb-calling" "$tmp/gdb-flood"
(LJLEAK_GDB=$tmp/gdb-calling timeout 90 "$LJLEAK" attach --wait 1 "$victim" 2>"$tmp/calling.err"
 echo $? >"$tmp/calling.rc") &
calling=$!
LJLEAK_GDB=$tmp/gdb-flood timeout 30 "$LJLEAK" attach --wait 1 "$victim" 2>"$tmp/flood.err"
check "a_flood_of_gdb_output_is_still_bounded_by_wait" test $? = 4
check "as_no_safe_point" grep -q "entered no system call where loading is safe within 1 s" "$tmp/flood.err"
# The answer through gdb is the process's text (the collector's message, dlerror, gdb's lines about
# it): printed escaped.
printf '#!/bin/sh\nprintf "ljleak-attach: refused \\033]2;owned\\007 \\302\\233\\n"\n' >"$tmp/gdb-esc"
chmod +x "$tmp/gdb-esc"
LJLEAK_GDB=$tmp/gdb-esc "$LJLEAK" attach --wait 1 "$victim" 2>"$tmp/gdbesc.err"
check "an_answer_with_controls_is_refused" test $? = 3
check "printed_escaped" sh -c "grep -qF 'refused: \\x1b]2;owned\\x07 \\u009b' '$tmp/gdbesc.err' && ! grep -q \"\$(printf '\\033')\" '$tmp/gdbesc.err'"

# Blocked in C (for 20 s): no Lua instruction within --wait; the hook is disarmed and the process
# goes on, to wake at the end of this script.
luajit testdata/attach/blocked.lua 20 >"$tmp/blocked.out" 2>&1 &
blocked=$!; pids="$pids $blocked"
sleep 0.5
"$LJLEAK" attach --wait 1 -o "$tmp/cap5" "$blocked" 2>"$tmp/a5.err"
check "a_process_blocked_in_c_is_given_up" test $? = 4
check "saying_why" grep -q "ran no Lua code within 1 s" "$tmp/a5.err"
check "leaving_it_running" alive "$blocked"

luajit testdata/attach/leak.lua 12000 >"$tmp/leak.out" 2>&1 &
leak=$!; pids="$pids $leak"
sleep 0.5
"$LJLEAK" attach --duration 2 --every 16k -o "$tmp/cap1" "$leak" >"$tmp/a1.out" 2>"$tmp/a1.err"
check "attach_captures_with_exit_0" test $? = 0
check "attach_says_where" grep -q "capturing process $leak into $tmp/cap1" "$tmp/a1.err"
check "the_capture_is_complete" grep -q "^stop.*reason=duration" "$tmp/cap1/index"
"$LJLEAK" diff "$tmp/cap1" >"$tmp/d1" 2>&1
check "its_diff_flags_the_leak" test $? = 1
check "the_leak_is_at_its_line" grows_at "$tmp/d1" 6
check "the_process_runs_on_after_the_capture" alive "$leak"
# The VM's allocator, read from its global state after the capture, is the one it had before.
gstate=$(sed -n 's/.*global state \(0x[0-9a-f]*\), allocator .*/\1/p' "$tmp/a1.err")
allocf=$(sed -n 's/.*global state 0x[0-9a-f]*, allocator \(0x[0-9a-f]*\);.*/\1/p' "$tmp/a1.err")
now_allocf=$(gdb -q -batch -nx -p "$leak" -ex "x/gx $gstate" 2>/dev/null | sed -n "s/^$gstate:[^0]*\(0x[0-9a-f]*\).*/\1/p" | sed 's/0x0*/0x/')
check "its_allocator_is_its_own_again" test -n "$allocf" -a "$now_allocf" = "$allocf"
# The state was found from outside while the process ran (no scan at the stop), and taken there.
found=$(sed -n 's/.*a Lua state, global state \(0x[0-9a-f]*\), found while it runs$/\1/p' "$tmp/a1.err")
check "its_state_was_found_before_the_stop" test -n "$found" -a "$found" = "$gstate"
# --state: the state by its global state's address, as attach said it; another address is refused.
"$LJLEAK" attach --state 0x1000 --duration 1 -o "$tmp/cap-nostate" "$leak" 2>"$tmp/nostate.err"
check "a_state_that_is_not_there_is_refused" test $? = 3
check "naming_the_one_there_is" grep -q "no Lua state at 0x1000 (this process has: $gstate)" "$tmp/nostate.err"
check "its_registration_says_idle_attached" test "$("$LJLEAK" control --get state --get poll "$leak" | tr "\n" " ")" = "idle attach "
"$LJLEAK" attach --state "$gstate" --duration 2 --every 16k -o "$tmp/cap2" "$leak" >/dev/null 2>"$tmp/a2.err"
check "a_second_attach_captures" test $? = 0 -a -f "$tmp/cap2/index"
"$LJLEAK" diff "$tmp/cap2" >"$tmp/d2" 2>&1
check "the_second_capture_finds_the_leak_too" grows_at "$tmp/d2" 6
# Without --duration: until Ctrl-C, then a stop request and the last boundary.
"$LJLEAK" attach --every 16k -o "$tmp/cap-int" "$leak" 2>"$tmp/int.err" &
attacher=$!
n=0; until grep -q capturing "$tmp/int.err" 2>/dev/null || [ $n -ge 150 ]; do sleep 0.1; n=$((n + 1)); done
sleep 1
kill -INT "$attacher"
wait "$attacher"
check "ctrl_c_ends_the_capture_with_exit_0" test $? = 0
check "with_a_stop_line" grep -q "^stop.*reason=stop" "$tmp/cap-int/index"
check "and_the_process_runs_on" alive "$leak"
# --snapshot: one heap snapshot now, and what holds the heap, with no history.
"$LJLEAK" attach --snapshot -o "$tmp/cap-snap" "$leak" >"$tmp/snap.out" 2>"$tmp/snap.err"
check "snapshot_now_exits_0" test $? = 0
check "its_first_holder_is_the_leaking_table" \
  sh -c "sed -n 3p '$tmp/snap.out' | grep -q 'table *local kept in main chunk@testdata/attach/leak.lua$'"
check "the_capture_ends_at_the_snapshot" grep -q "^stop.*reason=stop" "$tmp/cap-snap/index"
check "the_process_runs_on_after_the_snapshot" alive "$leak"
wait "$leak"
check "the_process_ends_normally" test $? = 0
check "with_its_own_output" test "$(cat "$tmp/leak.out")" = "done	12000"

# A loop whose traces are stitched across a C call: attach's hook fired while the trace recorder
# ran, and the flush of the traces under it killed the process (SIGSEGV) in 6 runs of 6. The
# start now waits for the recording to end. Three attaches, each process ending as its own.
for k in 1 2 3; do
  luajit testdata/attach/stitch.lua 25 >"$tmp/stitch$k.out" 2>&1 &
  stitch=$!; pids="$pids $stitch"
  sleep 0.5
  "$LJLEAK" attach --duration 1 -o "$tmp/cap-stitch$k" "$stitch" >/dev/null 2>"$tmp/stitch$k.err"
  echo $? >"$tmp/stitch$k.rc"
  wait "$stitch"
  echo $? >"$tmp/stitch$k.status"
done
check "attach_during_a_recording_captures" test "$(cat "$tmp"/stitch?.rc | tr '\n' ' ')" = "0 0 0 "
check "and_the_process_lives_to_its_own_exit" test "$(cat "$tmp"/stitch?.status | tr '\n' ' ')" = "7 7 7 "
check "each_with_its_own_output" test "$(cat "$tmp"/stitch?.out | sort -u)" = "done	5000"

# A process that exits during the capture: its exit handler ends the capture, complete, which is
# a capture made (exit 0; it was exit 4 with "its exit handler ends it"). One killed during it
# leaves a capture with no end: 4, saying so.
luajit testdata/attach/leak.lua 1500 >/dev/null 2>&1 &
ends=$!; pids="$pids $ends"
sleep 0.5
"$LJLEAK" attach --duration 30 -o "$tmp/cap-ends" "$ends" >/dev/null 2>"$tmp/ends.err"
check "a_process_that_exits_during_the_capture_exits_0" test $? = 0
check "saying_the_capture_ended_at_its_exit" grep -q "the process exited, and the capture ended at its exit" "$tmp/ends.err"
check "with_the_exits_stop_line" grep -q "^stop.*reason=exit" "$tmp/cap-ends/index"
luajit testdata/attach/leak.lua 12000 >/dev/null 2>&1 &
killed=$!; pids="$pids $killed"
sleep 0.5
"$LJLEAK" attach --duration 30 -o "$tmp/cap-killed" "$killed" 2>"$tmp/killed.err" &
attacher=$!
n=0; until grep -q capturing "$tmp/killed.err" 2>/dev/null || [ $n -ge 150 ]; do sleep 0.1; n=$((n + 1)); done
kill -KILL "$killed"
wait "$attacher"
check "a_process_killed_during_the_capture_exits_4" test $? = 4
check "saying_its_capture_has_no_end" grep -q "ended during the capture, and the capture in $tmp/cap-killed has no end" "$tmp/killed.err"

# A process that stops itself during the capture keeps its registration at "capturing": attach
# asks it to stop past --duration and --wait, and gives up --wait later (timeout's TERM would
# only ask for the stop again).
luajit testdata/attach/leak.lua 12000 >"$tmp/stopped.out" 2>&1 &
stopped=$!; pids="$pids $stopped"
sleep 0.5
timeout -k 5 40 "$LJLEAK" attach --duration 1 --wait 1 -o "$tmp/cap-stopped" "$stopped" 2>"$tmp/stopped.err" &
attacher=$!
n=0; until grep -q capturing "$tmp/stopped.err" 2>/dev/null || [ $n -ge 150 ]; do sleep 0.1; n=$((n + 1)); done
kill -STOP "$stopped"
wait "$attacher"
check "a_process_that_stops_itself_is_given_up" test $? = 4
check "saying_so" grep -q "did not end the capture in $tmp/cap-stopped within 1 s of the stop asked" "$tmp/stopped.err"
# gdb's call for the stop met the process's SIGSTOP: the signal is passed, and a call that a
# signal still ends is unwound, so the process is left where it was (it was left inside dlopen
# and crashed when it went on).
kill -CONT "$stopped"
wait "$stopped"
check "and_it_goes_on_when_continued" test $? = 0 -a "$(cat "$tmp/stopped.out")" = "done	12000"

# Two Lua states: the program's, and one made through the FFI that never runs (it prints that
# one's global state). Without --state attach refuses, naming both; with the program's it captures.
luajit testdata/attach/two_states.lua 6000 >"$tmp/two.out" 2>&1 &
two=$!; pids="$pids $two"
n=0; until [ -s "$tmp/two.out" ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
sleep 0.3
idle=$(head -n 1 "$tmp/two.out")
"$LJLEAK" attach --duration 1 -o "$tmp/cap-two0" "$two" 2>"$tmp/two0.err"
check "two_states_without_state_are_refused" test $? = 3
check "naming_both" grep -q "more than one Lua state in this process (their global states: .*$idle.*): name one with --state ADDR" "$tmp/two0.err"
states=$(sed -n 's/.*their global states: \([0-9a-fx ]*\)).*/\1/p' "$tmp/two0.err")
main=$(echo "$states" | tr " " "\n" | grep -v -x "$idle")
check "the_two_are_the_idle_one_and_another" test "$(echo "$states" | wc -w)" = 2 -a -n "$main"
check "and_nothing_is_written" test ! -e "$tmp/cap-two0"
check "two_states_are_left_to_the_scan_at_the_stop" sh -c "! grep -q 'found while it runs' '$tmp/two0.err'"
"$LJLEAK" attach --state "$main" --duration 1.5 --every 16k -o "$tmp/cap-two" "$two" 2>"$tmp/two1.err"
check "state_of_the_running_one_captures" test $? = 0 -a -f "$tmp/cap-two/index"
"$LJLEAK" diff "$tmp/cap-two" >"$tmp/dtwo" 2>&1
check "its_leak_is_at_its_line" sh -c "sed -n '/^growing/,/^\$/p' '$tmp/dtwo' | grep -q '@testdata/attach/two_states.lua:12'"
"$LJLEAK" attach --state "$idle" --wait 1 -o "$tmp/cap-two2" "$two" 2>"$tmp/two2.err"
check "state_of_the_idle_one_runs_no_lua_and_is_given_up" test $? = 4
wait "$two"
check "the_two_state_process_ends_normally" test $? = 0 -a "$(tail -n 1 "$tmp/two.out")" = "done	6000"

# A process that loaded the collector itself: attach uses it; one capturing already is refused.
LUA_CPATH="$BUILD/lua/?.so;;" luajit -l ljleak.collector testdata/attach/leak.lua 3000 >/dev/null 2>&1 &
loaded=$!; pids="$pids $loaded"
sleep 0.5
"$LJLEAK" attach --duration 1 -o "$tmp/cap3" "$loaded" 2>"$tmp/a3.err"
check "a_process_with_the_collector_is_captured" test $? = 0 -a -f "$tmp/cap3/index"
mkdir -p "$tmp/own"
LJLEAK_START=1 LJLEAK_ROOT=$tmp/own LUA_CPATH="$BUILD/lua/?.so;;" \
  luajit -l ljleak.collector testdata/attach/leak.lua 3000 >/dev/null 2>&1 &
busy=$!; pids="$pids $busy"
sleep 0.5
"$LJLEAK" attach --duration 1 -o "$tmp/cap4" "$busy" 2>"$tmp/a4.err"
check "a_process_capturing_already_is_refused" test $? = 3
check "saying_where_it_captures" grep -q "a capture is already running in $tmp/own" "$tmp/a4.err"
check "and_nothing_is_written" test ! -e "$tmp/cap4"

# Busy in Lua, a system call now and then: gdb lets it run to one (catch syscall), and it is captured.
luajit testdata/attach/busy.lua 15 >"$tmp/busy.out" 2>&1 &
busy2=$!; pids="$pids $busy2"
sleep 0.5
"$LJLEAK" attach --duration 1 -o "$tmp/cap-busy" "$busy2" 2>"$tmp/busy.err"
check "a_busy_process_is_stopped_at_its_next_system_call" test $? = 0 -a -f "$tmp/cap-busy/index"
# No system call at all: no safe stop within --wait; gdb is ended and the process runs on untouched.
luajit testdata/attach/spin.lua 12 >"$tmp/spin.out" 2>&1 &
spin=$!; pids="$pids $spin"
sleep 0.5
"$LJLEAK" attach --wait 1 -o "$tmp/cap-spin" "$spin" 2>"$tmp/spin.err"
check "a_process_without_system_calls_is_given_up" test $? = 4
check "saying_no_safe_stop_came" grep -q "entered no system call where loading is safe within 1 s" "$tmp/spin.err"
check "it_is_not_traced_after" sh -c "grep -q '^TracerPid:[[:space:]]*0$' /proc/$spin/status"
check "and_collector_so_was_never_loaded" sh -c "! grep -q collector.so /proc/$spin/maps"

# Another LuaJIT (OpenResty's, make other-luajit's tree): its state has another layout; refused.
other=$BUILD/other-luajit
if [ ! -x "$other/root/usr/bin/luajit" ]; then
  make --no-print-directory BUILD="$BUILD" other-luajit >"$tmp/other.log" 2>&1 || tail -n 20 "$tmp/other.log"
fi
otherlib=$(dirname "$(ls "$other"/root/usr/lib/*/libluajit-5.1.so.2)")
LD_LIBRARY_PATH=$otherlib "$other/root/usr/bin/luajit" testdata/attach/leak.lua 3000 >/dev/null 2>&1 &
wrong=$!; pids="$pids $wrong"
sleep 0.5
"$LJLEAK" attach --duration 1 -o "$tmp/cap-wrong" "$wrong" 2>"$tmp/wrong.err"
check "another_luajit_is_refused" test $? = 3
check "saying_it_is_not_the_one_built_for" grep -q "not the one this build was made for" "$tmp/wrong.err"
# Found from outside (the two references the scan there reads are where they are in this build),
# it is not taken at the stop: the collector checks its own layout, and scans.
check "its_state_found_from_outside_was_not_taken" grep -q "found while it runs" "$tmp/wrong.err"
check "it_runs_on_without_a_capture" sh -c "kill -0 $wrong && test ! -e '$tmp/cap-wrong/index'"

# Not LuaJIT: the collector cannot load.
sleep 300 &
plain=$!; pids="$pids $plain"
sleep 0.3
"$LJLEAK" attach --duration 1 -o "$tmp/cap6" "$plain" 2>"$tmp/a6.err"
check "a_process_without_luajit_is_refused" test $? = 3
check "saying_it_has_no_luajit" grep -q "has no LuaJIT" "$tmp/a6.err"
check "and_it_runs_on" alive "$plain"

# Root attaching to nobody's process: the capture is written as nobody, into a directory root
# chose (made for nobody); nobody attaching to root's process is refused.
chmod 711 "$tmp"
ljleak_abs=$(realpath "$LJLEAK")
mkdir -p "$tmp/nbrun" "$tmp/caps" && chown nobody:nogroup "$tmp/nbrun" && chmod 700 "$tmp/nbrun"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }
setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
  env LJLEAK_RUN_DIR="$tmp/nbrun" luajit testdata/attach/leak.lua 12000 >/dev/null 2>&1 &
nb=$!; pids="$pids $nb"
sleep 0.5
"$LJLEAK" attach --duration 1 -o "$tmp/caps/nb" "$nb" 2>"$tmp/a8.err"
check "root_captures_nobodys_process" test $? = 0 -a -f "$tmp/caps/nb/index"
check "the_capture_is_nobodys" test "$(stat -c %U "$tmp/caps/nb" "$tmp/caps/nb/index" | sort -u)" = nobody
(cd "$tmp/caps" && "$ljleak_abs" attach --duration 1 "$nb" 2>"$tmp/a9.err")
check "without_o_a_new_directory_of_nobodys_in_the_working_directory" \
  test "$(stat -c %U "$tmp"/caps/ljleak-"$nb"-*/index)" = nobody
# -o below a directory of nobody's: nobody could swap a component for a link to a directory of
# root's, so root neither makes nor gives anything there; nobody makes it, as it could anyway.
mkdir -p "$tmp/nbhome" "$tmp/rootonly" && chown nobody:nogroup "$tmp/nbhome" && chmod 700 "$tmp/rootonly"
as_nobody ln -s "$tmp/rootonly" "$tmp/nbhome/link"
"$LJLEAK" attach --duration 1 -o "$tmp/nbhome/link/new" "$nb" 2>"$tmp/a11.err"
check "a_link_of_nobodys_above_o_is_not_followed_by_root" test $? = 4 -a ! -e "$tmp/rootonly/new"
check "saying_who_makes_it" grep -q "cannot create $tmp/nbhome/link/new for process $nb: Permission denied" "$tmp/a11.err"
"$LJLEAK" attach --duration 1 -o "$tmp/nbhome/cap" "$nb" 2>"$tmp/a12.err"
check "o_in_nobodys_directory_is_made_by_nobody" test $? = 0 -a "$(stat -c %U "$tmp/nbhome/cap/index")" = nobody
# Ctrl-C or SIGTERM to attach while it waits for the safe point: the hook is disarmed then (it
# stayed armed, and a capture nobody would stop began when the process woke), and the directory
# made for nobody's capture goes. A process that ends while attach waits ends the wait at once
# (it waited out --wait, then ran gdb on no process). Attach is told once it says it waits.
waiting() { n=0; until grep -q "waiting for its next Lua instruction" "$1" 2>/dev/null || [ $n -ge 150 ]; do sleep 0.1; n=$((n + 1)); done; }
# until pid runs luajit (setpriv and env exec it) and has loaded its libraries
running_luajit() { n=0; until readlink "/proc/$1/exe" 2>/dev/null | grep -q luajit || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done; sleep 0.3; }
setpriv --reuid=nobody --regid=nogroup --clear-groups -- env LJLEAK_RUN_DIR="$tmp/nbrun" luajit testdata/attach/blocked.lua 4 >"$tmp/nbint.out" 2>&1 &
nbint=$!; pids="$pids $nbint"
running_luajit "$nbint"
"$LJLEAK" attach --wait 30 -o "$tmp/caps/nbint" "$nbint" 2>"$tmp/int-wait.err" &
attacher=$!
waiting "$tmp/int-wait.err"
kill -TERM "$attacher"
wait "$attacher"
check "sigterm_before_the_safe_point_exits_4" test $? = 4
check "saying_the_hook_is_disarmed" grep -q "interrupted before process $nbint reached its safe point: the hook is disarmed" "$tmp/int-wait.err"
wait "$nbint"
check "the_process_wakes_with_no_capture_begun" test "$(cat "$tmp/nbint.out")" = woke -a ! -e "$tmp/caps/nbint"
# Ctrl-C at the terminal signals attach's whole process group while gdb is inside the process:
# gdb has a group of its own, so only attach gets it, and cancels after gdb's step.
luajit testdata/attach/blocked.lua 4 >"$tmp/grpint.out" 2>&1 &
grpint=$!; pids="$pids $grpint"
running_luajit "$grpint"
setsid "$LJLEAK" attach --wait 30 -o "$tmp/cap-grpint" "$grpint" 2>"$tmp/grpint.err" &
attacher=$!
n=0; until grep -q "found while it runs" "$tmp/grpint.err" 2>/dev/null || [ $n -ge 150 ]; do sleep 0.05; n=$((n + 1)); done
/bin/kill -s INT -- "-$attacher"
wait "$attacher"
check "ctrl_c_to_the_group_in_gdbs_step_exits_4" test $? = 4
check "saying_nothing_was_captured" grep -q "interrupted before process $grpint .*nothing was captured" "$tmp/grpint.err"
wait "$grpint"
check "and_the_process_wakes_unharmed" test "$(cat "$tmp/grpint.out")" = woke -a ! -e "$tmp/cap-grpint/index"
setpriv --reuid=nobody --regid=nogroup --clear-groups -- env LJLEAK_RUN_DIR="$tmp/nbrun" luajit testdata/attach/blocked.lua 30 >/dev/null 2>&1 &
nbgone=$!; pids="$pids $nbgone"
running_luajit "$nbgone"
"$LJLEAK" attach --wait 30 -o "$tmp/caps/nbgone" "$nbgone" 2>"$tmp/gone-wait.err" &
attacher=$!
waiting "$tmp/gone-wait.err"
kill -KILL "$nbgone"
wait "$attacher"
check "a_process_killed_before_its_safe_point_exits_4" test $? = 4
check "saying_it_ended" grep -q "process $nbgone ended before its safe point: nothing was captured" "$tmp/gone-wait.err"
check "and_its_directory_goes" test ! -e "$tmp/caps/nbgone"
# --snapshot's reader runs as nobody, whose capture directory it reads: nobody can swap the
# snapshot for a FIFO it never writes, or hold a write lease on it (an open waits up to 45 s
# for the lease), or stop the reader. A FIFO and a leased file are refused at once, without
# waiting (both held the reader until it was killed); a stopped reader is killed at --wait plus
# 1 s per 10 MB of the capture (it was waited for for ever). A stand-in for gdb holds attach
# until the capture has ended, then does as $tmp/swap.mode says: fifo, lease, or stop (a watcher
# of root's stops the reader once it runs as nobody, as nobody could).
cat >"$tmp/gdb-swap" <<EOF
#!/bin/sh
gdb "\$@" >"$tmp/swap.out" 2>&1
rc=\$?
mode=\$(cat "$tmp/swap.mode")
if grep -q "ljleak-attach: armed" "$tmp/swap.out"; then
  n=0; until grep -q "^stop" "$tmp/caps/nbsnap-\$mode/index" 2>/dev/null || [ \$n -ge 300 ]; do sleep 0.1; n=\$((n + 1)); done
  snap=\$(ls "$tmp/caps/nbsnap-\$mode"/snap-*.heap | head -1)
  case \$mode in
  fifo) setpriv --reuid=nobody --regid=nogroup --clear-groups -- sh -c 'rm "\$1" && mkfifo "\$1"' - "\$snap" ;;
  lease)
    setpriv --reuid=nobody --regid=nogroup --clear-groups -- \\
      luajit "$PWD/testdata/attach/lease.lua" "\$snap" 40 >"$tmp/lease.out" 2>&1 </dev/null &
    echo \$! >"$tmp/lease.pid"
    n=0; until grep -q leased "$tmp/lease.out" || [ \$n -ge 100 ]; do sleep 0.1; n=\$((n + 1)); done ;;
  stop)
    # 50 MB to read: the reader is stopped while it reads, once it runs as nobody (its
    # descriptors set), before which attach's are still its own.
    setpriv --reuid=nobody --regid=nogroup --clear-groups -- sh -c 'head -c 50000000 /dev/zero >"\$1"' - "\$snap"
    a=\$PPID self=\$\$
    (exec </dev/null >/dev/null 2>&1
     c=
     while [ -z "\$c" ] && [ -d /proc/\$a ]; do
       read -r c1 c2 c3 </proc/\$a/task/\$a/children
       for x in \$c1 \$c2 \$c3; do [ "\$x" != "\$self" ] && c=\$x; done
     done
     while [ -d /proc/\$c ]; do
       while read -r k u rest; do [ "\$k" = Uid: ] && break; done </proc/\$c/status
       [ "\$u" = 65534 ] && kill -STOP "\$c" && echo "\$c" >"$tmp/stopped" &&
         readlink /proc/\$c/fd/1 /proc/\$c/fd/2 >"$tmp/stopped-fds" && exit 0
     done) &
    ;;
  esac
fi
cat "$tmp/swap.out"
exit \$rc
EOF
chmod +x "$tmp/gdb-swap"
# snap_attach MODE: attach --snapshot through the stand-in to a young process of nobody's (as
# the escape's test below says why); its exit code, stderr in $tmp/nbsnap-MODE.err
snap_attach() {
  local snapper rc
  echo "$1" >"$tmp/swap.mode"
  setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
    env LJLEAK_RUN_DIR="$tmp/nbrun" luajit testdata/attach/leak.lua 12000 >/dev/null 2>&1 &
  snapper=$!; pids="$pids $snapper"
  sleep 0.5
  LJLEAK_GDB=$tmp/gdb-swap timeout 60 "$LJLEAK" attach --snapshot --wait 5 -o "$tmp/caps/nbsnap-$1" "$snapper" \
    >/dev/null 2>"$tmp/nbsnap-$1.err"
  rc=$?
  kill "$snapper" 2>/dev/null
  return $rc
}
started=$(date +%s)
snap_attach fifo
check "a_snapshot_swapped_for_a_fifo_is_refused" test $? = 3
check "saying_so" grep -q "snap-[0-9]*.heap: not a regular file (a FIFO): refused" "$tmp/nbsnap-fifo.err"
check "the_fifo_was_there" test -p "$(ls "$tmp"/caps/nbsnap-fifo/snap-*.heap | head -1)"
snap_attach lease
check "a_leased_snapshot_is_refused" test $? = 3
check "saying_its_owner_holds_a_lease" grep -q "snap-[0-9]*.heap: cannot open: .*lease" "$tmp/nbsnap-lease.err"
check "the_lease_was_held" grep -q leased "$tmp/lease.out"
check "neither_was_waited_for" test $(($(date +%s) - started)) -lt 40
kill "$(cat "$tmp/lease.pid")" 2>/dev/null
snap_attach stop
check "a_stopped_reader_ends_attach_with_4" test $? = 4
check "saying_the_reading_did_not_end" \
  grep -q "reading the heap snapshot in $tmp/caps/nbsnap-stop did not end within" "$tmp/nbsnap-stop.err"
check "the_reader_was_stopped" test -s "$tmp/stopped"
# Its stdout and stderr are pipes that attach relays, not attach's own (a terminal of root's there
# could be driven from the reader).
check "the_reader_writes_into_pipes_of_attachs" test "$(grep -c '^pipe:' "$tmp/stopped-fds")" = 2
# nobody's processes lie about their files. One points its link map's entry for libc at a FIFO
# of nobody's; the other runs a copy of luajit that it deleted, a FIFO named "luajit (deleted)"
# in its place. gdb, root's, opened those names, hung on the FIFO, and attach gave up (exit 4);
# it opens no name a process chose, only copies of what each process has mapped.
mkdir -p "$tmp/liar" && chown nobody:nogroup "$tmp/liar"
as_nobody mkfifo "$tmp/liar/libc.so.6"
as_nobody cp "$(readlink -f "$(command -v luajit)")" "$tmp/liar/luajit"
setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
  env LJLEAK_RUN_DIR="$tmp/nbrun" luajit testdata/attach/lying_maps.lua "$tmp/liar/libc.so.6" \
  >"$tmp/liar1.out" 2>&1 &
liar1=$!; pids="$pids $liar1"
setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
  env LJLEAK_RUN_DIR="$tmp/nbrun" "$tmp/liar/luajit" testdata/attach/leak.lua 12000 \
  >/dev/null 2>&1 &
liar2=$!; pids="$pids $liar2"
sleep 0.5
as_nobody sh -c 'rm "$1/luajit" && mkfifo "$1/luajit (deleted)"' - "$tmp/liar"
check "the_first_lies_about_its_libc" grep -q "^lied about 1 library" "$tmp/liar1.out"
mkdir "$tmp/own-tmp"
TMPDIR=$tmp/own-tmp timeout 60 "$LJLEAK" attach --wait 5 --duration 1 -o "$tmp/caps/liar1" "$liar1" \
  2>"$tmp/liar1.err"
check "a_link_map_of_fifos_is_not_opened" test $? = 0 -a -f "$tmp/caps/liar1/index"
timeout 60 "$LJLEAK" attach --wait 5 --duration 2 --every 16k -o "$tmp/caps/liar2" "$liar2" 2>"$tmp/liar2.err"
check "a_deleted_executable_s_fifo_is_not_opened" test $? = 0 -a -f "$tmp/caps/liar2/index"
"$LJLEAK" diff "$tmp/caps/liar2" >"$tmp/dliar2" 2>&1
check "and_its_capture_finds_the_leak" grows_at "$tmp/dliar2" 6
check "attach_leaves_no_file_of_its_own_behind" test -z "$(ls -A "$tmp/own-tmp")"
# gdb's copies of the process's files have no name (O_TMPFILE, held open by gdb), so an attach
# killed during its gdb step (here gdb waits for a system call that never comes) leaves none of
# them behind, only its script: it left five, up to 256 MiB each.
mkdir "$tmp/kill-tmp"
luajit testdata/attach/spin.lua 20 >/dev/null 2>&1 &
spin2=$!; pids="$pids $spin2"
sleep 0.5
TMPDIR=$tmp/kill-tmp "$LJLEAK" attach --wait 8 -o "$tmp/cap-killed" "$spin2" 2>"$tmp/killed.err" &
killed=$!
# unnamed: how many files of no name in kill-tmp the gdb of that attach holds open
unnamed() {
  g=$(pgrep -f "sysroot $tmp/kill-tmp/" | head -1)
  [ -n "$g" ] && ls -l /proc/"$g"/fd 2>/dev/null | grep -c "$tmp/kill-tmp/.*(deleted)"
}
n=0; until [ "$(unnamed)" -ge 3 ] 2>/dev/null || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
check "gdb_holds_copies_of_no_name" test "$(unnamed)" -ge 3
kill -KILL "$killed"; wait "$killed" 2>/dev/null
n=0; while pgrep -f "sysroot $tmp/kill-tmp/" >/dev/null && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
check "a_killed_attach_leaves_no_copy_behind" \
  test "$(ls -A "$tmp"/kill-tmp/ljleak-attach-*/ 2>/dev/null | tr '\n' ' ')" = "attach.py "
# nobody's registration says the capture ended, with controls in its error: printed escaped. A
# process of its own, young: leak.lua's compiled loop leaves its trace (to the interpreter, where
# attach's hook runs) when its list's array grows, ever more rarely.
setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
  env LJLEAK_RUN_DIR="$tmp/nbrun" luajit testdata/attach/leak.lua 12000 >/dev/null 2>&1 &
nb=$!; pids="$pids $nb"
sleep 0.5
"$LJLEAK" attach --duration 5 -o "$tmp/caps/esc" "$nb" 2>"$tmp/esc.err" &
attacher=$!
n=0; until grep -q capturing "$tmp/esc.err" 2>/dev/null || [ $n -ge 150 ]; do sleep 0.1; n=$((n + 1)); done
as_nobody sh -c 'sed "s/^state=.*/state=idle/; s/^error=.*/error=\x1b]2;owned\x07 \xc2\x9b/" "$1/$2" >"$1/x" &&
  mv "$1/x" "$1/$2"' - "$tmp/nbrun" "$nb"
wait "$attacher"
check "an_error_from_the_registration_is_shown" grep -qF 'ended on an error: \x1b]2;owned\x07 \u009b' "$tmp/esc.err"
grep -qF 'ended on an error' "$tmp/esc.err" || cat "$tmp/esc.err"
check "escaped" sh -c "! grep -q \"\$(printf '\\033')\" '$tmp/esc.err'"
# nobody's process becomes su (euid 0, same pid) once its capture is over, before attach's next
# step: gdb calls nothing in it, and its capture is not read as root. The hand-off is made
# certain: the stand-in for gdb returns from its first step (the one that arms the hook) only
# once the process's effective uid is 0, so attach's next look meets su (the registration is
# then nobody's, not the process's user's), and its step cancel is refused.
cat >"$tmp/gdb-turn" <<EOF
#!/bin/sh
pid= prev=
for a in "\$@"; do [ "\$prev" = -p ] && pid=\$a; prev=\$a; done
"$(command -v gdb)" "\$@"
rc=\$?
if [ ! -e "$tmp/turn.armed" ]; then
  : >"$tmp/turn.armed"
  n=0
  until [ \$n -ge 80 ] || grep -q '^Uid:[[:space:]]*[0-9]*[[:space:]]*0[[:space:]]' /proc/\$pid/status 2>/dev/null; do
    sleep 0.1; n=\$((n + 1))
  done
  [ \$n -lt 80 ] && : >"$tmp/turn.su"
fi
exit \$rc
EOF
chmod +x "$tmp/gdb-turn"
sleep 25 | sh -c 'echo $$ >"$1/turn.pid"; exec setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
  env LJLEAK_RUN_DIR="$1/nbrun" luajit testdata/attach/turn_su.lua "$1/nbrun"' - "$tmp" >/dev/null 2>&1 &
sleep 0.5
turn=$(cat "$tmp/turn.pid"); pids="$pids $turn"
LJLEAK_GDB=$tmp/gdb-turn "$LJLEAK" attach --snapshot -o "$tmp/caps/turn" "$turn" >"$tmp/turn.out" 2>"$tmp/turn.err"
check "a_process_turned_su_is_refused" test $? != 0
check "it_was_su_before_attachs_next_look" test -e "$tmp/turn.su"
check "gdb_called_nothing_in_su" sh -c "! grep -q 'undefined symbol' '$tmp/turn.err'"
check "nor_was_its_capture_read_as_root" sh -c "! grep -q 'largest holders' '$tmp/turn.out'"
kill -KILL "$turn" 2>/dev/null
luajit testdata/attach/leak.lua 3000 >/dev/null 2>&1 &
mine=$!; pids="$pids $mine"
sleep 0.3
as_nobody "$ljleak_abs" attach --duration 1 -o /tmp "$mine" 2>"$tmp/a10.err"
check "nobody_cannot_attach_to_roots_process" test $? = 3
check "saying_it_needs_root" grep -q "belongs to another user: attaching needs root" "$tmp/a10.err"
check "roots_process_runs_on" alive "$mine"

# No gdb, no process, bad usage.
LJLEAK_GDB=$tmp/no-gdb "$LJLEAK" attach "$plain" 2>"$tmp/a7.err"
check "a_missing_gdb_is_refused" test $? = 3
check "with_the_install_line" grep -q "apt-get install gdb" "$tmp/a7.err"
"$LJLEAK" attach 999999999 2>/dev/null
check "no_such_process_exits_3" test $? = 3
"$LJLEAK" attach --duration 1 2>/dev/null
check "no_process_given_is_usage" test $? = 2
"$LJLEAK" attach --wait 0 "$plain" 2>"$tmp/wait0.err"
check "a_zero_wait_is_usage" test $? = 2
check "naming_the_wait_given" grep -q "bad value '0' for --wait" "$tmp/wait0.err"
"$LJLEAK" attach --help >"$tmp/help"
check "help_names_the_options" grep -q -- "--state ADDR" "$tmp/help"
# ci/capture --attach: the capture and its reports, as ci/capture makes them for a registered process.
luajit testdata/attach/leak.lua 6000 >/dev/null 2>&1 &
cip=$!; pids="$pids $cip"
sleep 0.5
mkdir -p "$tmp/ciroot"
LJLEAK=$ljleak_abs ci/capture --attach --pid "$cip" --duration 2.5 --root "$tmp/ciroot" \
  --set every=16k --quiet >/dev/null 2>"$tmp/ci.err"
check "ci_capture_attach_flags_the_leak" test $? = 1
check "its_capture_has_the_reports" sh -c "ls '$tmp'/ciroot/ljleak-$cip-*/report.txt '$tmp'/ciroot/ljleak-$cip-*/result.json >/dev/null"
check "the_report_names_the_line" sh -c "grep -q 'leak.lua:6' '$tmp'/ciroot/ljleak-$cip-*/report.txt"
check "ci_capture_leaves_the_process_running" alive "$cip"
LJLEAK=$ljleak_abs ci/capture --attach --pid "$cip" --duration 1 >/dev/null 2>&1
check "ci_capture_attach_without_root_is_usage" test $? = 2
LJLEAK=$ljleak_abs ci/capture --attach --pid "$cip" --duration 1 --root "$tmp/ciroot" --set c_hook=1 >/dev/null 2>"$tmp/ci2.err"
check "ci_capture_attach_refuses_a_set_attach_has_not" test $? = 3
# A TERM to ci/capture --attach alone (cron's time limit): attach is told and stops the capture,
# and the script dies of the signal. It waited for the whole --duration, attach in the foreground.
luajit testdata/attach/leak.lua 30000 >/dev/null 2>&1 &
cterm=$!; pids="$pids $cterm"
sleep 0.5
mkdir -p "$tmp/citerm"
LJLEAK=$ljleak_abs ci/capture --attach --pid "$cterm" --duration 120 --root "$tmp/citerm" \
  --quiet >/dev/null 2>"$tmp/ci3.err" &
cis=$!
for i in $(seq 1 300); do  # until the capture runs: its index is there
  [ -z "$(ls "$tmp"/citerm/ljleak-$cterm-*/index 2>/dev/null)" ] || break
  sleep 0.1
done
kill -TERM "$cis"
wait "$cis"
check "a_term_to_ci_capture_attach_ends_it_by_the_signal" test $? = 143
check "saying_attach_stopped_the_capture" grep -q "stopped by SIGTERM: ljleak attach stopped its capture of process $cterm" "$tmp/ci3.err"
check "the_capture_was_stopped_not_run_to_its_duration" \
  sh -c "test \"\$('$LJLEAK' info --get stop_reason '$tmp'/citerm/ljleak-$cterm-*)\" = stop"
check "the_process_runs_on_after_the_term" alive "$cterm"
kill -KILL "$cterm" 2>/dev/null

# ljleak snapshot --holders on a snapshot of ljleak run: the largest holders first, by retained size.
cat >"$tmp/hold.lua" <<'LUA'
local cache = {}
for i = 1, 2000 do cache["k" .. i] = {i, tostring(i)} end
things = {}
for i = 1, 500 do things[i] = string.rep("x", 100) .. i end
return cache
LUA
"$LJLEAK" run --snapshots 1 -o "$tmp/hold" "$tmp/hold.lua" 2>/dev/null
"$LJLEAK" snapshot --holders 2 "$tmp"/hold/snap-*.heap >"$tmp/hold.out"
check "holders_lists_the_local_first_then_the_global" \
  sh -c "sed -n 3p '$tmp/hold.out' | grep -q 'local cache in main chunk' && sed -n 4p '$tmp/hold.out' | grep -q '_G.things$' && test \$(wc -l < '$tmp/hold.out') = 4"
"$LJLEAK" snapshot --holders 0 "$tmp"/hold/snap-*.heap 2>/dev/null
check "holders_0_is_usage" test $? = 2

# At the end, as the processes above live for a given time: a relative name in the link map is
# no name below the sysroot: gdb opened it from its working directory, and "../" up to / reached
# any file. A writer waits for someone to open the FIFO.
up=$(pwd | sed 's|/[^/]*|../|g')
setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
  env LJLEAK_RUN_DIR="$tmp/nbrun" luajit testdata/attach/lying_maps.lua "$up$tmp/liar/libc.so.6" \
  >"$tmp/liar3.out" 2>&1 &
liar3=$!; pids="$pids $liar3"
setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
  sh -c ': >"$1/libc.so.6" && echo opened >"$1/opened"' - "$tmp/liar" >/dev/null 2>&1 &
writer=$!
sleep 0.5
timeout 60 "$LJLEAK" attach --wait 5 --duration 1 -o "$tmp/caps/liar3" "$liar3" 2>"$tmp/liar3.err"
check "a_relative_name_in_the_link_map_is_not_opened" test $? = 0 -a ! -e "$tmp/liar/opened"
kill "$writer" 2>/dev/null
# gdb reads its history, .gdb_history, from the working directory: root's gdb opened one of
# nobody's there (a FIFO, that its writer waits for someone to open; a link to a device).
mkdir -p "$tmp/nbcwd" && chown nobody:nogroup "$tmp/nbcwd"
as_nobody mkfifo "$tmp/nbcwd/.gdb_history"
setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
  sh -c ': >"$1/.gdb_history" && echo opened >"$1/opened"' - "$tmp/nbcwd" >/dev/null 2>&1 &
writer=$!
(cd "$tmp/nbcwd" && timeout 60 "$ljleak_abs" attach --duration 1 -o "$tmp/caps/hist" "$liar3" 2>"$tmp/hist.err")
check "a_gdb_history_in_the_working_directory_is_not_opened" test $? = 0 -a ! -e "$tmp/nbcwd/opened"
kill "$writer" 2>/dev/null
# nobody attaching to its own process: gdb has no more rights than the process, and no mount
# (root's) is needed for its working directory.
setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
  env LJLEAK_RUN_DIR="$tmp/nbrun" luajit testdata/attach/leak.lua 3000 >/dev/null 2>&1 &
own=$!; pids="$pids $own"
sleep 0.5
as_nobody env LJLEAK_RUN_DIR="$tmp/nbrun" "$ljleak_abs" attach --duration 1 -o "$tmp/nbhome/own" "$own" \
  2>"$tmp/own.err"
check "nobody_captures_its_own_process" test $? = 0 -a -f "$tmp/nbhome/own/index"

wait "$calling"
check "a_call_that_never_returns_is_given_up" test "$(cat "$tmp/calling.rc")" = 4
check "saying_so" grep -q "did not come back from the collector's call within 60 s" "$tmp/calling.err"

# The blocked process, left as it was, wakes and ends as it would.
wait "$blocked"
check "it_wakes_and_ends_as_it_would" test $? = 0 -a "$(cat "$tmp/blocked.out")" = "woke"
check "without_a_capture" test ! -e "$tmp/cap5/index"
wait "$spin"
check "the_spinning_process_ends_as_it_would" test $? = 0 -a "$(cat "$tmp/spin.out")" = "spun	true"
wait "$busy2"
check "the_busy_process_ends_as_it_would" test $? = 0 -a "$(cat "$tmp/busy.out")" = "done	true"

finish
