#!/bin/sh
# tests/e2e/host-attach.sh: ljleak attach into a C host on this build's LuaJIT that never loaded
# the collector and calls into Lua once per request, as nginx does (tests/attach_host.c), under a
# steady load: no request fails, the capture finds the leak at its line and its holder by the
# module's name, --snapshot answers with what holds the heap, and the host serves on.
E2E_NAME=hostattach
. tests/e2e/lib.sh
. tests/e2e/attach_load.sh
if ! command -v gdb >/dev/null 2>&1; then
  echo "host-attach: gdb is not installed (apt-get install gdb)"; bad "gdb_installed"; finish; exit
fi
export LJLEAK_RUN_DIR=$tmp/run
host=$BUILD/tests/attach_host
client=$BUILD/bench/nginx_client
make --no-print-directory BUILD="$BUILD" "$host" "$client" >"$tmp/make.log" 2>&1 ||
  { cat "$tmp/make.log"; bad "build_the_host"; finish; exit; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$host" testdata/attach/host_app.lua "$port" >"$tmp/host.out" 2>"$tmp/host.err" &
pid=$!
load=""
trap 'kill $pid $load 2>/dev/null; rm -rf "$tmp"' EXIT
n=0; until grep -q listening "$tmp/host.out" 2>/dev/null || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
check "the_host_listens_without_the_collector" sh -c "grep -q listening '$tmp/host.out' && ! grep -q collector.so /proc/$pid/maps"

attach_under_load "$pid" "$tmp/cap" host /leak /churn
check "at_host_app_lua_line_10" sh -c "sed -n '/^growing/,/^\$/p' '$tmp/diff.out' | grep -q 'host_app.lua:10'"
check "held_by_the_module_by_its_name" grep -q "sessions\.open" "$tmp/diff.out"
check "the_host_runs_on" kill -0 "$pid"

# --snapshot under load: what holds the heap now, and the host serves on.
"$client" "$port" 4 6s /leak /churn >"$tmp/load2.out" &
load=$!
sleep 1
"$LJLEAK" attach --snapshot -o "$tmp/snap" "$pid" >"$tmp/snap.out" 2>"$tmp/snap.err"
check "snapshot_now_exits_0" test $? = 0
check "and_names_the_holder" grep -q "sessions\.open" "$tmp/snap.out"
wait "$load"
check "no_request_failed_under_the_snapshot" test $? = 0
load=""
"$client" "$port" 2 50 /leak /churn >"$tmp/after.out"
check "and_serves_after" test $? = 0
kill -TERM "$pid"
wait "$pid"
check "the_host_ends_as_it_would" test $? = 0
finish
