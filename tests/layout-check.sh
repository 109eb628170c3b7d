#!/bin/sh
# tests/layout-check.sh: fails on an include cycle between the files of one stage: a file calls
# down, never back up (docs/collector.md, "Layers"). A file x.c and its header x.h are one node,
# and x depends on y when x.c or x.h includes "STAGE/y.h", a header of its own stage; the stage's
# interface, STAGE/STAGE.h, declares what several files implement and is a node of its own.
# usage: tests/layout-check.sh STAGE...
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
exit $status
