# bench/median.sh: sourced by the bench scripts. median [FILE]: the median of
# the numbers one a line in FILE (or standard input), to four decimals for
# an even count.
median() {
  sort -n "$@" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
