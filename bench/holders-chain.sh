#!/bin/bash
# bench/holders-chain.sh: what the holder analysis (docs/diff.md, "Holders") costs ljleak diff
# on a linked list that grows to N nodes (testdata/holders/chain.lua, N of NODES: 100,000 and
# 1,000,000 by default), held by a global to the end, so that its one site grows and each
# node's path is one step deeper. The diff without them is the same capture with
# --no-holders (no snapshot read). The two run in pairs, one right after the other, their order
# alternating (a shared machine drifts over minutes). Prints per N the medians of RUNS pairs
# of both, wall and CPU (user + system) seconds, their difference (the holders: reading the
# snapshot, the graph, its paths and dominator tree) and the median of the pairs' own ratios
# of wall and of CPU time; and checks that each diff flagged the list (exit 1).
RUNS=${RUNS:-5}
NODES=${NODES:-100000 1000000}
. "$(dirname "$0")/median.sh"
bench_dir holders-chain

TIMEFORMAT='%3R %3U %3S'
# judge LABEL CAPTURE [OPTION]: appends the wall and CPU seconds of one ljleak diff; a diff that does
# not flag the list (exit 1) stops the bench.
judge() {
  status=0
  { time "$LJLEAK" diff -q ${3:+"$3"} "$2" > /dev/null 2>&1; } 2> "$dir/time.tmp" || status=$?
  if [ "$status" != 1 ]; then
    echo "bench-holders-chain: ljleak diff $2 exited $status, not 1 (the list flagged)" >&2
    exit 1
  fi
  read -r wall user sys < "$dir/time.tmp"
  echo "$wall" >> "$dir/$1.wall"
  awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f\n", u + s }' >> "$dir/$1.cpu"
}
# The diff of $cap with holders, and without them.
holders() { judge holders "$cap"; }
bare() { judge bare "$cap" --no-holders; }

for n in $NODES; do
  cap="$dir/chain-$n"
  "$LJLEAK" run --snapshots 1 -o "$cap" testdata/holders/chain.lua "$n" > /dev/null 2>&1
  rm -f "$dir"/*.wall "$dir"/*.cpu
  for i in $(seq 1 "$RUNS"); do
    in_pairs "$i" holders bare
  done
  for t in wall cpu; do
    paste "$dir/holders.$t" "$dir/bare.$t" | awk '{ printf "%.4f\n", ($2 > 0 ? $1 / $2 : 0) }' > "$dir/ratios.$t"
    paste "$dir/holders.$t" "$dir/bare.$t" | awk '{ printf "%.4f\n", $1 - $2 }' > "$dir/extra.$t"
  done
  objects=$("$LJLEAK" snapshot "$cap"/*.heap | head -1 | tr '\t' '\n' | sed -n 's/^objects=//p')
  printf 'chain of %s nodes (%s events, a snapshot of %s objects), medians of %d pairs:\n' \
    "$n" "$("$LJLEAK" info --get events "$cap")" "$objects" "$RUNS"
  printf '  diff with holders %ss wall %ss CPU, without %ss wall %ss CPU; the holders %ss wall %ss CPU\n' \
    "$(median "$dir/holders.wall")" "$(median "$dir/holders.cpu")" \
    "$(median "$dir/bare.wall")" "$(median "$dir/bare.cpu")" \
    "$(median "$dir/extra.wall")" "$(median "$dir/extra.cpu")"
  printf '  with/without (the pairs'"'"' ratios): %s wall, %s CPU\n' \
    "$(median "$dir/ratios.wall")" "$(median "$dir/ratios.cpu")"
  rm -rf "$cap"
done
rm -rf "$dir"
