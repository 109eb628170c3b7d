#!/bin/sh
# tests/e2e/security.sh: a root ci/capture and a root ljleak beside a hostile
# unprivileged user (docs/security.md). The captured worker runs as nobody,
# and the attacks are made as nobody (or daemon, another user) with
# setpriv: the capture directory swapped for a link during a capture, with
# result.json, report.txt and report.html planted as links to root's files;
# links planted in a given capture directory; a --root that is a link, one
# below a directory another user may write, one in a sticky directory made
# by another user; a run directory another user made first; out-of-range
# option values; control characters in what the process says; FIFOs, links, leases and holes in
# the place of a capture's files that root reads by hand. In each, the
# victim files are unchanged (content, owner, mode), root owns nothing in
# the worker's root, and the message says why. Needs root (to be root and
# nobody); skipped otherwise.
E2E_NAME=security
. tests/e2e/lib.sh
if [ "$(id -u)" != 0 ]; then
  echo "skip security: not root (the attacks need a root ci/capture and another user)"
  finish
  exit
fi
. tests/e2e/nobody_worker.sh
attacker=""
cleanup() {
  [ -z "$attacker" ] || kill "$attacker" 2>/dev/null
  [ -z "$worker" ] || kill "$worker" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
as_daemon() { setpriv --reuid=daemon --regid=daemon --clear-groups -- "$@"; }
# Root's victims: a file of root's only, whose content, owner and mode must
# not change.
victim() { printf 'root only: %s\n' "$1" > "$tmp/victims/$1"; chmod 600 "$tmp/victims/$1"; }
mkdir -p "$tmp/victims" && chmod 755 "$tmp/victims"
for v in result report-txt report-html index part; do victim "$v"; done
victims_intact() {
  local v
  for v in result report-txt report-html index part; do
    [ "$(cat "$tmp/victims/$v")" = "root only: $v" ] || return 1
    [ "$(stat -c '%U %a' "$tmp/victims/$v")" = "root 600" ] || return 1
  done
  [ ! -e "$tmp/victims/new" ]
}
no_root_files_in() { [ -z "$(find "$1" -user root 2>/dev/null | grep -vx "$1")" ]; }


# 1. The capture directory swapped for a link to the root during the
# capture, a finished capture copied there, and the reports planted as links
# to root's files: once as soon as the directory appears (ci/capture's check
# after the start sees the link), once after ci/capture has checked it and
# is waiting (the diff and the reports then go through the link, as nobody).
swap_attack() {  # swap_attack NAME WAIT_FOR
  local attack=$1 wait_for=$2 root=$tmp/caps-$1 status
  start_worker "$root"
  check "${attack}_the_worker_runs_as_nobody" test "$(awk '/^Uid:/ { print $3 }' "/proc/$worker/status")" = 65534
  : > "$tmp/$attack.err"
  as_nobody sh -c '
    root=$1 victims=$2 ljleak=$3 log=$4 wait_for=$5
    n=0
    until [ -w "$root" ] || [ $n -ge 600 ]; do sleep 0.05; n=$((n + 1)); done
    # A finished capture of its own, to stand in for the real one.
    printf "local t = {} for i = 1, 2000 do t[i] = {} end\n" > "$root/fill.lua"
    "$ljleak" run -o "$root/finished" "$root/fill.lua" >/dev/null 2>&1
    cp "$root/finished"/* "$root/"
    ln -s "$victims/result" "$root/result.json"
    ln -s "$victims/report-txt" "$root/report.txt"
    ln -s "$victims/report-html" "$root/report.html"
    # Bounded (30 s): a capture that never starts leaves no directory to swap.
    n=0
    [ -z "$wait_for" ] || until grep -q "$wait_for" "$log" || [ $n -ge 1500 ]; do sleep 0.02; n=$((n + 1)); done
    while [ $n -lt 3000 ]; do
      for d in "$root"/ljleak-*; do
        [ -d "$d" ] && [ ! -L "$d" ] || continue
        mv "$d" "$root/moved-${d##*/}" && ln -s . "$d" && echo "swapped $d" && exit 0
      done
      sleep 0.02
      n=$((n + 1))
    done
    exit 1' attacker "$root" "$tmp/victims" "$LJLEAK_ABS" "$tmp/$attack.err" "$wait_for" \
    >"$tmp/$attack-attack.log" 2>&1 &
  attacker=$!
  ci/capture --pid "$worker" --root "$root" --run-dir "$run" --duration 3 --wait-stop 10 \
    >"$tmp/$attack.out" 2>>"$tmp/$attack.err"
  status=$?
  wait "$attacker"; attacker=""
  cat "$tmp/$attack-attack.log" "$tmp/$attack.err"
  check "${attack}_the_attacker_swapped_the_capture_directory" grep -q '^swapped ' "$tmp/$attack-attack.log"
  check "${attack}_the_victims_are_unchanged" victims_intact
  check "${attack}_root_owns_nothing_in_the_workers_root" no_root_files_in "$root"
  check "${attack}_the_root_ci_capture_made_is_the_workers" test "$(stat -c '%U %a' "$root")" = "nobody 700"
  # Seen at the check after the start (4, named), or later: then the reports
  # were written as nobody in place of the links.
  if [ "$status" = 4 ]; then
    echo "$attack: ci/capture saw the link"
    check "${attack}_the_swapped_directory_is_named" grep -q "which is not a capture of it of its user directly in $root" "$tmp/$attack.err"
  else
    echo "$attack: the reports went through the link (status $status)"
    for f in result.json report.txt report.html; do
      check "${attack}_the_planted_${f}_link_was_replaced_as_nobody" sh -c \
        "test ! -L '$root/$f' && test \"\$(stat -c '%U %a' '$root/$f')\" = 'nobody 600'"
    done
  fi
  stop_worker
}
swap_attack early ""
swap_attack late "capturing into"

