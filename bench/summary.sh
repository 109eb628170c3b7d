#!/bin/sh
# bench/summary.sh: speed and peak memory of `ljleak summary --leak-only` on synthetic streams,
# as a ratio against the physical limit (bench/read_limit), run in turns with it.
# Streams are generated once into $BUILD/bench. Three cases: the base stream
# (EVENTS events), one twice as long with the same live set (memory must not
# grow), and one as long as the base with a ten times larger live set (memory
# grows with live blocks).
set -e
BUILD=${BUILD:-build}
EVENTS=${EVENTS:-10000000}
RUNS=${RUNS:-9}
dir=$BUILD/bench
# shellcheck disable=SC2034 # read by bench/yardstick.sh
times=$dir

. "$(dirname "$0")/stream.sh"
. "$(dirname "$0")/yardstick.sh"

# measure LABEL RUNS FILE: the summary and the limit, in turns (bench/yardstick.sh).
measure() {
  events=$(cut -d' ' -f1 < "$3.info")
  echo "== $1: $(cat "$3.info"), $(du -m "$3" | cut -f1) MB"
  stream_file=$3
  in_turns "$2" limit summary
  figure "physical limit (decoding, one table update per event)" limit "$events"
  figure "summary --leak-only" summary "$events" limit cpu "the read limit's speed"
}
run_limit() { "$dir/read_limit" 1 "$stream_file"; }
run_summary() { "$dir/run_timed" --runs 1 --label summary -- "$BUILD/ljleak" summary --leak-only "$stream_file"; }

base=$(stream base "$EVENTS" 50000 20000)
long=$(stream long $((EVENTS * 2)) 50000 20000)
wide=$(stream wide "$EVENTS" 500000 200000)
measure "1x stream" "$RUNS" "$base"
measure "2x stream, same live set" 5 "$long"
measure "1x stream, 10x live set" 5 "$wide"
