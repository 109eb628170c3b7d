#!/bin/sh
# tests/layout-check.sh: fails on an include cycle between the files of one stage, and on a file
# over 700 lines or a function over 80 (LAYOUT_MAX_LINES, LAYOUT_MAX_FUNCTION): a file calls
# down, never back up (docs/collector.md, "Layers"). A file x.c and its header x.h are one node,
# and x depends on y when x.c or x.h includes "STAGE/y.h", a header of its own stage; the stage's
# interface, STAGE/STAGE.h, declares what several files implement and is a node of its own.
# For the collector it also fails on a global symbol of its objects in $BUILD/collector (when they
# are there and up to date: make check builds them first) that lacks the stage prefix coll_, but for
# the C API (ljleak_collector_*) and the Lua module's luaopen_*.
# usage: [BUILD=DIR] tests/layout-check.sh STAGE...
cd "$(dirname "$0")/.." || exit 2
[ $# -gt 0 ] || { echo "usage: tests/layout-check.sh STAGE..." >&2; exit 2; }
status=0
for stage in "$@"; do
  edges=$(for f in "$stage"/*.[ch]; do
    [ -f "$f" ] || continue
    from=$(basename "$f")
    [ "$from" = "$stage.h" ] || from=${from%.[ch]}
    echo "$from $from"
    sed -n "s|^[ \t]*#[ \t]*include[ \t]*\"$stage/\([A-Za-z0-9_]*\)\.h\".*|\1|p" "$f" |
      while read -r to; do
        [ "$to" = "$stage" ] && to=$stage.h
        [ "$to" = "$from" ] || echo "$from $to"
      done
  done)
  # tsort names the files of each cycle it finds, one a line after "input contains a loop".
  loops=$(printf '%s\n' "$edges" | LC_ALL=C tsort 2>&1 >/dev/null |
    awk '/input contains a loop/ { if (l != "") print l; l = ""; next }
         { sub(/^tsort: /, ""); l = l == "" ? $0 : l " -> " $0 }
         END { if (l != "") print l }')
  if [ -n "$loops" ]; then
    printf '%s\n' "$loops" | sed "s|^|layout-check: $stage: include cycle: |"
    status=1
  fi
done
[ $status -eq 0 ] && echo "layout-check: no include cycle between the files of: $*"
# No file over LAYOUT_MAX_LINES lines and no function over LAYOUT_MAX_FUNCTION (from the line of
# its opening brace, at the start of a line, to its closing one): split by concern when one grows.
long=$(for stage in "$@"; do
  for f in "$stage"/*.[ch]; do
    [ -f "$f" ] || continue
    awk -v f="$f" -v max_lines="${LAYOUT_MAX_LINES:-700}" -v max_function="${LAYOUT_MAX_FUNCTION:-80}" '
      /^\{/ { start = NR; name = previous }
      /^\}/ { if (start && NR - start > max_function)
                printf "%s:%d: a function of %d lines (over %d): %s\n", f, start, NR - start, max_function, name
              start = 0 }
      { previous = $0 }
      END { if (NR > max_lines) printf "%s: %d lines (over %d)\n", f, NR, max_lines }' "$f"
  done
done)
if [ -n "$long" ]; then
  printf '%s\n' "$long" | sed 's|^|layout-check: |'
  status=1
else
  echo "layout-check: no file over ${LAYOUT_MAX_LINES:-700} lines, no function over ${LAYOUT_MAX_FUNCTION:-80} in: $*"
fi
case " $* " in *" collector "*)
  objects=$(for c in collector/*.c; do
    o=${BUILD:-build}/collector/$(basename "$c" .c).o
    [ -f "$o" ] && ! [ "$c" -nt "$o" ] && echo "$o"
  done)
  if [ -z "$objects" ]; then
    echo "layout-check: collector: symbols not checked (no up-to-date objects in ${BUILD:-build}/collector)"
  else
    # shellcheck disable=SC2086 # one object a word
    stray=$(nm -g --defined-only $objects | awk 'NF == 3 { print $3 }' |
      grep -v -e '^coll_' -e '^ljleak_collector_' -e '^luaopen_' | sort -u)
    if [ -n "$stray" ]; then
      printf '%s\n' "$stray" | sed 's|^|layout-check: collector: global symbol without the prefix coll_: |'
      status=1
    else
      echo "layout-check: collector: every global symbol of $(echo "$objects" | wc -l) objects is coll_*, ljleak_collector_* or luaopen_*"
    fi
  fi
esac
exit $status
