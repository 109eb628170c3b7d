#!/bin/sh
# tests/e2e/nginx-attach.sh: ljleak attach into a worker of Debian's nginx with its Lua module
# (OpenResty's LuaJIT, the collector of make other-luajit) whose config never loads the
# collector, under a steady load: no request fails, the capture finds the leak at its line,
# and the worker, the same pid, serves on.
E2E_NAME=nginxattach
. tests/e2e/lib.sh
if ! command -v gdb >/dev/null 2>&1; then
  echo "nginx-attach: gdb is not installed (apt-get install gdb)"; bad "gdb_installed"; finish; exit
fi
NGINX_SED='/require.*ljleak.collector/d'
. tests/e2e/nginx_setup.sh
nginx_start
check "nginx_started_without_the_collector" test -n "$master"
[ -n "$master" ] || { cat "$tmp/error.log"; finish; exit; }
workers=$(workers_of "$master")
worker=${workers%% *}
check "its_worker_has_no_collector" sh -c "! grep -q collector.so /proc/$worker/maps"

"$client" "$port" 4 10s /leak /churn /json >"$tmp/load.out" &
load=$!
sleep 1
LJLEAK_COLLECTOR=$cmod/ljleak/collector.so \
  "$LJLEAK" attach --duration 4 --every 64k --snapshots 2 -o "$tmp/caps/w" "$worker" 2>"$tmp/attach.err"
check "attach_captures_the_worker" test $? = 0
[ -f "$tmp/caps/w/index" ] || cat "$tmp/attach.err"
wait "$load"
check "no_request_failed_under_the_attach" test $? = 0
load=""
"$LJLEAK" diff "$tmp/caps/w" >"$tmp/diff.out" 2>&1
check "the_diff_flags_the_leak" test $? = 1
check "at_app_lua_line_12" sh -c "sed -n '/^growing/,/^\$/p' '$tmp/diff.out' | grep -q 'app.lua:12'"
check "held_by_the_modules_list" sh -c "sed -n '/^held by/,/^\$/p' '$tmp/diff.out' | grep -q 'seen'"
check "the_capture_is_the_workers_user" test "$(stat -c %U "$tmp/caps/w/index")" = "$worker_user"
check "the_worker_runs_on" kill -0 "$worker"
"$client" "$port" 2 50 /leak /churn >"$tmp/after.out"
check "and_serves" test $? = 0
check "with_the_same_workers" test "$(workers_of "$master")" = "$workers"
finish