# 2. A capture ci/capture makes is private: the directory 0700, its files and
# reports 0600, all the worker's.
root2=$tmp/caps2
start_worker "$root2"
ci/capture --pid "$worker" --root "$root2" --run-dir "$run" --duration 2 --quiet >/dev/null 2>"$tmp/private.err"
status=$?
check "a_private_capture_is_made" sh -c "test $status = 0 || test $status = 1 || test $status = 5"
dir=$(ls -d "$root2"/ljleak-* | head -n 1)
check "the_capture_directory_is_0700" test "$(stat -c '%U %a' "$dir")" = "nobody 700"
check "its_files_are_0600_and_the_workers" test "$(stat -c '%U %a' "$dir"/* | sort -u)" = "nobody 600"
check "the_reports_are_among_them" test -s "$dir/report.html" -a -s "$dir/result.json" -a -s "$dir/report.txt"
check "root_owns_nothing_in_the_second_root" no_root_files_in "$root2"
stop_worker

# 3. Links planted in a capture directory given to ljleak run: refused
# (not empty), nothing written through them, as root and as nobody.
printf 'local t = {} for i = 1, 100 do t[i] = {} end\n' > "$tmp/small.lua"
chmod 644 "$tmp/small.lua"
mkdir -p "$tmp/given" && chmod 755 "$tmp/given"
ln -s "$tmp/victims/new" "$tmp/given/index"
ln -s "$tmp/victims/part" "$tmp/given/seg-0001.memprof.part"
"$LJLEAK" run -o "$tmp/given" "$tmp/small.lua" >/dev/null 2>"$tmp/given.err"
check "a_capture_directory_with_planted_links_is_refused" test $? = 4
check "the_refusal_says_it_is_not_empty" grep -q "capture directory $tmp/given is not empty" "$tmp/given.err"
check "the_planted_links_reached_nothing" victims_intact
mkdir -p "$tmp/nobodys" && chown nobody:nogroup "$tmp/nobodys"
"$LJLEAK" run -o "$tmp/nobodys" "$tmp/small.lua" >/dev/null 2>"$tmp/nobodys.err"
check "another_users_capture_directory_is_refused" test $? = 4
check "the_refusal_names_its_owner" grep -q "capture directory $tmp/nobodys belongs to nobody (uid 65534)" "$tmp/nobodys.err"
check "nothing_was_written_in_it" test -z "$(ls -A "$tmp/nobodys")"
as_nobody mkdir "$tmp/nobodys/d"
as_nobody sh -c "echo mine > '$tmp/nobodys/mine' && ln -s '$tmp/nobodys/mine' '$tmp/nobodys/d/seg-0001.memprof.part' && ln -s '$tmp/nobodys/other' '$tmp/nobodys/d/index'"
as_nobody "$LJLEAK" run -o "$tmp/nobodys/d" "$tmp/small.lua" >/dev/null 2>"$tmp/nobody-run.err"
check "nobodys_own_planted_links_are_refused_too" test $? = 4
check "and_reach_nothing" sh -c "test \"\$(cat '$tmp/nobodys/mine')\" = mine && test ! -e '$tmp/nobodys/other'"

