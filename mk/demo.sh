#!/bin/sh
# The demo: summaries of the Tarantool fixture captures (extended as stages land).
set -e
BUILD=${BUILD:-build}
for f in testdata/tarantool-memprof/basic-jiton.bin; do
  echo "== ljleak summary --leak-only $f"
  "$BUILD/ljleak" summary --leak-only "$f"
done
