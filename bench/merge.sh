#!/bin/sh
# bench/merge.sh: wall time and peak RSS of `ljleak merge` over RESULTS diff
# results (a fleet's nightly captures), to JSON, text and HTML, and of
# merging the merge again (the tree's next level).
set -e
BUILD=${BUILD:-build}
RESULTS=${RESULTS:-10000}
RUNS=${RUNS:-3}
dir=$BUILD/bench/merge-results-$RESULTS
if [ ! -s "$dir.done" ]; then
  echo "generating $dir" >&2
  rm -rf "$dir"
  mkdir -p "$dir"
  "$BUILD/bench/merge-gen" "$RESULTS" "$dir"
  echo "$RESULTS" >"$dir.done"
fi
echo "== ljleak merge: $RESULTS results, $(du -sm "$dir" | cut -f1) MB of JSON (target: 10 s, 500 MB)"
# exit 1 (sites grow in the newest release) counts as success
for format in json text html; do
  "$BUILD/bench/run_timed" --runs "$RUNS" --label "merge to $format" -- \
    /bin/sh -c '"$0" merge --format "$1" -o /dev/null "$2"; [ $? -le 1 ]' "$BUILD/ljleak" "$format" "$dir"
done
"$BUILD/bench/run_timed" --runs "$RUNS" --label "merge -j 2 to json" -- \
  /bin/sh -c '"$0" merge -j 2 --format json -o /dev/null "$1"; [ $? -le 1 ]' "$BUILD/ljleak" "$dir"
"$BUILD/ljleak" merge --format json -o "$dir.merge.json" "$dir" || [ $? -le 1 ]
echo "== the merge of those results, $(du -m "$dir.merge.json" | cut -f1) MB, merged again"
"$BUILD/bench/run_timed" --runs "$RUNS" --label "merge of the merge" -- \
  /bin/sh -c '"$0" merge -o /dev/null "$1"; [ $? -le 1 ]' "$BUILD/ljleak" "$dir.merge.json"