# 4. A --root that is a link: refused by ci/capture and by the collector.
start_worker "$tmp/caps"
mkdir -p "$tmp/real" && chown nobody:nogroup "$tmp/real"
ln -s "$tmp/real" "$tmp/rootlink"
ci/capture --pid "$worker" --root "$tmp/rootlink" --run-dir "$run" --duration 1 >/dev/null 2>"$tmp/link.err"
check "a_root_that_is_a_link_is_refused_with_3" test $? = 3
check "the_refusal_says_it_is_a_link" grep -q "the capture root $tmp/rootlink is a link" "$tmp/link.err"
check "nothing_was_captured_through_the_link" test -z "$(ls -A "$tmp/real")"
LJLEAK_ROOT=$tmp/rootlink "$LJLEAK" run "$tmp/small.lua" >/dev/null 2>"$tmp/link-run.err"
check "the_collector_refuses_a_root_that_is_a_link" grep -q "the capture root $tmp/rootlink is a link" "$tmp/link-run.err"

# 5. A root below a directory another user may write: refused before
# anything is made; a sticky directory's root made by another user too.
mkdir -p "$tmp/shared" && chmod 777 "$tmp/shared"
ci/capture --pid "$worker" --root "$tmp/shared/caps" --run-dir "$run" --duration 1 >/dev/null 2>"$tmp/shared.err"
check "a_root_below_a_directory_all_may_write_is_refused_with_3" test $? = 3
check "the_refusal_names_that_directory" grep -q "$tmp/shared is writable by other users (mode 777)" "$tmp/shared.err"
check "nothing_was_made_there" test ! -e "$tmp/shared/caps"
mkdir -p "$tmp/daemons" && chown daemon "$tmp/daemons" && chmod 755 "$tmp/daemons"
ci/capture --pid "$worker" --root "$tmp/daemons/caps" --run-dir "$run" --duration 1 >/dev/null 2>"$tmp/daemons.err"
check "a_root_below_another_users_directory_is_refused" grep -q "$tmp/daemons belongs to daemon" "$tmp/daemons.err"
check "nothing_was_made_in_it" test ! -e "$tmp/daemons/caps"
mkdir -p "$tmp/sticky" && chmod 1777 "$tmp/sticky"
as_daemon mkdir "$tmp/sticky/caps"
ci/capture --pid "$worker" --root "$tmp/sticky/caps" --run-dir "$run" --duration 1 >/dev/null 2>"$tmp/sticky.err"
check "another_users_root_in_a_sticky_directory_is_refused" grep -q "refusing the capture root $tmp/sticky/caps: it belongs to daemon" "$tmp/sticky.err"
check "nothing_was_captured_in_it" test -z "$(ls -A "$tmp/sticky/caps")"
mkdir -m 777 "$tmp/sticky/open"
LJLEAK_ROOT=$tmp/sticky/caps "$LJLEAK" run "$tmp/small.lua" >/dev/null 2>"$tmp/sticky-run.err"
check "the_collector_refuses_another_users_root" grep -q "the capture root $tmp/sticky/caps belongs to daemon (uid 1)" "$tmp/sticky-run.err"
as_nobody env LJLEAK_ROOT="$tmp/sticky/open" "$LJLEAK" run "$tmp/small.lua" >/dev/null 2>"$tmp/open-run.err"
check "the_collector_refuses_a_root_all_may_write" grep -q "the capture root $tmp/sticky/open is writable by every user (mode 0777) without the sticky bit" "$tmp/open-run.err"
ci/capture --pid "$worker" --owner daemon --root "$tmp/x" --duration 1 >/dev/null 2>&1
check "owner_is_gone" test $? = 2
stop_worker

