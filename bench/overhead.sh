#!/bin/sh
# bench/overhead.sh: wall time of the collector on an allocation-heavy JIT-on
# workload (bench/overhead.lua): plain luajit, ljleak run with full capture,
# and ljleak run --sample 524288, interleaved RUNS times; prints the medians,
# the ratios to plain, the events per second and the stream's bytes per event.
set -e
BUILD=${BUILD:-build}
RUNS=${RUNS:-5}
ROUNDS=${ROUNDS:-500}
dir=$BUILD/bench/overhead
rm -rf "$dir"
mkdir -p "$dir"
sync

# run LABEL COMMAND...: appends the wall time of one run to $dir/LABEL.times
# and its CPU time (user + system) to $dir/LABEL.cpu
run() {
  label=$1
  shift
  /usr/bin/time -f "%e %U %S" -o "$dir/time.tmp" "$@" > "$dir/$label.out"
  awk '{ printf "%.4f\n", $1 }' "$dir/time.tmp" >> "$dir/$label.times"
  awk '{ printf "%.4f\n", $2 + $3 }' "$dir/time.tmp" >> "$dir/$label.cpu"
}

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

i=1
while [ "$i" -le "$RUNS" ]; do
  run plain luajit bench/overhead.lua "$ROUNDS"
  rm -rf "$dir/full-cap"
  run full "$BUILD/ljleak" run -o "$dir/full-cap" bench/overhead.lua "$ROUNDS"
  # The full capture leaves some 800 MB of dirty page cache; written back
  # during the next runs it would slow them. Removed, it is dropped unwritten.
  mkdir -p "$dir/full-index"
  cp "$dir/full-cap/index" "$dir/full-index/index"
  rm -rf "$dir/full-cap"
  sync
  rm -rf "$dir/sampled-cap"
  run sampled "$BUILD/ljleak" run -o "$dir/sampled-cap" --sample 524288 bench/overhead.lua "$ROUNDS"
  i=$((i + 1))
done
for label in full sampled; do
  cmp -s "$dir/plain.out" "$dir/$label.out" || { echo "bench: $label output differs from plain" >&2; exit 1; }
done

plain=$(median "$dir/plain.times")
full=$(median "$dir/full.times")
sampled=$(median "$dir/sampled.times")
stats() { awk -F'\t' '$1 == "segment" { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "events") e += kv[2]; if (kv[1] == "bytes") b += kv[2] } } END { printf "%d %d\n", e, b }' "$1/index"; }
set -- $(stats "$dir/full-index")
full_events=$1 full_bytes=$2
set -- $(stats "$dir/sampled-cap")
sampled_events=$1 sampled_bytes=$2
ratio() { echo "$1 $2" | awk '{ printf "%.2f", $1 / $2 }'; }
plain_cpu=$(median "$dir/plain.cpu")
full_cpu=$(median "$dir/full.cpu")
sampled_cpu=$(median "$dir/sampled.cpu")
echo "== collector overhead: bench/overhead.lua $ROUNDS, JIT on, $RUNS runs each, interleaved"
echo "                    wall median        CPU (user+sys) median"
echo "plain luajit        ${plain}s             ${plain_cpu}s"
echo "full capture        ${full}s ($(ratio "$full" "$plain")x)    ${full_cpu}s ($(ratio "$full_cpu" "$plain_cpu")x)   target <= 1.5x"
echo "sampled (524288)    ${sampled}s ($(ratio "$sampled" "$plain")x)    ${sampled_cpu}s ($(ratio "$sampled_cpu" "$plain_cpu")x)   target <= 1.05x"
echo "full stream: $full_events events, $full_bytes bytes, $(echo "$full_bytes $full_events" | awk '{ printf "%.2f", $1 / $2 }') bytes/event, $(echo "$full_events $plain" | awk '{ printf "%.1f", $1 / $2 / 1e6 }') M events/s of plain run time"
echo "sampled stream: $sampled_events events, $sampled_bytes bytes"
