#!/bin/bash
# bench/overhead.sh: wall time of the collector on an allocation-heavy JIT-on
# workload (bench/overhead.lua), against plain luajit, in two parts:
#
#  1. full capture: RUNS rounds of plain luajit, ljleak run (with call
#     stacks, the default depth 16), ljleak run --stack-depth 0 (no stacks)
#     and the same with LJLEAK_TRACE_LINES=0 (allocations by compiled code
#     charged to their trace, not resolved to their line), and that with
#     no snapshots, no forced cycles (--snapshots none, --no-edge-gc,
#     LJLEAK_VOLUME_BOUNDARIES=0): the stream alone, every event encoded
#     and written and nothing more, the floor of a full capture (what the
#     format costs), beside a plain run of its own; ROUNDS long;
#  2. ljleak run --sample 524288 (with stacks): SAMPLED_RUNS rounds of plain
#     luajit and the sampled run, SAMPLED_ROUNDS long.
#
# Part 1 also prints how many allocations by compiled code got their Lua
# line (the index's trace_events and trace_lines), and what resolving them
# costs: per round, the run without stacks less the one without lines,
# divided by those allocations (a difference of two noisy runs: its median
# over the rounds, and callgrind's instruction counts in docs/collector.md,
# are the figures to trust).
#
# Prints the medians, the ratios to plain (wall and CPU), the events per
# second and the stream's bytes per event, with and without the stack
# sidecars (their bytes counted in). On a shared machine one run of
# the same binary varies by some +-8% from the next, and the machine's speed
# drifts over the minutes a part takes, so a ratio of two medians compares
# runs made minutes apart. The runs therefore come in pairs, one right after
# the other, and the targets apply to the median of the pairs' own ratios.
# The sampled part, whose cost is smaller than the noise, takes many
# shorter pairs, alternates which run of a pair goes first, and prints the
# same comparison made between its own plain runs (odd rounds against even
# ones), which is what noise alone gives.
set -e
BUILD=${BUILD:-build}
RUNS=${RUNS:-5}
ROUNDS=${ROUNDS:-500}
SAMPLED_RUNS=${SAMPLED_RUNS:-41}
SAMPLED_ROUNDS=${SAMPLED_ROUNDS:-100}
dir=$BUILD/bench/overhead
rm -rf "$dir"
mkdir -p "$dir"
sync

# run LABEL COMMAND...: appends the wall time of one run to $dir/LABEL.times
# and its CPU time (user + system) to $dir/LABEL.cpu, in ms (bash's time;
# time(1) gives only hundredths)
TIMEFORMAT='%3R %3U %3S'
run() {
  label=$1
  shift
  { time "$@" > "$dir/$label.out" 2> "$dir/$label.err"; } 2> "$dir/time.tmp"
  awk '{ printf "%.4f\n", $1 }' "$dir/time.tmp" >> "$dir/$label.times"
  awk '{ printf "%.4f\n", $2 + $3 }' "$dir/time.tmp" >> "$dir/$label.cpu"
  awk '{ printf "%.4f\n", $3 }' "$dir/time.tmp" >> "$dir/$label.sys"
}

. "$(dirname "$0")/median.sh"
ratio() { echo "$1 $2" | awk '{ printf "%.3f", $1 / $2 }'; }
same_output() {
  cmp -s "$dir/$1.out" "$dir/$2.out" || { echo "bench: $2 output differs from $1" >&2; exit 1; }
}
# stats DIR: the capture's events, stream bytes, trace_events and trace_lines,
# its segment lines summed by ljleak info (0 for a key it has not).
stats() { "$BUILD/ljleak" info --get events --get bytes --get trace_events --get trace_lines "$1" | sed 's/^$/0/' | paste -sd ' ' -; }

