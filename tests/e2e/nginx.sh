#!/bin/sh
# tests/e2e/nginx.sh: Debian's nginx with Debian's Lua module on OpenResty's
# LuaJIT (all unpacked privately, never installed), configured by
# testdata/nginx/nginx.conf (the README's config) with this test's paths and
# port: two workers, as nobody when run as root. ci/capture --pid <master>
# captures each worker through the control files (idle workers answer within
# 2 s), and each capture names the leaking line and nothing else; nginx
# serves only 200s and logs no alert before, during and after; no signal
# reaches nginx; a root the workers cannot write is reported with its
# reason, and one ci/capture creates is theirs; a reload ends the old
# workers' captures cleanly; stacks start at the content handler's chunk.
# Skips only if the packages cannot be downloaded.
E2E_NAME=nginx
. tests/e2e/lib.sh
. tests/e2e/nginx_setup.sh
check "the_config_has_only_this_tests_paths" sh -c \
  "! grep -n '/usr/lib/nginx\|/run/\|/var/\|/srv/\|/usr/share/lua\|/usr/local\|:8080' '$tmp/nginx.conf' | grep -v '$tmp\|$ngx\|$cmod'"
# The README shows this very config: its nginx block is the file less its
# three-line header.
sed -n '/^```nginx$/,/^```$/p' README.md | sed '1d;$d' > "$tmp/readme.conf"
tail -n +4 testdata/nginx/nginx.conf > "$tmp/file.conf"
check "the_readme_shows_this_config" cmp -s "$tmp/readme.conf" "$tmp/file.conf"

