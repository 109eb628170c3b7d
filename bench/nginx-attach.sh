#!/bin/sh
# bench/nginx-attach.sh: the slowest request of an nginx worker under steady load while ljleak
# attach enters it, takes a heap snapshot and leaves (make bench-nginx-attach). The test nginx
# of tests/e2e/nginx-attach.sh (a config without the collector), 4 connections of bench/
# nginx_client on /leak, /churn and /json for SECONDS per run; ROUNDS rounds of a run without an
# attach and a run with ljleak attach --snapshot to one worker 1 s into it. Prints each run's
# slowest request and failures, and the medians of the slowest, in ms; then the heap snapshot's
# own pause as the capture's index records it (snapshot pause_us).
E2E_NAME=nginx-attach-bench
. tests/e2e/lib.sh
. bench/median.sh
# The config without its line that loads the collector, as tests/e2e/nginx-attach.sh has it.
NGINX_SED='/require.*ljleak.collector/d'
. tests/e2e/nginx_setup.sh
nginx_start
ROUNDS=${ROUNDS:-5}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-4}
[ -n "$master" ] || { cat "$tmp/error.log"; exit 1; }
n=0; until [ -n "$(workers_of "$master")" ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
workers=$(workers_of "$master")
worker=${workers%% *}
"$client" "$port" 2 2s /churn /json >/dev/null   # warm up: the traces
# run NAME [attach]: one run's slowest request, appended to $tmp/NAME.
run() {
  "$client" "$port" 4 "${SECONDS_PER_RUN}s" /leak /churn /json >"$tmp/load.out" &
  load=$!
  if [ "$2" = attach ]; then
    sleep 1
    rm -rf "$tmp/caps/w"
    LJLEAK_COLLECTOR=$cmod/ljleak/collector.so \
      "$LJLEAK" attach --snapshot -o "$tmp/caps/w" "$worker" >/dev/null 2>"$tmp/attach.err" ||
      { cat "$tmp/attach.err"; exit 1; }
    sed -n 's/^snapshot.*pause_us=\([0-9]*\).*/\1/p' "$tmp/caps/w/index" |
      awk '{ printf "%.1f\n", $1 / 1000 }' >>"$tmp/snapshot"
  fi
  wait "$load" || echo "$1: requests failed: $(cat "$tmp/load.out")"
  load=""
  sed -n 's/.* slowest_ms=\([0-9.]*\).*/\1/p' "$tmp/load.out" >>"$tmp/$1"
  sed -n 's/.* failed=\([0-9]*\).*/\1/p' "$tmp/load.out" >>"$tmp/$1.failed"
}
i=0
while [ $i -lt "$ROUNDS" ]; do
  i=$((i + 1))
  run plain
  run attach attach
done
echo "== the slowest request under 4 connections of steady load, ms: each run, then the median of $ROUNDS"
for name in plain attach; do
  printf "%-8s %-36s median %s  (failed: %s)\n" "$name" "$(tr '\n' ' ' <"$tmp/$name")" \
    "$(median "$tmp/$name")" "$(tr '\n' ' ' <"$tmp/$name.failed")"
done
printf "%-8s %-36s median %s  (the heap snapshot's own pause)\n" snapshot \
  "$(tr '\n' ' ' <"$tmp/snapshot")" "$(median "$tmp/snapshot")"
