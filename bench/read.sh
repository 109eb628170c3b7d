#!/bin/sh
# bench/read.sh: how fast `ljleak diff` and `ljleak summary` read one stream,
# beside the physical limit of this machine (bench/read_limit: decoding and
# one table update per event, nothing else), and the memory they hold per
# live block on a stream that ends with millions of blocks live.
# Streams are generated once into $BUILD/bench (bench/gen_stream).
set -e
BUILD=${BUILD:-build}
EVENTS=${EVENTS:-10000000}
LIVE=${LIVE:-3000000}
RUNS=${RUNS:-5}
dir=$BUILD/bench

. "$(dirname "$0")/stream.sh"

# The diff of one stream: exit 1 (flagged) and 5 (inconclusive: a stream
# alone has no boundaries) count as success.
# shellcheck disable=SC2016 # the script's own arguments, expanded when it runs
diff_script='"$0" diff -q --format json -o /dev/null "$1"; s=$?; [ $s -le 1 ] || [ $s -eq 5 ]'

base=$(stream base "$EVENTS" 50000 20000)
events=$(cut -d' ' -f1 < "$base.info")
echo "== one stream: $(cat "$base.info"), $(du -m "$base" | cut -f1) MB"
"$dir/read_limit" "$RUNS" "$base"
"$dir/run_timed" --runs "$RUNS" --events "$events" --label "diff" -- \
  /bin/sh -c "$diff_script" "$BUILD/ljleak" "$base"
"$dir/run_timed" --runs "$RUNS" --events "$events" --label "summary --leak-only" -- \
  "$BUILD/ljleak" summary --leak-only "$base"

# Bytes per live block: peak RSS over the blocks live at the stream's end
# (gen_stream's young set fills to LIVE blocks and stays there).
many=$(stream many $((LIVE * 3)) "$LIVE" 20000)
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
  awk -v mib="$mib" -v live="$live" -v tool="$tool" \
    'BEGIN { printf "%s: %.1f bytes per live block (peak RSS over %d live blocks)\n", tool, mib * 1048576 / live, live }'
done
