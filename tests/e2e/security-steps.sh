#!/bin/sh
# tests/e2e/security-steps.sh: what the worker can reach of a root
# ci/capture run from a terminal (docs/security.md, "Steps as the process's
# user"). Root runs ci/capture in a pseudo-terminal (script) and, after it,
# reads its terminal as an interactive shell would; the worker runs as
# nobody, and so does the attacker, which stops ci/capture's diff step as
# soon as it runs and then, with gdb, makes it push a command into the
# terminal (TIOCSTI) through its descriptors and /dev/tty, and takes its
# descriptors with pidfd_getfd. The same attack on a process of nobody's
# that does hold the terminal pushes its command through (the attack
# works here); on the step, nothing reaches root's terminal, and the
# stopped step is killed at --step-timeout. Then a link planted above
# --root, and an ancestor swapped while ci/capture runs: root creates
# nothing outside. Needs root, gdb, perl and script; skipped otherwise.
E2E_NAME=security-steps
. tests/e2e/lib.sh
if [ "$(id -u)" != 0 ]; then
  echo "skip security-steps: not root (the attacks need a root ci/capture and another user)"
  finish
  exit
fi
for tool in gdb perl script; do
  command -v "$tool" >/dev/null || { bad "needs_$tool"; finish; exit; }
done
. tests/e2e/nobody_worker.sh
feeder=""
cleanup() {
  [ -z "$feeder" ] || kill "$feeder" 2>/dev/null
  [ -z "$worker" ] || kill "$worker" 2>/dev/null
  pkill -KILL -u nobody -x sleep 2>/dev/null
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

# The attack on one process P of nobody's, as nobody: what it holds, its
# descriptors taken with pidfd_getfd (a terminal among them gets an escape
# sequence), and, through gdb, TIOCSTI of the line TEXT on its descriptors
# 0, 1 and 2 and on /dev/tty opened inside it; each call's result in LOG.
cat > "$tmp/attack.sh" <<'EOS'
p=$1 text=$2
echo "stat: $(sed 's/.*) //' "/proc/$p/stat" | awk -v p="$p" '{ print "pid", p, "session", $4, "tty_nr", $5 }')"
for fd in /proc/"$p"/fd/*; do echo "holds fd ${fd##*/}: $(readlink "$fd")"; done
perl -e '
  my $pid = $ARGV[0] + 0;
  my $pidfd = syscall(434, $pid, 0);             # pidfd_open
  if ($pidfd < 0) { print "pidfd_open failed: $!\n"; exit 0 }
  for my $fd (0 .. 63) {
    my $n = syscall(438, $pidfd, $fd, 0);        # pidfd_getfd
    next if $n < 0;
    my $what = readlink("/proc/self/fd/$n");
    open(my $fh, "+<&=", $n) or next;
    if (-t $fh) { syswrite($fh, "\e]0;owned\a"); print "took fd $fd: $what: a terminal\n" }
    else { print "took fd $fd: $what: no terminal\n" }
  }' "$p"
# The first call made in a stopped process meets the pending SIGSTOP and is
# abandoned: a call whose result is not counted takes it.
set -- -ex 'set $ignored = ((int(*)(void))getpid)()' \
  -ex 'set $tty = ((int(*)(const char *, int))open)("/dev/tty", 2)' -ex 'print $tty'