# 6. A run directory another user made first (/tmp/ljleak-<uid> squatted):
# the worker does not register and says whose it is and what to do;
# ljleak control and ci/capture say the same.
squat=$tmp/squat
mkdir -p "$squat" && chown daemon "$squat" && chmod 700 "$squat"
setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
  env LUA_CPATH="$COLLECTOR_PATH" LJLEAK_RUN_DIR="$squat" LJLEAK_ROOT="$tmp/caps" luajit -l ljleak.collector -e 'os.execute("sleep 30")' >"$tmp/squat.log" 2>&1 &
worker=$!
wait_for "grep -q 'no control channel' '$tmp/squat.log'"
cat "$tmp/squat.log"
check "a_squatted_run_directory_is_refused_by_the_collector" grep -q "the registration directory $squat belongs to daemon (uid 1), not to this process's user nobody (uid 65534)" "$tmp/squat.log"
check "the_collector_gives_the_remedy" grep -q "install -d -o USER -m 700 /run/ljleak" "$tmp/squat.log"
check "nothing_was_written_in_it" test -z "$(ls -A "$squat")"
"$LJLEAK" control --run-dir "$squat" "$worker" >/dev/null 2>"$tmp/squat-control.err"
check "ljleak_control_says_not_registered" test $? = 1
check "ljleak_control_names_the_owner" grep -q "the directory belongs to daemon (uid 1), not to the process's user nobody (uid 65534)" "$tmp/squat-control.err"
ci/capture --pid "$worker" --run-dir "$squat" --duration 1 >/dev/null 2>"$tmp/squat-capture.err"
check "ci_capture_refuses_with_3" test $? = 3
check "ci_capture_names_the_owner_and_the_remedy" grep -q "belongs to daemon (uid 1).*install -d" "$tmp/squat-capture.err"
stop_worker

# 7. Values out of range, by request, environment, start{} and signal: the
# capture does not start and the message names the option and its limit.
start_worker "$tmp/caps"
n=0
for set in sample=2g stack_depth=1e300 every=nan period=1e400 duration=-1 max_bytes=99999999999999999999; do
  n=$((n + 1))
  before=$(ls "$tmp/caps" | wc -l)
  ci/capture --pid "$worker" --run-dir "$run" --set "$set" --duration 1 >/dev/null 2>"$tmp/range$n.err"
  status=$?
  check "request_${set%%=*}_out_of_range_exits_3" test "$status" = 3
  check "request_${set%%=*}_is_named" grep -q "bad value '${set#*=}' for ${set%%=*}" "$tmp/range$n.err"
  check "request_${set%%=*}_starts_no_capture" test "$(ls "$tmp/caps" | wc -l)" = "$before"
done
# Control characters from the process: printed escaped.
ci/capture --pid "$worker" --run-dir "$run" --set "period=$(printf '\033[2J\033]0;owned\007')" --duration 1 >/dev/null 2>"$tmp/escape.err"
check "control_characters_of_the_process_are_escaped" grep -qF 'bad value '"'"'\x1b[2J\x1b]0;owned\x07'"'"' for period' "$tmp/escape.err"
check "no_escape_reaches_the_terminal" sh -c "! grep -q \"\$(printf '\\033')\" '$tmp/escape.err'"
# C1 controls (as UTF-8 and as a raw byte), bidi controls and the line
# separator, from the process's answer: escaped byte by byte, none raw.
ci/capture --pid "$worker" --run-dir "$run" --set "period=$(printf 'a\302\233b\233c\342\200\256d\342\200\250e\342\201\246f\330\234g')" \
  --duration 1 >/dev/null 2>"$tmp/escape-c1.err"
