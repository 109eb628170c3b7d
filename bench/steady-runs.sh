#!/bin/sh
# bench/steady-runs.sh: every steady workload of testdata/workloads (NAME_steady.lua
# whose truth file, if any, names no leak and no `run` options; WORKLOADS="a b" for
# some of them), captured RUNS times with `ljleak run` and no option but the
# request count, in full and sampled (--sample SAMPLE), beside a CPU-bound
# neighbour (a shell loop, killed at the end; NEIGHBOUR=0 for none), then
# `ljleak diff` with no option. COUNTS lists request counts; "default" runs
# the workload with no argument, at its default length (160000 requests), the
# documented minimum from which a steady workload must pass. Prints per
# workload and mode the count of exits 0, 1, 5 and other; a sampled 5 counts
# as "5f" when its reason names the sampling's floor. With BEFORE=PATH
# (another ljleak binary) each capture is also judged by it, and the table
# shows its exits beside this build's.
#
#   BUILD=build RUNS=20 COUNTS="default 50000" SAMPLE=512k sh bench/steady-runs.sh
#
# The rule it shows: a steady program exits 0 in every full run from the
# documented minimum length on (docs/diff.md, "Rose, then held"); a sampled
# capture exits 0, or 5 naming its floor, never 1.
BUILD=${BUILD:-build}
RUNS=${RUNS:-20}
COUNTS=${COUNTS:-default}
NEIGHBOUR=${NEIGHBOUR:-1}
SAMPLE=${SAMPLE:-512k}
LJLEAK="$PWD/$BUILD/ljleak"
W=testdata/workloads
OUT=${OUT:-$PWD/$BUILD/steady-runs}
rm -rf "$OUT"
mkdir -p "$OUT"

if [ "$NEIGHBOUR" != 0 ]; then
  sh -c 'while :; do :; done' &
  neighbour=$!
  trap 'kill "$neighbour" 2>/dev/null' EXIT INT TERM
fi

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
  [ -z "$WORKLOADS" ] || case " $WORKLOADS " in *" $workload "*) ;; *) continue ;; esac
  for n in $COUNTS; do
    for mode in full "$SAMPLE"; do
      sample=
      [ "$mode" = full ] || sample="--sample $mode"
      : > "$OUT/$workload-$n-$mode.after"
      : > "$OUT/$workload-$n-$mode.before"
      run=1
      while [ "$run" -le "$RUNS" ]; do
        cap="$OUT/$workload-$n-$mode-$run"
        length=$n
        [ "$n" != default ] || length=
        # shellcheck disable=SC2086: $sample and $length are words or none
        if (cd $W && "$LJLEAK" run $sample -o "$cap" "$workload.lua" $length) > "$cap.log" 2>&1; then
          exit_after=$(judge "$LJLEAK" "$cap" after)
          echo "$exit_after" >> "$OUT/$workload-$n-$mode.after"
          [ -z "$BEFORE" ] || judge "$BEFORE" "$cap" before >> "$OUT/$workload-$n-$mode.before"
        else
          exit_after=run-failed
          echo run-failed >> "$OUT/$workload-$n-$mode.after"
        fi
        # a capture this build misjudged is kept for a look (with its JSON result)
        case "$mode:$exit_after" in
          full:0 | "$SAMPLE":0 | "$SAMPLE":5f) rm -rf "$cap" ;;
        esac
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
