#!/bin/sh
# bench/diff.sh: events per second and peak memory of `ljleak diff` with -j 1 and -j 2,
# as ratios against the physical limit (bench/read_limit) and -j 2 against -j 1.
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
# shellcheck disable=SC2034 # read by bench/yardstick.sh
times=$BUILD/bench
. "$(dirname "$0")/yardstick.sh"
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
# the physical limit of this machine (decoding and one table update per
# event), -j 1 and -j 2, in turns (bench/yardstick.sh): -j 1 against the
# limit by CPU time, -j 2 against -j 1 by wall time (what the second thread
# is for).
# shellcheck disable=SC2016 # the script's own arguments, expanded when it runs
diff_script='"$0" diff -q -j "$1" --format json -o /dev/null "$2"; [ $? -le 1 ]'  # exit 1: the generated leak
run_limit() { "$BUILD/bench/read_limit" 1 "$dir"/*.memprof; }
run_j1() { "$BUILD/bench/run_timed" --runs 1 --label "diff -j 1" -- /bin/sh -c "$diff_script" "$BUILD/ljleak" 1 "$dir"; }
run_j2() { "$BUILD/bench/run_timed" --runs 1 --label "diff -j 2" -- /bin/sh -c "$diff_script" "$BUILD/ljleak" 2 "$dir"; }
in_turns "$RUNS" limit j1 j2
figure "physical limit (decoding, one table update per event)" limit "$events"
figure "diff -j 1" j1 "$events" limit cpu "the read limit's speed"
figure "diff -j 2" j2 "$events" j1 wall "the speed of -j 1"
