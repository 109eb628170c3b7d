#!/bin/sh
# tests/e2e/diff-defaults.sh: every workload of testdata/workloads captured with
# `ljleak run` and no option at all, short and long, in full and sampled every
# 64 KiB, then `ljleak diff` with no option. A steady workload passes (exit 0)
# from the default length on; a leaking one is flagged at its leaking lines
# (exit 1). Below that length, and in a sampled capture, an inconclusive result
# (exit 5) is allowed only when it names the evidence it lacks (too few
# boundaries, or a sampling floor above --min-growth); a leak never passes.
# A leak below a coarse sampling's floor (sampled_slow_leak, --sample 512k) is
# inconclusive, naming that floor, never a pass.
E2E_NAME=diff-defaults
. tests/e2e/lib.sh
LJLEAK="$PWD/$LJLEAK"
W=testdata/workloads
# Request counts: 20000 (from 5 ms to 60 ms, by workload), the default 160000
# (30 to 600 ms), 600000 and 640000 (up to about 2 s; at 600000 the boundaries
# catch string_cache_steady's cache half refilled: see docs/diff.md, "Fill and
# flush"); sampled runs from the default
# length on: at 20000 requests a sampled capture has a few recorded blocks
# of a filling cache, at the first boundaries, and they can make a staircase
# the rules call growing (cache_fill_steady, about one run in ten). About 1
# minute and a half of CPU in all.
COUNTS=${COUNTS:-20000 40000 160000 600000 640000}
SAMPLED_COUNTS=${SAMPLED_COUNTS:-160000 640000}

# reason JSON: the result's outcome_reason, or nothing.
reason() {
  sed -n 's/^ *"outcome_reason": "\(.*\)",*$/\1/p' "$1"
}

# judge NAME N MODE LEAK CAP TRUTH: runs ljleak diff on CAP and checks its exit.
judge() {
  workload=$1 n=$2 mode=$3 leak=$4 cap=$5 truth=$6
  boundaries=$("$LJLEAK" info --get boundaries "$cap")
  "$LJLEAK" diff -q --format json -o "$cap.json" "$cap" 2> "$cap.diff.log"
  status=$?
  what="$workload, $n requests, $mode, $boundaries boundaries: exit $status"
  why=$(reason "$cap.json")
  case "$leak:$status" in
    1:1 | 0:0) ;;
    *:5)
      case "$why" in
        *"could not have seen a growth below"* | *"could not have shown any growth"*)
          [ "$mode" != full ] || { bad "$what (a full capture has no sampling floor: $why)"; return; } ;;
        *"boundaries cannot show a trend"* | *"shows no significant trend"* | *"show no significant trend"* | *"too few boundaries"* | \
        *"let go in the last quarter of the run"*)
          [ "$n" -lt 160000 ] || { bad "$what (from the default length on a verdict is due: $why)"; return; } ;;
        *) bad "$what (inconclusive without naming the evidence it lacks: $why)"; return ;;
      esac ;;
    *) bad "$what ($why)"; return ;;
  esac
  if [ "$status" = 1 ] && ! problems=$(luajit tests/e2e/diff_truth.lua "$cap.json" "$truth"); then
    bad "$what: $problems"
    return
  fi
  ok "$what${why:+ ($why)}"
  # A buffer flushed is steady by stack too: each stack row's floors are
  # measured as its site's are (docs/diff.md, "Fill and flush"). Rows of
  # the growing and undecided tables end in their leaf; none may be a Lua
  # line. (The VM's string table is one block that a resize moves from
  # stack to stack: a row of it can be undecided.)
  case "$workload:$status" in
    flush_*_steady:0)
      "$LJLEAK" diff -q --by stack "$cap" > "$cap.by-stack.txt" 2>&1
      by_stack=$?
      rows=$(grep -E '^ +[-+0-9].*\.lua:[0-9]+$' "$cap.by-stack.txt")
      if [ "$by_stack" != 1 ] && [ -z "$rows" ]; then
        ok "$workload, $n requests, $mode, by stack: exit $by_stack, no Lua line's stack rose"
      else
        bad "$workload, $n requests, $mode, by stack: exit $by_stack: $rows"
      fi ;;
  esac
}

for truth in $W/*.truth; do
  workload=$(basename "$truth" .truth)
  # a workload that runs with options of its own (burst_leak, sampled_slow_leak): below
  grep -q '^run ' "$truth" && continue
  leak=0
  grep -q '^leak ' "$truth" && leak=1
  for mode in full 64k; do
    counts=$COUNTS
    sample=
    [ "$mode" = full ] || { counts=$SAMPLED_COUNTS; sample="--sample $mode"; }
    for n in $counts; do
      cap="$tmp/$workload-$n-$mode"
      # shellcheck disable=SC2086: $sample is words
      if ! (cd $W && "$LJLEAK" run $sample -o "$cap" "$workload.lua" "$n") > "$cap.log" 2>&1; then
        bad "$workload $n $mode: ljleak run failed: $(tail -n 1 "$cap.log")"
        continue
      fi
      judge "$workload" "$n" "$mode" "$leak" "$cap" "$truth"
    done
  done
done

# A slow leak (about 70 KB in 600000 requests) sampled every 512 KiB: below
# what the sampling can see, so inconclusive, naming its floor and what
# lowers it; the same run in full is flagged at its line.
cap="$tmp/sampled-512k"
if (cd $W && "$LJLEAK" run --sample 512k -o "$cap" sampled_slow_leak.lua 600000) > "$cap.log" 2>&1; then
  "$LJLEAK" diff "$cap" > "$cap.txt" 2>&1
  status=$?
  check "sampled_slow_leak, --sample 512k: inconclusive (exit $status), never a pass" test "$status" = 5
  check "sampled_slow_leak, --sample 512k: the report names the sampling's floor" \
    grep -q '^ljleak: INCONCLUSIVE: nothing grows, but a capture sampled every 512.0 KiB could not have seen a growth below' "$cap.txt"
  check "sampled_slow_leak, --sample 512k: the report says what lowers the floor" \
    grep -q 'a smaller `ljleak run --sample` interval (or none) or a longer run' "$cap.txt"
  check "sampled_slow_leak, --sample 512k: the evidence line states the floor" \
    grep -q 'sampled every 512.0 KiB: the smallest growth it could see: ' "$cap.txt"
else
  bad "sampled_slow_leak 512k: ljleak run failed: $(tail -n 1 "$cap.log")"
fi
cap="$tmp/sampled-full"
if (cd $W && "$LJLEAK" run -o "$cap" sampled_slow_leak.lua 600000) > "$cap.log" 2>&1; then
  judge sampled_slow_leak 600000 full 1 "$cap" $W/sampled_slow_leak.truth
  check "sampled_slow_leak, full: its boundaries cover the run" \
    grep -Eq '"coverage": (1|0\.99)' "$cap.json"
else
  bad "sampled_slow_leak full: ljleak run failed: $(tail -n 1 "$cap.log")"
fi

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
