# bench/median.sh: sourced by the bench scripts: their directory, runs in pairs, medians.

# bench_dir NAME: a bench's start: it stops at the first failing command (set -e); BUILD (build
# by default); LJLEAK, the ljleak of $BUILD; and dir, the empty directory $BUILD/bench/NAME.
# shellcheck disable=SC2034 # they are for the script that sources this
bench_dir() {
  set -e
  BUILD=${BUILD:-build}
  LJLEAK="$PWD/$BUILD/ljleak"
  dir="$PWD/$BUILD/bench/$1"
  rm -rf "$dir"
  mkdir -p "$dir"
}

# in_pairs I A B: runs the commands A and B (a word each, such as a function), A first when I
# is odd and B first when it is even, so that a shared machine's drift falls on both alike.
in_pairs() {
  if [ $(($1 % 2)) = 1 ]; then
    "$2"; "$3"
  else
    "$3"; "$2"
  fi
}

# median [FILE]: the median of the numbers one a line in FILE (or standard input), to four
# decimals for an even count.
median() {
  sort -n "$@" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
