#!/bin/bash
# bench/diff-sites.sh: what judging many sites over many boundaries costs ljleak diff: two
# sampled captures (--sample 16k --every 256k, with and without stacks) of
# bench/many_sites.lua at SITES lines and
# ROUNDS rounds (about 2,800 sites over about 500 boundaries, 16,000 events: the reading is
# nothing, the verdicts everything). Prints the medians of RUNS diffs, wall and CPU (user +
# system) seconds, the CPU per site and the peak RSS. BEFORE=PATH judges the capture with that ljleak too,
# in pairs (their order alternating), and prints the median of the pairs' CPU ratios.
RUNS=${RUNS:-5}
SITES=${SITES:-3000}
ROUNDS=${ROUNDS:-400}
. "$(dirname "$0")/median.sh"
bench_dir diff-sites

# judge LABEL LJLEAK: the wall and CPU seconds of one diff of $cap: it flags some of the kept
# tables' lines (exit 1), or none, each under the sampling's floor (exit 5).
judge() { timed_diff bench-diff-sites "$1" "1 5" "$2" "$cap"; }
ours() { judge ours "$LJLEAK"; }
before() { judge before "$BEFORE"; }

# The capture with stacks (the default's 16 frames: a verdict per site and per stack), then
# without (--stack-depth 0, as Tarantool's streams).
for stacks in 16 0; do
  cap="$dir/capture-$stacks"
  "$LJLEAK" run --sample 16384 --every 262144 --snapshots none --stack-depth "$stacks" -o "$cap" \
    "$(dirname "$0")/many_sites.lua" "$SITES" "$ROUNDS" > /dev/null 2>&1
  sites=$("$LJLEAK" diff --format json "$cap" 2> /dev/null | awk '/^  "stacks": \[/ { exit } /"verdict":/ { n++ } END { print n + 0 }' || true)
  rm -f "$dir"/*.wall "$dir"/*.cpu "$dir"/*.rss
  for i in $(seq 1 "$RUNS"); do
    if [ -n "$BEFORE" ]; then
      in_pairs "$i" ours before
    else
      ours
    fi
  done
  printf '%s sites, stack depth %s, %s boundaries, %s events, medians of %d runs: %ss wall, %ss CPU, %s ms CPU per site, %s MB peak\n' \
    "$sites" "$stacks" "$("$LJLEAK" info --get boundaries "$cap")" "$("$LJLEAK" info --get events "$cap")" "$RUNS" \
    "$(median "$dir/ours.wall")" "$(median "$dir/ours.cpu")" \
    "$(median "$dir/ours.cpu" | awk -v n="${sites:-0}" '{ printf "%.3f", (n > 0 ? $1 * 1000 / n : 0) }')" \
    "$(median "$dir/ours.rss" | awk '{ printf "%.0f", $1 / 1024 }')"
  if [ -n "$BEFORE" ]; then
    paste "$dir/before.cpu" "$dir/ours.cpu" | awk '{ printf "%.4f\n", ($2 > 0 ? $1 / $2 : 0) }' > "$dir/ratios"
    printf '  %s: %ss CPU, %s MB peak; before/ours (the pairs'"'"' ratios): %sx CPU\n' "$BEFORE" \
      "$(median "$dir/before.cpu")" "$(median "$dir/before.rss" | awk '{ printf "%.0f", $1 / 1024 }')" \
      "$(median "$dir/ratios")"
  fi
done
rm -rf "$dir"