cat "$tmp/escape-c1.err"
check "c1_bidi_and_line_separators_of_the_process_are_escaped" \
  grep -qF "bad value 'a\xc2\x9bb\x9bc\xe2\x80\xaed\xe2\x80\xa8e\xe2\x81\xa6f\xd8\x9cg' for period" "$tmp/escape-c1.err"
check "none_of_them_reaches_the_terminal_raw" sh -c \
  "! LC_ALL=C grep -q \"\$(printf '\\233')\|\$(printf '\\342\\200\\256')\|\$(printf '\\342\\200\\250')\|\$(printf '\\342\\201\\246')\|\$(printf '\\330\\234')\" '$tmp/escape-c1.err'"
stop_worker
for spec in sample=math.huge stack_depth=1e300 every=0/0 period=-1 period=1/0 max_bytes=1.5; do
  LUA_CPATH="$COLLECTOR_PATH" LJLEAK_RUN_DIR=$tmp/luarun luajit -e "
    local c = require 'ljleak.collector'
    print(pcall(c.start, { root = '$tmp/lua-caps', ${spec} }))" >"$tmp/start.out" 2>&1
  echo "start{ $spec }: $(cat "$tmp/start.out")"
  check "start_${spec%%=*}_${spec#*=}_is_refused_naming_the_limit" \
    grep -q "${spec%%=*} must be a .* from 0 to" "$tmp/start.out"
  check "start_${spec%%=*}_${spec#*=}_makes_no_capture" sh -c "test -z \"\$(ls -A '$tmp/lua-caps' 2>/dev/null)\""
done
for sig in SEGV BUS CHLD PIPE 11; do
  LUA_CPATH="$COLLECTOR_PATH" LJLEAK_SIGNAL=$sig LJLEAK_RUN_DIR=$tmp/sigrun \
    luajit -l ljleak.collector -e 'print("ran")' >"$tmp/signal.out" 2>&1
  check "signal_${sig}_is_refused" grep -q "bad signal '$sig'" "$tmp/signal.out"
done
long=$tmp/$(printf 'd%.0s' $(seq 1 250))/$(printf 'e%.0s' $(seq 1 250))/$(printf 'f%.0s' $(seq 1 250))
long=$long/$long/$long/$long/$long/$long
LJLEAK_ROOT=$long "$LJLEAK" run "$tmp/small.lua" >/dev/null 2>"$tmp/long.err"
check "an_over_long_root_is_an_error" test $? != 0
check "the_error_says_the_name_is_too_long" grep -qi "too long" "$tmp/long.err"

