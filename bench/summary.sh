#!/bin/sh
# bench/summary.sh: speed and peak memory of `ljleak summary --leak-only` on synthetic streams,
# beside the physical limit (bench/read_limit).
# Streams are generated once into $BUILD/bench. Three cases: the base stream
# (EVENTS events), one twice as long with the same live set (memory must not
# grow), and one as long as the base with a ten times larger live set (memory
# grows with live blocks).
set -e
BUILD=${BUILD:-build}
EVENTS=${EVENTS:-10000000}
RUNS=${RUNS:-9}
dir=$BUILD/bench

. "$(dirname "$0")/stream.sh"

# measure LABEL RUNS FILE
measure() {
  events=$(cut -d' ' -f1 < "$3.info")
  echo "== $1: $(cat "$3.info"), $(du -m "$3" | cut -f1) MB"
  "$dir/read_limit" "$2" "$3"
  "$dir/run_timed" --runs "$2" --events "$events" --label "$1" -- \
    "$BUILD/ljleak" summary --leak-only "$3"
}

base=$(stream base "$EVENTS" 50000 20000)
long=$(stream long $((EVENTS * 2)) 50000 20000)
wide=$(stream wide "$EVENTS" 500000 200000)
measure "1x stream" "$RUNS" "$base"
measure "2x stream, same live set" 5 "$long"
measure "1x stream, 10x live set" 5 "$wide"