nginx -t >"$tmp/t.out" 2>&1
check "nginx_accepts_the_config" test $? = 0 || cat "$tmp/t.out"
nginx_start
check "nginx_starts" test -n "$master"
[ -n "$master" ] || { cat "$tmp/error.log"; finish; exit; }
n=0; until [ "$(ls "$tmp/run" 2>/dev/null | grep -c '^[0-9]*$')" -ge 2 ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
workers=$(workers_of "$master")
echo "master $master, workers $workers"
check "two_workers" test "$(echo $workers | wc -w)" = 2
for w in $workers; do
  check "worker_${w}_runs_as_$worker_user" test "$(awk '/^Uid:/ { print $3 }' /proc/$w/status)" = "$worker_uid"
  check "worker_${w}_registered" grep -qx "ppid=$master" "$tmp/run/$w"
  check "worker_${w}_polls_from_a_timer" grep -qx "poll=timer" "$tmp/run/$w"
  check "worker_${w}_registration_names_nginx" grep -qx "exe=$nginx_bin" "$tmp/run/$w"
  check "worker_${w}_runs_openrestys_luajit" grep -q "${libdir:-/}.*libluajit-5.1.so.2" "/proc/$w/maps"
done
check "no_collector_error_at_start_up" sh -c "! grep 'ljleak' '$tmp/error.log'"

# Workers that did not register (another run directory here): refused, and
# the refusal names them.
mkdir -p "$tmp/empty"
ci/capture --pid "$master" --run-dir "$tmp/empty" --duration 1 >/dev/null 2>"$tmp/unreg.err"
check "unregistered_workers_are_refused_with_3" test $? = 3
check "the_refusal_names_the_workers" grep -q "nor is any of its children ($(echo $workers))" "$tmp/unreg.err"

PATHS="/leak /churn /json /churn"
"$client" "$port" 4 300 $PATHS > "$tmp/before.out"
check "before_every_request_is_200" test $? = 0
cat "$tmp/before.out"

# Idle workers: the requests must be taken within 2 s (--wait-start 2).
sleep 2
ci/capture --pid "$master" --run-dir "$tmp/run" --duration 8 --wait-start 2 --wait-stop 5 --quiet >"$tmp/cap.out" 2>"$tmp/cap.err" &
cap=$!
n=0; until [ "$(grep -c 'capturing into' "$tmp/cap.err")" = 2 ] || ! kill -0 $cap 2>/dev/null || [ $n -ge 60 ]; do sleep 0.1; n=$((n + 1)); done
"$client" "$port" 4 6s $PATHS > "$tmp/during.out"
during=$?
wait $cap
status=$?
cat "$tmp/cap.err"
check "ci_capture_of_the_master_finds_the_leak" test "$status" = 1
check "during_every_request_is_200" test "$during" = 0
cat "$tmp/during.out"
check "one_capture_per_worker" test "$(grep -c 'capturing into' "$tmp/cap.err")" = 2
check "idle_workers_took_the_start_request_within_2s" sh -c "! grep -q 'did not take' '$tmp/cap.err'"
leaking=0
for d in $(sed -n 's/^capture: capturing into \(.*\) for .*/\1/p' "$tmp/cap.err"); do
  w=$("$LJLEAK" info --get pid "$d")
  check "capture_${w}_is_of_a_worker" sh -c "echo ' $workers ' | grep -q ' $w '"
  check "capture_${w}_stopped_on_request" test "$("$LJLEAK" info --get stop_reason "$d")" = stop
  check "capture_${w}_has_the_period_of_the_env_directive" test "$("$LJLEAK" info --get period "$d")" = 0.5
  check "capture_${w}_index_names_the_program" test "$("$LJLEAK" info --get exe "$d")" = "$nginx_bin"
  check "capture_${w}_index_names_the_master" test "$("$LJLEAK" info --get ppid "$d")" = "$master"
  check "capture_${w}_index_keeps_the_title_as_the_command" test "$("$LJLEAK" info --get command "$d")" = "nginx: worker process"
  check "capture_${w}_report_names_the_program_and_the_master" \
    grep -qF "$nginx_bin [nginx: worker process] (parent $master)" "$d/report.txt"
  NO_COLOR=1 "$LJLEAK" report --format junit -o "$d/report.xml" "$d/result.json" >/dev/null 2>&1
  flagged=$(grep -c '<failure' "$d/report.xml")
  leak=$(grep -c 'app.lua:12' "$d/report.txt")
  echo "capture $d: $flagged flagged, leak line named $leak times"
  check "capture_${w}_flags_only_the_leaking_line" sh -c \
    "grep '<failure' '$d/report.xml' | grep -v 'app.lua:12' | grep -q . && exit 1; exit 0"
  [ "$leak" -gt 0 ] && leaking=$((leaking + 1))
  # Stacks start at the handler's chunk (content_by_lua's coroutine), never
  # at a raw address of nginx.
  "$LJLEAK" diff --format folded -o "$d/stacks.folded" "$d" >/dev/null 2>&1
  check "capture_${w}_stacks_start_at_the_handler" grep -q '^coroutine;=content_by_lua(nginx.conf:[0-9]*):[0-9]*;' "$d/stacks.folded"
  check "capture_${w}_no_stack_has_a_raw_nginx_address" sh -c "! grep -q 'nginx+0x' '$d/stacks.folded' '$d/report.txt'"
done
check "a_capture_names_the_leaking_line" test "$leaking" -ge 1
"$client" "$port" 4 300 $PATHS > "$tmp/after.out"
check "after_every_request_is_200" test $? = 0
check "no_alert_crit_or_emerg_in_the_error_log" sh -c "! grep -E '\[(alert|crit|emerg)\]' '$tmp/error.log'"
check "the_master_is_the_same" test "$(cat "$tmp/nginx.pid")" = "$master"
check "no_new_master_binary" test ! -e "$tmp/nginx.pid.oldbin"
check "the_workers_are_the_same" test "$(workers_of "$master")" = "$workers"

# Permissions: a root the workers cannot write is refused with the reason
# the collector gives; a missing one is created for the workers' user, and
# the reports written for root belong to the capture's owner and are private.
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$tmp/ro" && chmod 755 "$tmp/ro"
  ci/capture --pid "$master" --run-dir "$tmp/run" --root "$tmp/ro" --duration 1 >/dev/null 2>"$tmp/ro.err"
  check "an_unwritable_root_exits_3" test $? = 3
  cat "$tmp/ro.err"
  check "the_collectors_reason_is_printed" grep -q "cannot start a capture: cannot create a capture directory in $tmp/ro: Permission denied" "$tmp/ro.err"
  ci/capture --pid "$master" --run-dir "$tmp/run" --root "$tmp/new/caps" --set sample=64k --duration 3 --quiet >/dev/null 2>"$tmp/new.err" &
  cap=$!
  "$client" "$port" 4 3s $PATHS >/dev/null
  wait $cap
  status=$?
  check "a_root_made_by_ci_capture_serves" sh -c "test $status = 0 || test $status = 1 || test $status = 5"
  check "the_new_root_belongs_to_the_workers_user" test "$(stat -c '%U %a' "$tmp/new/caps")" = "nobody 700"
  check "it_holds_one_capture_per_worker" test "$(ls -d "$tmp"/new/caps/ljleak-* | wc -l)" = 2
  for d in "$tmp"/new/caps/ljleak-*; do
    check "$(basename "$d")_has_the_sample_of_set" test "$("$LJLEAK" info --get sample "$d")" = 65536
    check "$(basename "$d")_reports_belong_to_nobody" test "$(stat -c '%U %a' "$d/report.txt" "$d/result.json" "$d/report.html" | sort -u)" = "nobody 600"
    check "$(basename "$d")_is_private" test "$(stat -c '%U %a' "$d")" = "nobody 700"
  done
else
  echo "skip permissions: not root (ci/capture creates roots for another user only as root)"
fi

# A reload during a capture: the old workers exit, and their captures end
# with a stop line (reason exit) and every complete event; the new workers
# register.
ci/capture --pid "$master" --run-dir "$tmp/run" --duration 6 --wait-stop 10 --quiet >/dev/null 2>"$tmp/reload.err" &
cap=$!
n=0; until [ "$(grep -c 'capturing into' "$tmp/reload.err")" = 2 ] || ! kill -0 $cap 2>/dev/null || [ $n -ge 60 ]; do sleep 0.1; n=$((n + 1)); done
"$client" "$port" 4 2s $PATHS >"$tmp/reload-load.out"
check "before_the_reload_every_request_is_200" test $? = 0
nginx -s reload
"$client" "$port" 4 2s $PATHS >"$tmp/reload-load2.out"
check "across_the_reload_every_request_is_200" test $? = 0
cat "$tmp/reload-load2.out"
wait $cap
status=$?
cat "$tmp/reload.err"
check "ci_capture_across_a_reload_reports" sh -c "test $status = 0 || test $status = 1 || test $status = 5"
for d in $(sed -n 's/^capture: capturing into \(.*\) for .*/\1/p' "$tmp/reload.err"); do
  w=$("$LJLEAK" info --get pid "$d")
  check "reload_capture_${w}_stopped_at_exit" test "$("$LJLEAK" info --get stop_reason "$d")" = exit
  "$LJLEAK" diff --format json -o "$tmp/reload-$w.json" "$d" 2>"$tmp/reload-$w.err"
  status=$?
  check "reload_capture_${w}_reads_whole" sh -c "test $status = 0 || test $status = 1 || test $status = 5"
  check "reload_capture_${w}_was_not_cut" sh -c "! grep -qi 'truncat\|cut' '$tmp/reload-$w.err'"
done
n=0; until [ "$(workers_of "$master" | wc -w)" = 2 ] && [ "$(ls "$tmp/run" | grep -c '^[0-9]*$')" = 2 ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
new_workers=$(workers_of "$master")
check "new_workers_after_the_reload" test "$new_workers" != "$workers"
for w in $new_workers; do
  check "new_worker_${w}_registered" grep -qx "ppid=$master" "$tmp/run/$w"
done
check "after_the_reload_no_alert_crit_or_emerg" sh -c "! grep -E '\[(alert|crit|emerg)\]' '$tmp/error.log'"

finish
