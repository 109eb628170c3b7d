#!/bin/sh
# bench/steady-runs.sh: every steady workload of testdata/workloads (NAME_steady.lua
# whose truth file, if any, names no leak and no `run` options), captured RUNS times with
# `ljleak run` and no option, in full and sampled (--sample SAMPLE), beside a
# CPU-bound neighbour (a shell loop, killed at the end), then `ljleak diff`
# with no option. Prints per workload and mode the count of exits 0, 1, 5 and
# other; a sampled 5 counts as "5 (floor)" when its reason names the
# sampling's floor. With BEFORE=PATH (another ljleak binary) each capture is
# also judged by it, and the table shows its exits beside this build's.
#
#   BUILD=build RUNS=20 COUNTS="50000" SAMPLE=512k sh bench/steady-runs.sh
#
# The rule it shows: a steady program exits 0 in every full run from the
# documented minimum length on (docs/diff.md, "Rose, then held"); a sampled
# capture exits 0, or 5 naming its floor, never 1.
BUILD=${BUILD:-build}
RUNS=${RUNS:-20}
COUNTS=${COUNTS:-50000}
SAMPLE=${SAMPLE:-512k}
LJLEAK="$PWD/$BUILD/ljleak"
W=testdata/workloads
OUT=${OUT:-$PWD/$BUILD/steady-runs}
rm -rf "$OUT"
mkdir -p "$OUT"

sh -c 'while :; do :; done' &
neighbour=$!
trap 'kill "$neighbour" 2>/dev/null' EXIT INT TERM

# judge BINARY CAP: prints the exit of BINARY's diff of CAP, "5f" for an
# inconclusive result that names the sampling's floor.
judge() {
  "$1" diff -q --format json -o "$2.$3.json" "$2" > /dev/null 2>&1
  status=$?
  if [ "$status" = 5 ] && grep -q '"outcome_reason": "nothing grows, but a capture sampled every' "$2.$3.json"; then
    echo 5f
  else
    echo "$status"
  fi
}

# tally FILE: "0:a 1:b 5:c 5f:d other:e" of the exits listed in FILE.
tally() {
  awk '{ c[$1 == "0" || $1 == "1" || $1 == "5" || $1 == "5f" ? $1 : "other"]++ }
       END { printf "%3d %3d %3d %3d %3d", c["0"], c["1"], c["5"], c["5f"], c["other"] }' "$1"
}

failed=0
printf '%-22s %-8s %-7s | %-23s' workload requests mode "exits: 0   1   5  5f  other"
[ -z "$BEFORE" ] || printf ' | before: 0   1   5  5f  other'
printf '\n'
for script in $W/*_steady.lua; do
  workload=$(basename "$script" .lua)
  truth=$W/$workload.truth
  [ ! -f "$truth" ] || ! grep -q '^leak \|^run \|^inconclusive' "$truth" || continue
  for n in $COUNTS; do
    for mode in full "$SAMPLE"; do
      sample=
      [ "$mode" = full ] || sample="--sample $mode"
      : > "$OUT/$workload-$n-$mode.after"
      : > "$OUT/$workload-$n-$mode.before"
      run=1
      while [ "$run" -le "$RUNS" ]; do
        cap="$OUT/$workload-$n-$mode-$run"
        # shellcheck disable=SC2086: $sample is words
        if (cd $W && "$LJLEAK" run $sample -o "$cap" "$workload.lua" "$n") > "$cap.log" 2>&1; then
          judge "$LJLEAK" "$cap" after >> "$OUT/$workload-$n-$mode.after"
          [ -z "$BEFORE" ] || judge "$BEFORE" "$cap" before >> "$OUT/$workload-$n-$mode.before"
        else
          echo run-failed >> "$OUT/$workload-$n-$mode.after"
        fi
        rm -rf "$cap"
        run=$((run + 1))
      done
      printf '%-22s %-8s %-7s | %-23s' "$workload" "$n" "$mode" "   $(tally "$OUT/$workload-$n-$mode.after")"
      [ -z "$BEFORE" ] || printf ' |        %s' "$(tally "$OUT/$workload-$n-$mode.before")"
      printf '\n'
      # full: every run 0; sampled: 0 or 5 naming the floor
      if [ "$mode" = full ]; then
        grep -qv '^0$' "$OUT/$workload-$n-$mode.after" && failed=$((failed + 1))
      else
        grep -qv '^0$\|^5f$' "$OUT/$workload-$n-$mode.after" && failed=$((failed + 1))
      fi
    done
  done
done
echo "steady-runs: $failed workload rows with a run that is not what a steady program must give"
[ "$failed" = 0 ]