for fd in 0 1 2 '$tty'; do
  i=0
  while [ $i -lt ${#text} ]; do
    c=${text:$i:1}
    set -- "$@" -ex "print ((int(*)(int, unsigned long, const char *))ioctl)($fd, 0x5412, \"$c\")"
    i=$((i + 1))
  done
  set -- "$@" -ex "print ((int(*)(int, unsigned long, const char *))ioctl)($fd, 0x5412, \"\\n\")"
done
gdb -q -nx -batch -p "$p" "$@" 2>&1 | grep '^\$' | sed 's/^/gdb: /'
kill -STOP "$p"
EOS

# A. The attack works here: on a process of nobody's that holds root's
# terminal, the line arrives where root's shell reads next.
cat > "$tmp/control-shell.sh" <<EOS
setpriv --reuid=nobody --regid=nogroup --clear-groups -- sleep 60 </dev/tty >/dev/null 2>&1 &
echo \$! > "$tmp/control.pid"
read -t 20 -r line
printf '%s' "\$line" > "$tmp/control.typed"
EOS
{ sleep 60 | script -qec "bash $tmp/control-shell.sh" /dev/null >"$tmp/control.pty" 2>&1; } &
feeder=$!
wait_for "[ -s '$tmp/control.pid' ]"
as_nobody bash "$tmp/attack.sh" "$(cat "$tmp/control.pid")" "touch $tmp/pwned-control" >"$tmp/control.log" 2>&1
wait_for "[ -f '$tmp/control.typed' ]"
cat "$tmp/control.log"
check "the_attack_takes_a_terminal_that_a_process_holds" grep -q 'a terminal$' "$tmp/control.log"
check "the_attack_pushes_a_line_into_a_terminal_that_a_process_holds" \
  test "$(cat "$tmp/control.typed")" = "touch $tmp/pwned-control"
kill -KILL "$(cat "$tmp/control.pid")" 2>/dev/null
pkill -P "$feeder" 2>/dev/null; kill "$feeder" 2>/dev/null; wait "$feeder" 2>/dev/null; feeder=""

# B. The same attack on ci/capture's diff step, run by root from a terminal.
root=$tmp/caps
start_worker "$root"
cat > "$tmp/root-shell.sh" <<EOS
ci/capture --pid $worker --root $root --run-dir $run --duration 3 --step-timeout 6 \
  >"$tmp/capture.out" 2>"$tmp/capture.err"
echo \$? > "$tmp/capture.status"
read -t 3 -r line
printf '%s' "\$line" > "$tmp/typed"
EOS
cat > "$tmp/catch.sh" <<'EOS'
n=0
while [ $n -lt 3000 ]; do
  for p in $(pgrep -u nobody -x ljleak); do
    tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | grep -q ' diff ' || continue
    grep -q 'libc\.so' "/proc/$p/maps" 2>/dev/null || continue
    kill -STOP "$p" || continue
    echo "caught $p"
    bash "$1" "$p" "$2"
    exit 0
  done
  sleep 0.005
  n=$((n + 1))
done
echo "caught no step"
EOS
# The diff step lives for a fraction of a second: on a busy machine the catcher can miss it.
# A missed step is no finding, so the capture is run again (3 times at most), and the checks
# below judge a step that was caught.
for attempt in 1 2 3; do
  rm -f "$tmp/typed" "$tmp/capture.status"
  as_nobody bash "$tmp/catch.sh" "$tmp/attack.sh" "touch $tmp/pwned-step" >"$tmp/attack.log" 2>&1 &
  attacker=$!
  { sleep 120 | script -qec "bash $tmp/root-shell.sh" /dev/null >"$tmp/root.pty" 2>&1; } &
  feeder=$!
  wait_for "[ -f '$tmp/typed' ]"
  wait "$attacker"
  pkill -P "$feeder" 2>/dev/null; kill "$feeder" 2>/dev/null; wait "$feeder" 2>/dev/null; feeder=""
  grep -q '^caught [0-9]' "$tmp/attack.log" && break
  echo "attempt $attempt: the catcher missed the diff step; again"
done
cat "$tmp/attack.log" "$tmp/capture.err"
kill -0 "$worker" 2>/dev/null || { echo "the worker is gone; its log:"; cat "$tmp/worker.log"; }
step=$(sed -n 's/^caught \([0-9][0-9]*\)$/\1/p' "$tmp/attack.log")
check "the_attacker_caught_the_diff_step" test -n "$step"
check "the_step_leads_a_session_of_its_own" grep -q "^stat: pid $step session $step tty_nr 0\$" "$tmp/attack.log"
check "the_step_holds_no_terminal" sh -c "! grep -q '^holds fd.*/dev/pts\|^holds fd.*/dev/tty' '$tmp/attack.log'"
check "the_steps_stdin_is_dev_null" grep -q '^holds fd 0: /dev/null$' "$tmp/attack.log"
check "pidfd_getfd_took_descriptors_of_the_step" grep -q '^took fd 0: /dev/null: no terminal$' "$tmp/attack.log"
check "none_of_them_is_a_terminal" sh -c "! grep -q 'a terminal\$' '$tmp/attack.log'"
# 1 open and 4 descriptors x (the line + newline) calls, all made, all failed.
calls=$(( 1 + 4 * (${#tmp} + 18) ))
check "gdb_made_every_call_in_the_step" test "$(grep -c '^gdb: ' "$tmp/attack.log")" = "$calls"
check "every_call_failed" test "$(grep -c '^gdb: \$[0-9]* = -1$' "$tmp/attack.log")" = "$calls"
check "nothing_reached_roots_terminal" test ! -s "$tmp/typed"
check "nothing_ran" test ! -e "$tmp/pwned-step"
check "the_stopped_step_was_killed_at_its_limit" test "$(cat "$tmp/capture.status")" = 4
check "ci_capture_names_the_step_and_the_limit" \
  grep -q "ljleak diff for process $worker ran over --step-timeout (6 s) and was killed" "$tmp/capture.err"
check "the_step_is_gone" test ! -d "/proc/$step"
stop_worker

# C. A link of the worker's above --root, to a directory of root's: refused,
# nothing made there. Then the same path with the link swapped in and out
# while ci/capture runs: whatever the timing, root makes nothing in root's
# directory (a missing root below a directory of the worker's is made as
# the worker, who may not write there).
start_worker "$tmp/caps2"
mkdir -m 755 "$tmp/w" "$tmp/rootonly" && chown nobody:nogroup "$tmp/w"
as_nobody ln -s "$tmp/rootonly" "$tmp/w/sub"
ci/capture --pid "$worker" --root "$tmp/w/sub/caps" --run-dir "$run" --duration 0.5 >/dev/null 2>"$tmp/link.err"
check "a_link_of_the_workers_above_the_root_is_refused_with_3" test $? = 3
check "the_refusal_names_the_link_and_its_owner" grep -q "$tmp/w/sub is a link that belongs to nobody" "$tmp/link.err"
check "nothing_was_made_through_the_link" test -z "$(ls -A "$tmp/rootonly")"
as_nobody mkdir "$tmp/w/real"
as_nobody sh -c '
  w=$1 target=$2 n=0
  while [ $n -lt 4000 ] && [ ! -e "$w/stop" ]; do
    rm -f "$w/sub" 2>/dev/null && mv -T "$w/real" "$w/sub" 2>/dev/null
    mv -T "$w/sub" "$w/real" 2>/dev/null && ln -s "$target" "$w/sub"
    n=$((n + 1))
  done' swapper "$tmp/w" "$tmp/rootonly" &
swapper=$!
outcomes=""
for i in 1 2 3 4 5 6 7 8; do
  ci/capture --pid "$worker" --root "$tmp/w/sub/caps$i" --run-dir "$run" --duration 0.3 --quiet >/dev/null 2>"$tmp/swap$i.err"
  outcomes="$outcomes $?"
done
as_nobody touch "$tmp/w/stop"
wait "$swapper"
echo "swap outcomes (exit status per run):$outcomes"
cat "$tmp"/swap*.err | sort | uniq -c | sed 's/^/  /' | head -n 20
check "root_made_nothing_in_its_directory_through_the_swapped_ancestor" test -z "$(ls -A "$tmp/rootonly")"
check "root_owns_nothing_below_the_workers_directory" test -z "$(find "$tmp/w" -mindepth 1 -user root)"
check "what_was_made_below_it_is_the_workers" test -z "$(find "$tmp/w" -mindepth 1 ! -user nobody)"
stop_worker
finish
