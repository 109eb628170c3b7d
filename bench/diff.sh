#!/bin/sh
# bench/diff.sh: events per second and peak memory of `ljleak diff` with -j 1 and -j 2,
# beside the physical limit (bench/read_limit).
# BOUNDARY_EVERY=N: the capture's index has a boundary line every N events (a full
# GC cycle each), so the diff reads every segment in pieces.
# STACKS=1: every segment gets a stack sidecar (bench/stacks-gen: each allocation one
# of four stacks per line), so the diff follows (site, stack) pairs.
set -e
BUILD=${BUILD:-build}
SEGMENTS=${SEGMENTS:-100}
PER=${PER:-500000}
RUNS=${RUNS:-3}
BOUNDARY_EVERY=${BOUNDARY_EVERY:-0}
STACKS=${STACKS:-0}
dir=$BUILD/bench/diff-capture-$SEGMENTS-$PER
[ "$BOUNDARY_EVERY" -gt 0 ] && dir=$dir-every-$BOUNDARY_EVERY
[ "$STACKS" = 1 ] && dir=$dir-stacks
if [ ! -s "$dir/events" ]; then
  echo "generating $dir" >&2
  rm -rf "$dir"
  mkdir -p "$dir"
  "$BUILD/bench/diff-gen" "$SEGMENTS" "$PER" "$dir" "$BOUNDARY_EVERY" > "$dir/events.tmp"
  [ "$STACKS" = 1 ] && "$BUILD/bench/stacks-gen" "$dir"/*.memprof
  mv "$dir/events.tmp" "$dir/events"
fi
events=$(cat "$dir/events")
echo "== ljleak diff$([ "$STACKS" = 1 ] && echo ' with stack sidecars'): $SEGMENTS segments, $events events, $("$BUILD/ljleak" info --get boundaries "$dir") boundary lines, $(du -sm "$dir" | cut -f1) MB"
# the physical limit of this machine: decoding and one table update per event
"$BUILD/bench/read_limit" "$RUNS" "$dir"/*.memprof
for jobs in 1 2; do
  # exit 1 (a site is flagged: the generated leak) counts as success
  "$BUILD/bench/run_timed" --runs "$RUNS" --events "$events" --label "diff -j $jobs" -- \
    /bin/sh -c '"$0" diff -q -j "$1" --format json -o /dev/null "$2"; [ $? -le 1 ]' \
    "$BUILD/ljleak" "$jobs" "$dir"
done