# 8. Root reading nobody's capture by hand (ljleak diff, info): nobody puts a FIFO in
# the place of a segment, its sidecar, a snapshot or the index, links one to root's file, or
# holds a write lease on one (an open waits 45 s for it), or makes one a terabyte of holes (no
# disk of nobody's). Each is refused at once, naming it; root's reading waited on the FIFOs
# and the lease, read through the link, and read the holes' zeros into memory (a bound here).
mkdir -p "$tmp/hand" && chown nobody:nogroup "$tmp/hand"
printf 'keep = {}\nfor i = 1, 3000 do keep[i] = {i} end\n' >"$tmp/hand.lua" && chmod 644 "$tmp/hand.lua"
as_nobody "$LJLEAK_ABS" run --snapshots 1 -o "$tmp/hand/cap" "$tmp/hand.lua" >/dev/null 2>&1
# hand_copy NAME: a copy of nobody's capture as $tmp/hand/NAME, nobody's; its path.
hand_copy() { as_nobody cp -r "$tmp/hand/cap" "$tmp/hand/$1" && echo "$tmp/hand/$1"; }
# hand_read NAME COMMAND...: root's ljleak COMMAND on it, bounded; its exit code, stderr in $tmp/hand-NAME.err
hand_read() { local name=$1; shift; timeout 30 "$LJLEAK" "$@" >/dev/null 2>"$tmp/hand-$name.err"; }
d=$(hand_copy fifo-segment) && as_nobody sh -c 'rm "$1" && mkfifo "$1"' - "$d/seg-0001.memprof"
hand_read fifo-segment diff "$d"
check "roots_diff_refuses_a_fifo_segment_with_3" test $? = 3
check "naming_it" grep -q "$d/seg-0001.memprof: not a regular file (a FIFO): refused" "$tmp/hand-fifo-segment.err"
d=$(hand_copy link-sidecar) && as_nobody sh -c 'rm "$1" && ln -s "$2" "$1"' - "$d/seg-0001.stacks" "$tmp/victims/index"
hand_read link-sidecar diff "$d"
check "roots_diff_refuses_a_sidecar_linked_to_roots_file" test $? = 3
check "saying_it_is_a_link" grep -q "$d/seg-0001.stacks: not a regular file (a link, not followed" "$tmp/hand-link-sidecar.err"
# goes_on NAME RC WHY WARNING: root's diff of the copy NAME, whose snapshots are refused, went on
# (RC 0, 1 or 5: no snapshot is no error), warning WHY for each.
goes_on() {
  check "roots_diff_goes_on_without_a_$(echo "$1" | tr - _)" test "$2" = 0 -o "$2" = 1 -o "$2" = 5
  check "$4" grep -q "snap-[0-9]*.heap: $3; no holders from it" "$tmp/hand-$1.err"
}
d=$(hand_copy fifo-snapshot) && as_nobody sh -c 'for f in "$1"/snap-*.heap; do rm "$f" && mkfifo "$f"; done' - "$d"
hand_read fifo-snapshot diff "$d"
goes_on fifo-snapshot $? "not a regular file (a FIFO): refused" warning_of_it
d=$(hand_copy fifo-index) && as_nobody sh -c 'rm "$1" && mkfifo "$1"' - "$d/index"
hand_read fifo-index info "$d"
check "roots_info_refuses_a_fifo_index_with_3" test $? = 3
check "naming_the_index" grep -q "$d/index: not a regular file (a FIFO): refused" "$tmp/hand-fifo-index.err"
d=$(hand_copy leased)
as_nobody luajit testdata/attach/lease.lua "$d/seg-0001.memprof" 40 >"$tmp/hand-lease.out" 2>&1 </dev/null &
leaser=$!
wait_for "grep -q leased '$tmp/hand-lease.out'"
started=$(date +%s)
hand_read leased diff "$d"
check "roots_diff_refuses_a_leased_segment_with_3" test $? = 3
check "saying_its_owner_holds_a_lease" grep -q "$d/seg-0001.memprof: cannot open: .*(its owner holds a lease on it: not waited for)" "$tmp/hand-leased.err"
check "without_waiting_for_the_lease" test $(($(date +%s) - started)) -lt 20
kill "$leaser" 2>/dev/null; wait "$leaser" 2>/dev/null
# hand_read_bounded NAME COMMAND...: hand_read in 2 GiB of address space, which this capture's
# reading needs a small part of and a terabyte's does not fit.
hand_read_bounded() { (ulimit -v 2097152 && hand_read "$@"); }
d=$(hand_copy sparse-index) && as_nobody truncate -s 1T "$d/index"
hand_read_bounded sparse-index diff "$d"
check "roots_diff_refuses_a_sparse_index_with_3" test $? = 3
check "saying_it_is_sparse" grep -q "$d/index: a sparse file (a hole at byte [0-9]*): refused" "$tmp/hand-sparse-index.err"
d=$(hand_copy sparse-snapshot) && as_nobody sh -c 'for f in "$1"/snap-*.heap; do truncate -s 1T "$f"; done' - "$d"
hand_read_bounded sparse-snapshot diff "$d"
goes_on sparse-snapshot $? "a sparse file (a hole at byte [0-9]*): refused (ljleak writes none)" warning_that_it_is_sparse
check "all_victims_are_unchanged_at_the_end" victims_intact
finish
