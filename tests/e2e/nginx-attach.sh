#!/bin/sh
# tests/e2e/nginx-attach.sh: ljleak attach into a worker of Debian's nginx with its Lua module
# (OpenResty's LuaJIT, the collector of make other-luajit) whose config never loads the
# collector, under a steady load: no request fails, the capture finds the leak at its line,
# and the worker, the same pid, serves on.
E2E_NAME=nginxattach
. tests/e2e/lib.sh
. tests/e2e/attach_load.sh
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

LJLEAK_COLLECTOR=$cmod/ljleak/collector.so
export LJLEAK_COLLECTOR
attach_under_load "$worker" "$tmp/caps/w" worker /leak /churn /json
check "at_app_lua_line_12" sh -c "sed -n '/^growing/,/^\$/p' '$tmp/diff.out' | grep -q 'app.lua:12'"
check "held_by_the_modules_list" sh -c "sed -n '/^held by/,/^\$/p' '$tmp/diff.out' | grep -q 'seen'"
check "the_capture_is_the_workers_user" test "$(stat -c %U "$tmp/caps/w/index")" = "$worker_user"
check "the_worker_runs_on" kill -0 "$worker"
"$client" "$port" 2 50 /leak /churn >"$tmp/after.out"
check "and_serves" test $? = 0
check "with_the_same_workers" test "$(workers_of "$master")" = "$workers"
finish
