#!/bin/bash
# bench/floors.sh: what measuring the floors of the fill-and-flush rule costs
# ljleak diff (docs/diff.md, "Fill and flush"): the same capture judged with
# the second reading (the default) and without it (--floors-from-lows), in
# pairs one right after the other (their order alternating), on
# flush_few_steady.lua and flush_leak.lua at REQUESTS requests (sites that
# rose and fell back: the second reading is made) and on sawtooth_steady.lua
# (many flushes with flat lows: it is not). Prints per capture its events,
# the median times of both, the median of the pairs' ratios, and both exits.
RUNS=${RUNS:-5}
REQUESTS=${REQUESTS:-1000000}
. "$(dirname "$0")/median.sh"
bench_dir floors

TIMEFORMAT='%3R'
# judge LABEL CAPTURE OPTION...: appends the wall seconds of one ljleak diff, keeps its exit.
judge() {
  label=$1 cap=$2
  shift 2
  { time "$LJLEAK" diff -q "$@" "$cap" > /dev/null 2>&1; } 2> "$dir/time.tmp" || echo $? > "$dir/$label.exit"
  [ -f "$dir/$label.exit" ] || echo 0 > "$dir/$label.exit"
  cat "$dir/time.tmp" >> "$dir/$label.times"
}

for workload in flush_few_steady flush_leak sawtooth_steady; do
  cap="$dir/$workload"
  (cd testdata/workloads && "$LJLEAK" run -o "$cap" "$workload.lua" "$REQUESTS" > /dev/null 2>&1)
  rm -f "$dir"/*.exit
  measured() { judge measured "$cap"; }
  lows() { judge lows "$cap" --floors-from-lows; }
  for i in $(seq 1 "$RUNS"); do
    in_pairs "$i" measured lows
  done
  paste "$dir/measured.times" "$dir/lows.times" | awk '{ printf "%.4f\n", $1 / $2 }' > "$dir/ratios"
  printf '%-17s %s requests, %s events: measured %ss (exit %s), lows only %ss (exit %s), measured/lows (median of %d pairs) %s\n' \
    "$workload" "$REQUESTS" "$("$LJLEAK" info --get events "$cap")" \
    "$(median "$dir/measured.times")" "$(cat "$dir/measured.exit")" \
    "$(median "$dir/lows.times")" "$(cat "$dir/lows.exit")" "$RUNS" "$(median "$dir/ratios")"
  rm -f "$dir"/*.times "$dir/ratios"
  rm -rf "$cap"
done
