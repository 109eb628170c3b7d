#!/bin/sh
# bench/read.sh: how fast `ljleak diff` and `ljleak summary` read one stream,
# as a ratio against the physical limit of this machine (bench/read_limit:
# decoding and one table update per event, nothing else), all three run in
# turns (bench/yardstick.sh), and the memory they hold per live block on a
# stream that ends with millions of blocks live.
# Streams are generated once into $BUILD/bench (bench/gen_stream).
set -e
BUILD=${BUILD:-build}
EVENTS=${EVENTS:-10000000}
LIVE=${LIVE:-3000000 2200000}  # live counts, one stream each
RUNS=${RUNS:-5}
dir=$BUILD/bench
# shellcheck disable=SC2034 # read by bench/yardstick.sh
times=$dir

. "$(dirname "$0")/stream.sh"
. "$(dirname "$0")/yardstick.sh"

# The diff of one stream: exit 1 (flagged) and 5 (inconclusive: a stream
# alone has no boundaries) count as success.
# shellcheck disable=SC2016 # the script's own arguments, expanded when it runs
diff_script='"$0" diff -q --format json -o /dev/null "$1"; s=$?; [ $s -le 1 ] || [ $s -eq 5 ]'

base=$(stream base "$EVENTS" 50000 20000)
events=$(cut -d' ' -f1 < "$base.info")
echo "== one stream: $(cat "$base.info"), $(du -m "$base" | cut -f1) MB"
run_limit() { "$dir/read_limit" 1 "$base"; }
run_diff() { "$dir/run_timed" --runs 1 --label diff -- /bin/sh -c "$diff_script" "$BUILD/ljleak" "$base"; }
run_summary() { "$dir/run_timed" --runs 1 --label summary -- "$BUILD/ljleak" summary --leak-only "$base"; }
in_turns "$RUNS" limit diff summary
figure "physical limit (decoding, one table update per event)" limit "$events"
figure "diff" diff "$events" limit cpu "the read limit's speed"
figure "summary --leak-only" summary "$events" limit cpu "the read limit's speed"

# Bytes per live block: peak RSS over the blocks live at the stream's end
# (gen_stream's young set fills to the live count and stays there), for
# each live count of LIVE: a map's memory swings with where the count falls
# in its growth cycle, so the worst of them is printed too.
worst_diff=0 worst_summary=0
for target in $LIVE; do
  many=$(stream many $((target * 3)) "$target" 20000)
  live=$(sed -n 's/.* events, [0-9]* symtab events, \([0-9]*\) young and \([0-9]*\) long-lived.*/\1 \2/p' "$many.info")
  live=$((${live% *} + ${live#* }))
  echo "== a stream ending with $live live blocks: $(cat "$many.info"), $(du -m "$many" | cut -f1) MB"
  "$dir/read_limit" 3 "$many"
  for tool in diff summary; do
    if [ "$tool" = diff ]; then
      out=$("$dir/run_timed" --runs 3 --label diff -- /bin/sh -c "$diff_script" "$BUILD/ljleak" "$many" |
        tail -n 1)
    else
      out=$("$dir/run_timed" --runs 3 --label summary -- "$BUILD/ljleak" summary --leak-only "$many" | tail -n 1)
    fi
    echo "$out"
    mib=$(echo "$out" | sed -n 's/.*peak RSS \([0-9.]*\) MiB.*/\1/p')
    per=$(awk -v mib="$mib" -v live="$live" 'BEGIN { printf "%.1f", mib * 1048576 / live }')
    echo "$tool: $per bytes per live block (peak RSS over $live live blocks)"
    if [ "$tool" = diff ]; then
      worst_diff=$(awk -v a="$worst_diff" -v b="$per" 'BEGIN { print (b > a ? b : a) }')
    else
      worst_summary=$(awk -v a="$worst_summary" -v b="$per" 'BEGIN { print (b > a ? b : a) }')
    fi
  done
done
echo "== worst over the live counts ($LIVE): diff $worst_diff, summary $worst_summary bytes per live block"
