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

# timed_diff NAME LABEL EXITS LJLEAK ARG...: one `LJLEAK diff -q ARG...`, which must exit with
# one of EXITS (such as "1": it flags the growth; else the bench NAME stops); its wall and CPU
# (user + system) seconds and peak RSS (KB, /usr/bin/time) are appended to $dir/LABEL.wall,
# LABEL.cpu and LABEL.rss.
timed_diff() {
  name=$1 label=$2 exits=$3 ljleak=$4
  shift 4
  status=0
  /usr/bin/time -f '%e %U %S %M' -o "$dir/time.tmp" "$ljleak" diff -q "$@" > /dev/null 2>&1 || status=$?
  case " $exits " in
  *" $status "*) ;;
  *)
    echo "$name: $ljleak diff $* exited $status, not $exits" >&2
    exit 1
    ;;
  esac
  set -- $(tail -1 "$dir/time.tmp")
  echo "$1" >> "$dir/$label.wall"
  awk -v u="$2" -v s="$3" 'BEGIN { printf "%.3f\n", u + s }' >> "$dir/$label.cpu"
  echo "$4" >> "$dir/$label.rss"
}
