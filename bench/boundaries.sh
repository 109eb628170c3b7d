#!/bin/bash
# bench/boundaries.sh: what the boundaries forced to cover the run cost
# (docs/collector.md, "Boundaries cover the run"): ljleak run with them and
# without them (LJLEAK_VOLUME_BOUNDARIES=0), in pairs run one right after the
# other (their order alternating), on bench/overhead.lua (ROUNDS long, a
# steady heap) and on testdata/workloads/flush_once_steady.lua (REQUESTS
# requests, a heap that grows to about 20 MB and is flushed once). Prints
# per workload the median wall and CPU times, the median of the pairs' own
# ratios, and the boundaries of each cause in the last capture with them.
RUNS=${RUNS:-9}
ROUNDS=${ROUNDS:-200}
REQUESTS=${REQUESTS:-640000}
. "$(dirname "$0")/median.sh"
bench_dir boundaries

TIMEFORMAT='%3R %3U %3S'
# run LABEL COMMAND...: appends wall and CPU (user + system) seconds of one run.
run() {
  label=$1
  shift
  { time "$@" > /dev/null 2> "$dir/$label.err"; } 2> "$dir/time.tmp"
  awk '{ printf "%.4f\n", $1 }' "$dir/time.tmp" >> "$dir/$label.times"
  awk '{ printf "%.4f\n", $2 + $3 }' "$dir/time.tmp" >> "$dir/$label.cpu"
}

# measure NAME FROM SCRIPT ARGS...: RUNS pairs of the script under ljleak run.
measure() {
  name=$1 from=$2
  shift 2
  args=("$@")
  without() { (cd "$from" && LJLEAK_VOLUME_BOUNDARIES=0 run "$name-without" "$LJLEAK" run -o "$dir/$name-without" "${args[@]}"); }
  with() { (cd "$from" && run "$name-with" "$LJLEAK" run -o "$dir/$name-with" "${args[@]}"); }
  for i in $(seq 1 "$RUNS"); do
    in_pairs "$i" without with
    rm -rf "$dir/$name-without"
    [ "$i" = "$RUNS" ] || rm -rf "$dir/$name-with"
  done
  paste "$dir/$name-with.times" "$dir/$name-without.times" | awk '{ printf "%.4f\n", $1 / $2 }' > "$dir/$name.ratios"
  causes=$(grep '^boundary' "$dir/$name-with/index" | sed 's/.*cause=//' | sort | uniq -c |
           awk '{ printf "%s%s %s", sep, $1, $2; sep = ", " }')
  printf '%-18s with: %ss wall %ss CPU; without: %ss wall %ss CPU; with/without (median of %d pairs): %s; boundaries: %s\n' \
    "$name" "$(median "$dir/$name-with.times")" "$(median "$dir/$name-with.cpu")" \
    "$(median "$dir/$name-without.times")" "$(median "$dir/$name-without.cpu")" "$RUNS" \
    "$(median "$dir/$name.ratios")" "$causes"
  rm -rf "$dir/$name-with"
}

echo "== boundaries forced to cover the run: ljleak run with and without them, $RUNS pairs"
measure overhead "$PWD" bench/overhead.lua "$ROUNDS"
measure flush_once "$PWD/testdata/workloads" flush_once_steady.lua "$REQUESTS"
