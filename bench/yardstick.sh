# bench/yardstick.sh: sourced by read.sh, diff.sh and summary.sh: commands
# timed in turns, one run of each after the other, so that what the machine
# does meanwhile (other builds, other benchmarks) falls on each alike; then
# each one's medians, and its speed as a ratio against a yardstick measured
# in the same turns (the read limit, bench/read_limit).
# The caller sets times (a directory for the timings) and defines, for each NAME it
# times, a function run_NAME that runs it once and prints run_timed's or
# read_limit's lines (--runs 1, or a RUNS argument of 1).
# shellcheck shell=sh disable=SC2154 # times: set by the script that sources this
. "$(dirname "$0")/median.sh"

# in_turns RUNS NAME...: RUNS turns, each running every NAME once, in an
# order that rotates from turn to turn; keeps CPU seconds, wall seconds and
# peak RSS in $times/NAME.cpu, .wall and .rss, one line a run.
in_turns() {
  turns=$1
  shift
  for name in "$@"; do
    rm -f "$times/$name.cpu" "$times/$name.wall" "$times/$name.rss"
  done
  turn=0
  while [ "$turn" -lt "$turns" ]; do
    # rotate: turn k starts with the (k mod n)-th name
    skip=$((turn % $#)) order=
    i=0
    for name in "$@"; do
      [ "$i" -ge "$skip" ] && order="$order $name"
      i=$((i + 1))
    done
    i=0
    for name in "$@"; do
      [ "$i" -lt "$skip" ] && order="$order $name"
      i=$((i + 1))
    done
    for name in $order; do
      line=$("run_$name" | grep 'median of 1 run')
      echo "$line" | sed -n 's/.*: \([0-9.]*\) s wall, \([0-9.]*\) s CPU.*/\2/p' >> "$times/$name.cpu"
      echo "$line" | sed -n 's/.*: \([0-9.]*\) s wall, \([0-9.]*\) s CPU.*/\1/p' >> "$times/$name.wall"
      echo "$line" | sed -n 's/.*peak RSS \([0-9.]*\) MiB.*/\1/p' >> "$times/$name.rss"
    done
    turn=$((turn + 1))
  done
}

# figure LABEL NAME EVENTS [YARDSTICK KIND TEXT]: NAME's medians of CPU and wall time
# over its runs, its events per second of CPU time and its peak RSS; with
# YARDSTICK, its speed as a ratio against YARDSTICK's (TEXT names it), by the
# medians of KIND (cpu or wall) time: above 1 faster, below 1 slower.
figure() {
  cpu=$(median "$times/$2.cpu") wall=$(median "$times/$2.wall")
  line=$(awk -v label="$1" -v cpu="$cpu" -v wall="$wall" -v events="$3" -v runs="$(wc -l < "$times/$2.cpu")" \
    'BEGIN { printf "%s: median of %d runs in turns: %.3f s CPU, %.3f s wall; %.2f million events/s (CPU)",
               label, runs, cpu, wall, events / cpu / 1e6 }')
  if [ -s "$times/$2.rss" ]; then
    line="$line; peak RSS $(sort -n "$times/$2.rss" | tail -n 1) MiB"
  fi
  if [ -n "${4:-}" ]; then
    ratio=$(awk -v a="$(median "$times/$4.$5")" -v b="$(median "$times/$2.$5")" 'BEGIN { printf "%.2f", a / b }')
    line="$line; ${ratio}x $6 ($5 time)"
  fi
  echo "$line"
}