# Part 1: full capture.
i=1
while [ "$i" -le "$RUNS" ]; do
  run plain luajit bench/overhead.lua "$ROUNDS"
  rm -rf "$dir/full-cap"
  run full "$BUILD/ljleak" run -o "$dir/full-cap" bench/overhead.lua "$ROUNDS"
  # The full capture leaves some 800 MB of dirty page cache; written back
  # during the next runs it would slow them. Removed, it is dropped unwritten.
  mkdir -p "$dir/full-index"
  cp "$dir/full-cap/index" "$dir/full-index/index"
  cat "$dir"/full-cap/*.stacks | wc -c > "$dir/full-index/stacks-bytes"
  rm -rf "$dir/full-cap"
  sync
  LJLEAK_TRACE_LINES=0 run nolines "$BUILD/ljleak" run --stack-depth 0 -o "$dir/full-cap" bench/overhead.lua "$ROUNDS"
  rm -rf "$dir/full-cap"
  sync
  run nostacks "$BUILD/ljleak" run --stack-depth 0 -o "$dir/full-cap" bench/overhead.lua "$ROUNDS"
  mkdir -p "$dir/nostacks-index"
  cp "$dir/full-cap/index" "$dir/nostacks-index/index"
  rm -rf "$dir/full-cap"
  sync
  run plain2 luajit bench/overhead.lua "$ROUNDS"
  LJLEAK_TRACE_LINES=0 LJLEAK_VOLUME_BOUNDARIES=0 run stream "$BUILD/ljleak" run --stack-depth 0 --snapshots none --no-edge-gc -o "$dir/full-cap" bench/overhead.lua "$ROUNDS"
  rm -rf "$dir/full-cap"
  sync
  i=$((i + 1))
done
same_output plain full
same_output plain nolines
same_output plain nostacks
same_output plain stream

# Part 2: sampled. The two runs of a round come next to each other, in turns
# first, so that the machine's drift falls on both alike.
sampled_run() {
  rm -rf "$dir/sampled-cap"
  run sampled "$BUILD/ljleak" run -o "$dir/sampled-cap" --sample 524288 bench/overhead.lua "$SAMPLED_ROUNDS"
}
i=1
while [ "$i" -le "$SAMPLED_RUNS" ]; do
  if [ $((i % 2)) -eq 1 ]; then
    run splain luajit bench/overhead.lua "$SAMPLED_ROUNDS"
    sampled_run
  else
    sampled_run
    run splain luajit bench/overhead.lua "$SAMPLED_ROUNDS"
  fi
  i=$((i + 1))
done
same_output splain sampled
awk 'NR % 2 == 1' "$dir/splain.times" > "$dir/splain-odd.times"
awk 'NR % 2 == 0' "$dir/splain.times" > "$dir/splain-even.times"
# Each pair's own ratio: the two runs of a pair ran next to each other, so
# the drift of the machine over the minute of part 2 cancels out in it.
pair_ratios() { paste "$1" "$2" | awk '{ printf "%.4f\n", $1 / $2 }' > "$3"; }
pair_ratios "$dir/sampled.times" "$dir/splain.times" "$dir/pairs.ratios"
pair_ratios "$dir/full.times" "$dir/plain.times" "$dir/full-pairs.ratios"
pair_ratios "$dir/nostacks.times" "$dir/nolines.times" "$dir/lines-pairs.ratios"
pair_ratios "$dir/full.times" "$dir/nostacks.times" "$dir/stacks-pairs.ratios"
pair_ratios "$dir/nostacks.times" "$dir/plain.times" "$dir/nostacks-pairs.ratios"
pair_ratios "$dir/stream.cpu" "$dir/plain2.cpu" "$dir/stream-pairs.ratios"
pair_ratios "$dir/stream.sys" "$dir/plain2.cpu" "$dir/stream-sys.ratios"

plain=$(median "$dir/plain.times")
full=$(median "$dir/full.times")
plain_cpu=$(median "$dir/plain.cpu")
full_cpu=$(median "$dir/full.cpu")
splain=$(median "$dir/splain.times")
sampled=$(median "$dir/sampled.times")
splain_cpu=$(median "$dir/splain.cpu")
sampled_cpu=$(median "$dir/sampled.cpu")
set -- $(stats "$dir/full-index")
full_events=$1 full_bytes=$2 trace_events=$3 trace_lines=$4
# ns per allocation by compiled code: each round's run without stacks less
# its run without lines.
paste "$dir/nostacks.times" "$dir/nolines.times" |
  awk -v n="$trace_events" '{ printf "%.2f\n", n ? ($1 - $2) * 1e9 / n : 0 }' > "$dir/lines.ns"
set -- $(stats "$dir/sampled-cap")
sampled_events=$1 sampled_bytes=$2
sampled_stacks_bytes=$(cat "$dir"/sampled-cap/*.stacks | wc -c)
full_stacks_bytes=$(cat "$dir/full-index/stacks-bytes")
set -- $(stats "$dir/nostacks-index")
nostacks_events=$1 nostacks_bytes=$2
echo "== collector overhead: bench/overhead.lua, JIT on; runs interleaved with plain luajit"
echo "                                 wall median        CPU (user+sys) median"
echo "full capture, $ROUNDS rounds, $RUNS runs"
echo "  plain luajit                   ${plain}s             ${plain_cpu}s"
echo "  ljleak run (stacks, depth 16)  ${full}s ($(ratio "$full" "$plain")x)    ${full_cpu}s ($(ratio "$full_cpu" "$plain_cpu")x)"
echo "  pairs, full/plain              median of $RUNS ratios $(median "$dir/full-pairs.ratios" | awk '{ printf "%.3f", $1 }')x   target <= 1.2x"
echo "  allocations by compiled code   $trace_events, charged to their line $trace_lines ($(echo "$trace_lines $trace_events" | awk '{ printf "%.1f", $2 ? 100 * $1 / $2 : 100 }')%)"
echo "  no stacks, no lines (trace sites) $(median "$dir/nolines.times")s; pairs, no stacks/this: median $(median "$dir/lines-pairs.ratios" | awk '{ printf "%.3f", $1 }')x"
echo "  lines cost, per allocation by compiled code: median of $RUNS rounds $(median "$dir/lines.ns") ns"
echo "  without stacks (--stack-depth 0) $(median "$dir/nostacks.times")s; pairs, without/plain: median $(median "$dir/nostacks-pairs.ratios" | awk '{ printf "%.3f", $1 }')x   target <= 1.5x"
echo "  pairs, full with stacks/without  median of $RUNS ratios $(median "$dir/stacks-pairs.ratios" | awk '{ printf "%.3f", $1 }')x"
echo "  the stream alone (no stacks, lines, snapshots or forced cycles), CPU: $(median "$dir/stream.cpu")s; pairs with a plain run of their own, stream/plain: median $(median "$dir/stream-pairs.ratios" | awk '{ printf "%.3f", $1 }')x"
echo "    of which the kernel (writing the stream): median $(median "$dir/stream-sys.ratios" | awk '{ printf "%.3f", $1 }') of the plain run's CPU"
echo "sampled, $SAMPLED_ROUNDS rounds, $SAMPLED_RUNS runs"
echo "  plain luajit                   ${splain}s             ${splain_cpu}s"
echo "  ljleak run --sample 524288 (stacks) ${sampled}s ($(ratio "$sampled" "$splain")x)    ${sampled_cpu}s ($(ratio "$sampled_cpu" "$splain_cpu")x)"
echo "  pairs, sampled/plain           median of $SAMPLED_RUNS ratios $(median "$dir/pairs.ratios" | awk '{ printf "%.3f", $1 }')x   target <= 1.03x"
echo "  noise: plain luajit, odd runs against even runs: $(ratio "$(median "$dir/splain-even.times")" "$(median "$dir/splain-odd.times")")x"
echo "full stream: $full_events events, $full_bytes bytes, $(echo "$full_bytes $full_events" | awk '{ printf "%.2f", $1 / $2 }') bytes/event, $(echo "$full_events $plain" | awk '{ printf "%.1f", $1 / $2 / 1e6 }') M events/s of plain run time"
echo "full stream without stacks: $nostacks_events events, $nostacks_bytes bytes, $(echo "$nostacks_bytes $nostacks_events" | awk '{ printf "%.2f", $1 / $2 }') bytes/event"
echo "full stream with stacks: $full_stacks_bytes sidecar bytes more, $(echo "$full_bytes $full_stacks_bytes $full_events" | awk '{ printf "%.2f", ($1 + $2) / $3 }') bytes/event (segments and sidecars)"
echo "sampled stream ($SAMPLED_ROUNDS rounds): $sampled_events events, $sampled_bytes bytes, $sampled_stacks_bytes sidecar bytes"
