#!/bin/sh
# bench/same-output.sh: compares what two ljleak binaries print for the same
# inputs, byte for byte: diff (every format, by site and by stack, -j 1 and
# -j 2), report of diff's JSON (every format) and summary (plain, --leak-only,
# --human-readable). A change meant to make reading faster or smaller runs it
# with the binary built before the change as OLD.
#
# usage: sh bench/same-output.sh OLD NEW INPUT...
# An INPUT is a capture directory or a stream file; a directory that holds
# capture directories (no index nor segment of its own) stands for each of them.
# FORMATS and JOBS (words) narrow what diff and report run on big inputs:
# every format and -j 1 and 2 by default.
# Exit status: 0 every output the same, 1 some differ (each one named).
set -u
FORMATS=${FORMATS:-text html json junit markdown pprof folded}
JOBS=${JOBS:-1 2}
if [ $# -lt 3 ]; then
  echo "usage: sh bench/same-output.sh OLD NEW INPUT..." >&2
  exit 2
fi
old=$1 new=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
compared=0
differ=0

# run BINARY OUT ARG...: the output, stderr and exit status of one command, in OUT.
run() {
  binary=$1 out=$2
  shift 2
  "$binary" "$@" > "$out" 2> "$out.err"
  echo "exit $?" >> "$out.err"
}

# same LABEL ARG...: runs both binaries with ARG... (-o takes OUT, a file of
# the work directory) and compares stdout, stderr, the exit status and OUT.
same() {
  label=$1
  shift
  for side in old new; do
    binary=$old
    [ "$side" = new ] && binary=$new
    rm -f "$work/out"
    run "$binary" "$work/$side" "$@"
    if [ -e "$work/out" ]; then mv "$work/out" "$work/$side.file"; else : > "$work/$side.file"; fi
  done
  compared=$((compared + 1))
  for part in "" .err .file; do
    if ! cmp -s "$work/old$part" "$work/new$part"; then
      differ=$((differ + 1))
      echo "DIFFERS $label (${part:-stdout})"
      break
    fi
  done
}

# compare INPUT: every command on one capture or stream.
compare() {
  input=$1
  for by in site stack; do
    for format in $FORMATS; do
      for jobs in $JOBS; do
        same "diff --by $by --format $format -j $jobs $input" \
          diff -q --by "$by" --format "$format" -j "$jobs" -o "$work/out" "$input"
      done
    done
  done
  "$new" diff -q --format json -o "$work/result.json" "$input" 2>/dev/null
  if [ -s "$work/result.json" ]; then
    for format in $FORMATS; do
      same "report --format $format of $input" report --format "$format" -o "$work/out" "$work/result.json"
    done
  fi
  if [ -f "$input" ]; then
    same "summary $input" summary "$input"
    same "summary --leak-only $input" summary --leak-only "$input"
    same "summary --human-readable $input" summary --human-readable "$input"
  else
    for segment in "$input"/*.bin "$input"/*.memprof "$input"/*.gz; do
      [ -f "$segment" ] || continue
      same "summary --leak-only $segment" summary --leak-only "$segment"
    done
  fi
}

# has_segments DIR: whether DIR holds segment files of its own.
has_segments() {
  for segment in "$1"/*.bin "$1"/*.memprof "$1"/*.gz; do
    [ -f "$segment" ] && return 0
  done
  return 1
}

for input in "$@"; do
  if [ -d "$input" ] && [ ! -e "$input/index" ] && ! has_segments "$input"; then
    for capture in "$input"/*/; do
      [ -d "$capture" ] && compare "${capture%/}"
    done
  else
    compare "$input"
  fi
done
echo "compared $compared commands: $differ differ"
[ "$differ" -eq 0 ]
