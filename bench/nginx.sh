#!/bin/sh
# bench/nginx.sh: the cost of capturing an nginx worker (make bench). The test
# nginx of tests/e2e/nginx.sh (testdata/nginx/nginx.conf, one worker here)
# serves its Lua locations to bench/nginx_client (2 connections) for SECONDS
# per run; ROUNDS rounds of three runs in turn: no capture, a sampled capture
# (--set sample=SAMPLE) and a full capture, started and stopped through the
# control files as ci/capture does. Prints each run's request rate per
# second of the worker's CPU time (and per wall second), the medians, and the
# median of each round's own ratio to its plain run. Then
# the forced-cycle cost on a growing heap: /leak and /churn, full captures
# with and without a full GC cycle forced every PERIOD seconds, in turns.
E2E_NAME=nginx-bench
. tests/e2e/lib.sh
ROUNDS=${ROUNDS:-7}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-3}
SAMPLE=${SAMPLE:-524288}
PERIOD=${PERIOD:-0.5}
# One worker, and no capture options from the config: each run gives its own.
NGINX_SED='s#^worker_processes 2;#worker_processes 1;#;/^env LJLEAK_PERIOD=/d;/^env LJLEAK_FORCE_GC=/d'
. tests/e2e/nginx_setup.sh
nginx_start
[ -n "$master" ] || { cat "$tmp/error.log"; exit 1; }
n=0; until [ "$(ls "$tmp/run" 2>/dev/null | grep -c '^[0-9]*$')" -ge 1 ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
worker=$(workers_of "$master" | tr -d ' ')
[ -f "$tmp/run/$worker" ] || { echo "bench/nginx.sh: the worker did not register"; exit 1; }

# A request ACTION [KEY=VALUE...] written and its answer read with ljleak
# control, as ci/capture does.
seq=0
control() { "$LJLEAK" control --run-dir "$tmp/run" "$@" "$worker"; }
ask() {
  action=$1
  shift
  seq=$((seq + 1))
  for option; do set -- "$@" --set "$option"; shift; done
  control --request "$action" --id "bench-$seq" "$@" >/dev/null || exit 1
  n=0
  until [ "$(control --get request)" = "bench-$seq" ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
  [ "$(control --get result)" = ok ] || { echo "bench/nginx.sh: $action refused: $(control --get error)"; exit 1; }
}
# The worker's CPU time in clock ticks (utime + stime).
ticks() { sed 's/.*) //' "/proc/$worker/stat" | awk '{ print $12 + $13 }'; }
hz=$(getconf CLK_TCK)
# One run of SECONDS_PER_RUN on PATHS, with a capture of OPTIONS, or none:
# requests per second of the worker's CPU time (what the capture costs the
# worker, which other processes on a shared machine hardly change), and
# requests per second of wall time.
run() {
  mode=$1 options=$2
  shift 2
  # shellcheck disable=SC2086
  [ "$mode" = plain ] || ask start $options
  before=$(ticks)
  out=$("$client" "$port" 2 "${SECONDS_PER_RUN}s" "$@")
  status=$?
  after=$(ticks)
  [ "$mode" = plain ] || ask stop
  [ "$status" = 0 ] || { echo "bench/nginx.sh: requests failed: $out"; exit 1; }
  ok=$(echo "$out" | sed -n 's/.* ok=\([0-9]*\).*/\1/p')
  wall=$(echo "$out" | sed -n 's/.* rate=\([0-9.]*\).*/\1/p')
  awk -v n="$ok" -v t=$((after - before)) -v hz="$hz" -v w="$wall" \
    'BEGIN { printf "%.1f %.1f\n", (t > 0 ? n * hz / t : 0), w }'
}
. "$(dirname "$0")/median.sh"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f\n", a / b }'; }
percent() { awk -v r="$1" 'BEGIN { printf "%+.1f%%", (r - 1) * 100 }'; }

echo "== nginx: /churn /json /churn /json on one worker, $ROUNDS rounds of $SECONDS_PER_RUN s runs (plain, sampled $SAMPLE, full)"
"$client" "$port" 2 2s /churn /json >/dev/null   # warm up: the traces
: > "$tmp/plain" && : > "$tmp/sampled" && : > "$tmp/full" && : > "$tmp/r-sampled" && : > "$tmp/r-full"
i=1
while [ $i -le "$ROUNDS" ]; do
  pw=$(run plain "" /churn /json /churn /json)
  sw=$(run sampled "sample=$SAMPLE" /churn /json /churn /json)
  fw=$(run full "" /churn /json /churn /json)
  p=${pw% *} s=${sw% *} f=${fw% *}
  echo "round $i: requests per CPU second of the worker: plain $p, sampled $s, full $f (per wall second: ${pw#* }, ${sw#* }, ${fw#* })"
  echo "$p" >> "$tmp/plain"; echo "$s" >> "$tmp/sampled"; echo "$f" >> "$tmp/full"
  ratio "$s" "$p" >> "$tmp/r-sampled"; ratio "$f" "$p" >> "$tmp/r-full"
  i=$((i + 1))
done
mp=$(median < "$tmp/plain") ms=$(median < "$tmp/sampled") mf=$(median < "$tmp/full")
rs=$(median < "$tmp/r-sampled") rf=$(median < "$tmp/r-full")
echo "median requests per CPU second of the worker: plain $mp, sampled $ms, full $mf"
echo "median of the rounds' ratios to plain: sampled $rs ($(percent "$rs")), full $rf ($(percent "$rf"))"

echo "== nginx: /leak /churn (a growing heap), full capture with and without a full GC cycle forced every $PERIOD s, $ROUNDS rounds"
: > "$tmp/free" && : > "$tmp/forced" && : > "$tmp/r-forced"
i=1
while [ $i -le "$ROUNDS" ]; do
  aw=$(run full "" /leak /churn)
  bw=$(run full "period=$PERIOD force_gc=1" /leak /churn)
  a=${aw% *} b=${bw% *}
  heap=$("$LJLEAK" info --get heap_bytes "$(control --get dir)")
  echo "round $i: requests per CPU second: no forced cycle $a, forced every $PERIOD s $b, Lua heap at the last cycle $(awk -v h="${heap:-0}" 'BEGIN { printf "%.1f MiB", h / 1048576 }')"
  echo "$a" >> "$tmp/free"; echo "$b" >> "$tmp/forced"; ratio "$b" "$a" >> "$tmp/r-forced"
  i=$((i + 1))
done
ma=$(median < "$tmp/free") mb=$(median < "$tmp/forced") rb=$(median < "$tmp/r-forced")
echo "median requests per CPU second: no forced cycle $ma, forced every $PERIOD s $mb; median ratio $rb ($(percent "$rb"))"
