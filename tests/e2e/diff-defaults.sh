#!/bin/sh
# tests/e2e/diff-defaults.sh: every workload of testdata/workloads captured with
# `ljleak run` and no option at all, short and long, then `ljleak diff` with no
# option: a leaking workload never passes (exit 0), and from its default length
# on it is flagged at its leaking lines; a steady workload is never flagged.
# Short runs may be inconclusive (exit 5): too few boundaries is no verdict.
E2E_NAME=diff-defaults
. tests/e2e/lib.sh
LJLEAK="$PWD/$LJLEAK"
W=testdata/workloads
# Request counts: 20000 and 40000 (from 5 ms to 150 ms, by workload), the default
# 160000 (30 to 600 ms) and 640000 (up to about 2 s).
COUNTS=${COUNTS:-20000 40000 160000 640000}

for truth in $W/*.truth; do
  name=$(basename "$truth" .truth)
  # a workload that runs for a time, not a request count (burst_leak): below
  grep -q '^run ' "$truth" && continue
  leak=0
  grep -q '^leak ' "$truth" && leak=1
  for n in $COUNTS; do
    cap="$tmp/$name-$n"
    if ! (cd $W && "$LJLEAK" run -o "$cap" "$name.lua" "$n") > "$cap.log" 2>&1; then
      bad "$name $n: ljleak run failed: $(tail -n 1 "$cap.log")"
      continue
    fi
    boundaries=$("$LJLEAK" info --get boundaries "$cap")
    "$LJLEAK" diff -q --format json -o "$cap.json" "$cap" 2> "$cap.diff.log"
    status=$?
    what="$name, $n requests, $boundaries boundaries: exit $status"
    case "$leak:$status" in
      1:1 | 0:0 | 0:5) ;;
      1:5) [ "$n" -lt 160000 ] || { bad "$what (a leak from the default length on must be flagged)"; continue; } ;;
      *) bad "$what"; continue ;;
    esac
    if [ "$status" = 1 ] && ! problems=$(luajit tests/e2e/diff_truth.lua "$cap.json" "$truth"); then
      bad "$what: $problems"
      continue
    fi
    ok "$what"
  done
done
# burst_leak keeps FFI buffers for 20 ms and completes no GC cycle of its
# own: with no option, the start's boundary and its one collection cannot show
# a trend, so the verdict is inconclusive (5), never a pass.
cap="$tmp/burst"
if (cd $W && "$LJLEAK" run -o "$cap" burst_leak.lua) > "$cap.log" 2>&1; then
  "$LJLEAK" diff -q "$cap" > "$cap.txt" 2>&1
  status=$?
  check "burst_leak, 20 ms, no option: inconclusive or flagged, never a pass (exit $status)" \
    test "$status" = 5 -o "$status" = 1
  [ "$status" != 5 ] || check "burst_leak: the text report leads with INCONCLUSIVE" \
    grep -q '^ljleak: INCONCLUSIVE' "$cap.txt"
else
  bad "burst_leak: ljleak run failed: $(tail -n 1 "$cap.log")"
fi
finish
