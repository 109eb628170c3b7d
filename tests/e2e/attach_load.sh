# tests/e2e/attach_load.sh: sourced by host-attach.sh and nginx-attach.sh (after lib.sh, with
# $client, $port and $LJLEAK set). attach_under_load PID CAP NAME PATH...: 4 connections of
# bench/nginx_client on PATHs for 10 s, `ljleak attach --duration 4 --every 64k --snapshots 2`
# into CAP 1 s in; checks that it captured (attach_captures_the_NAME), that no request failed,
# and that `ljleak diff` of CAP, written to $tmp/diff.out, flags the leak.
attach_under_load() {
  target=$1 cap=$2 name=$3
  shift 3
  "$client" "$port" 4 10s "$@" >"$tmp/load.out" &
  load=$!
  sleep 1
  "$LJLEAK" attach --duration 4 --every 64k --snapshots 2 -o "$cap" "$target" 2>"$tmp/attach.err"
  check "attach_captures_the_$name" test $? = 0
  [ -f "$cap/index" ] || cat "$tmp/attach.err"
  wait "$load"
  check "no_request_failed_under_the_attach" test $? = 0
  load=""
  "$LJLEAK" diff "$cap" >"$tmp/diff.out" 2>&1
  check "the_diff_flags_the_leak" test $? = 1
}
