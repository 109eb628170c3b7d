#!/bin/sh
# tests/e2e/diff-long.sh: the long end of "no option at all": a leaking and a
# steady workload each run for LONG_SECONDS (60 by default) under `ljleak run`
# with no option, side by side, then `ljleak diff` with no option. Thousands
# of GC cycles become at most 512 boundaries; the leak is flagged at its line,
# the sawtooth is not. A full capture writes about 40 MB a second: with less
# free space than two such captures need, the runs are shortened, and the
# names of the checks say for how long they ran.
E2E_NAME=diff-long
. tests/e2e/lib.sh
LJLEAK="$PWD/$LJLEAK"
W=testdata/workloads
seconds=${LONG_SECONDS:-60}
free_mb=$(df -Pm "$tmp" | awk 'NR == 2 { print $4 }')
room=$(( (free_mb - 1024) / 100 ))  # two captures at up to 50 MB a second, 1 GB spare
[ "$room" -ge "$seconds" ] || { seconds=$room; echo "only ${free_mb} MB free: runs of ${seconds} s"; }
[ "$seconds" -ge 5 ] || seconds=5

for w in slow_leak sawtooth_steady; do
  (cd $W && "$LJLEAK" run -o "$tmp/$w" "$w.lua" "${seconds}s") > "$tmp/$w.log" 2>&1 &
done
wait
for w in slow_leak sawtooth_steady; do
  truth=$W/$w.truth
  cap=$tmp/$w
  if ! "$LJLEAK" info --get stop_reason "$cap" 2>/dev/null | grep -q exit; then
    bad "$w, ${seconds} s: ljleak run failed: $(tail -n 1 "$tmp/$w.log")"
    continue
  fi
  cycles=$("$LJLEAK" info --get boundaries "$cap")
  # the verdict's time is printed, never checked (the machine may be busy)
  started=$(date +%s.%N)
  "$LJLEAK" diff -q --format json -o "$cap.json" "$cap" 2> "$cap.diff.log"
  status=$?
  echo "  $w: ljleak diff took $(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s on $(du -sm "$cap" | cut -f1) MB, $("$LJLEAK" info --get events "$cap") events"
  judged=$(grep -o '"boundary_count": *[0-9]*' "$cap.json" | grep -o '[0-9]*$' | head -n 1)
  what="$w, ${seconds} s, $cycles boundaries in the index, $judged judged: exit $status"
  expected=0
  grep -q '^leak ' "$truth" && expected=1
  check "$what (want $expected)" test "$status" = "$expected"
  check "$w: at most 512 boundaries judged" test "${judged:-0}" -le 512 -a "${judged:-0}" -ge 100
  if [ "$status" = 1 ]; then
    if problems=$(luajit tests/e2e/diff_truth.lua "$cap.json" "$truth"); then
      ok "$w: flagged at its leaking line only"
    else
      bad "$w: $problems"
    fi
  fi
  rm -rf "$cap"
done
finish
