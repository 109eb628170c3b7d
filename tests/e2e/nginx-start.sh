#!/bin/sh
# tests/e2e/nginx-start.sh: options given to the module's start{} in a real
# nginx reach every worker's capture, with those of the env directives: the
# README's config with start{ sample = "64k", stack_depth = 4 } in
# init_by_lua (deferred to each worker), then in init_worker_by_lua. Each
# worker writes its own capture (sampled, 4 frames, the env's period), which
# names the leaking line once nginx has quit. Skips as tests/e2e/nginx.sh does.
if [ -z "${NGINX_START_PHASE:-}" ]; then  # both phases, each with its own nginx
  NGINX_START_PHASE=init sh "$0"; a=$?
  NGINX_START_PHASE=worker sh "$0"; b=$?
  [ "$a" = 0 ] && [ "$b" = 0 ]; exit
fi
E2E_NAME=nginx-start
. tests/e2e/lib.sh
phase=$NGINX_START_PHASE
if [ "$phase" = init ]; then
  NGINX_SED='s#^        require "ljleak.collector"$#        assert(require("ljleak.collector").start { sample = "64k", stack_depth = 4 })#'
else
  NGINX_SED='s#local ok, err = require("ljleak.collector").nginx()#local ok, err = require("ljleak.collector").start { sample = "64k", stack_depth = 4 }#'
fi
. tests/e2e/nginx_setup.sh
check "${phase}: the_config_calls_start" grep -q 'start { sample = "64k", stack_depth = 4 }' "$tmp/nginx.conf"
nginx_start
check "${phase}: nginx_starts" test -n "$master"
[ -n "$master" ] || { cat "$tmp/error.log"; finish; exit; }
n=0; until [ "$(ls "$tmp/caps" 2>/dev/null | wc -l)" -ge 2 ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
"$client" "$port" 4 3s /leak /churn /json /churn > "$tmp/load.out"
check "${phase}: every_request_is_200" test $? = 0
nginx -s quit
n=0; while kill -0 "$master" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
master=""
check "${phase}: nothing_at_alert_crit_or_emerg" sh -c "! grep -E '\[(alert|crit|emerg)\]' '$tmp/error.log'"
check "${phase}: no_collector_error" sh -c "! grep 'ljleak' '$tmp/error.log'"
caps=$(ls -d "$tmp"/caps/* 2>/dev/null)
check "${phase}: one_capture_per_worker" test "$(echo $caps | wc -w)" = 2
for cap in $caps; do
  w=$(basename "$cap")
  check "${phase}: $w: start{}'s sample arrived" test "$("$LJLEAK" info --get sample "$cap")" = 65536
  check "${phase}: $w: start{}'s stack_depth arrived" test "$("$LJLEAK" info --get stacks "$cap")" = 4
  check "${phase}: $w: the env directive's period arrived" test "$("$LJLEAK" info --get period "$cap")" = 0.5
  "$LJLEAK" diff -q --format json -o "$tmp/$w.json" "$cap" 2>"$tmp/$w.diff.err"
  status=$?
  check "${phase}: $w: the leak is flagged (exit $status)" test "$status" = 1
  printf 'leak app.lua:12\nallow INTERNAL\n' > "$tmp/truth"
  problems=$(luajit tests/e2e/diff_truth.lua "$tmp/$w.json" "$tmp/truth")
  check "${phase}: $w: at app.lua:12 and nowhere else${problems:+: $problems}" test -z "$problems"
done
finish
