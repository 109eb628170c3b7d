#!/bin/bash
# bench/holders-heap.sh: what the holder analysis (docs/diff.md, "Holders" and "Leak suspects")
# costs ljleak diff on a heap of about 200 MB (about 2 million objects) that grows across the run (bench/holders_heap.lua:
# records with hash and array parts, strings, closures and upvalues, RECORDS of them), captured
# with one snapshot at the return. The diff without holders is the same capture with
# --no-holders (no snapshot read). The two run in pairs, their order alternating
# (a shared machine drifts); prints the medians of RUNS pairs of wall and CPU (user + system)
# seconds and peak RSS (/usr/bin/time), and the medians of the pairs' ratios against the
# target: 1.5x the time and 2x the peak memory. After each pair, bench/snapshot_read reads the
# snapshot and does nothing else: its CPU time added to the diff's without holders, and its
# peak beside that diff's, are what the reading alone costs, before any analysis.
RUNS=${RUNS:-5}
RECORDS=${RECORDS:-330000}
. "$(dirname "$0")/median.sh"
bench_dir holders-heap

# judge LABEL CAPTURE [OPTION]: the wall, CPU seconds and peak RSS of one ljleak diff, which
# flags the records (exit 1).
judge() { timed_diff bench-holders-heap "$1" 1 "$LJLEAK" ${3:+"$3"} "$2"; }
# The diff of $cap with holders, and without them.
holders() { judge holders "$cap"; }
bare() { judge bare "$cap" --no-holders; }

cap="$dir/heap"
"$LJLEAK" run --snapshots 1 -o "$cap" "$(dirname "$0")/holders_heap.lua" "$RECORDS" > /dev/null 2>&1
# The snapshot read alone: objects, references, CPU seconds, peak RSS (KB), a line a run.
read_only() { "$BUILD/bench/snapshot_read" "$cap"/*.heap >> "$dir/read.tsv"; }
for i in $(seq 1 "$RUNS"); do
  in_pairs "$i" holders bare
  read_only
done
for t in wall cpu rss; do
  paste "$dir/holders.$t" "$dir/bare.$t" | awk '{ printf "%.4f\n", ($2 > 0 ? $1 / $2 : 0) }' > "$dir/ratios.$t"
done
info=$("$LJLEAK" snapshot "$cap"/*.heap | head -1 | tr '\t' '\n')
printf 'a heap of %s MB, %s objects, %s references (%s records, %s events), medians of %d pairs:\n' \
  "$(echo "$info" | sed -n 's/^heap_bytes=//p' | awk '{ printf "%.0f", $1 / 1e6 }')" \
  "$(echo "$info" | sed -n 's/^objects=//p')" "$(echo "$info" | sed -n 's/^references=//p')" \
  "$RECORDS" "$("$LJLEAK" info --get events "$cap")" "$RUNS"
printf '  with holders %ss wall %ss CPU %s MB peak; without %ss wall %ss CPU %s MB peak\n' \
  "$(median "$dir/holders.wall")" "$(median "$dir/holders.cpu")" \
  "$(median "$dir/holders.rss" | awk '{ printf "%.0f", $1 / 1024 }')" \
  "$(median "$dir/bare.wall")" "$(median "$dir/bare.cpu")" \
  "$(median "$dir/bare.rss" | awk '{ printf "%.0f", $1 / 1024 }')"
printf '  with/without (the pairs'"'"' ratios): %s wall, %s CPU (target 1.5), %s peak memory (target 2)\n' \
  "$(median "$dir/ratios.wall")" "$(median "$dir/ratios.cpu")" "$(median "$dir/ratios.rss")"
read_cpu=$(cut -f3 "$dir/read.tsv" | median)
read_rss=$(cut -f4 "$dir/read.tsv" | median)
bare_cpu=$(median "$dir/bare.cpu")
bare_rss=$(median "$dir/bare.rss")
printf '  the snapshot read alone (bench/snapshot_read): %ss CPU, %s MB peak; the diff without holders plus\n' \
  "$read_cpu" "$(echo "$read_rss" | awk '{ printf "%.0f", $1 / 1024 }')"
printf '  that read: %s its CPU; that read'"'"'s peak: %s the peak of the diff without holders\n' \
  "$(awk -v b="$bare_cpu" -v r="$read_cpu" 'BEGIN { printf "%.2fx", (b > 0 ? (b + r) / b : 0) }')" \
  "$(awk -v b="$bare_rss" -v r="$read_rss" 'BEGIN { printf "%.2fx", (b > 0 ? r / b : 0) }')"
rm -rf "$dir"
