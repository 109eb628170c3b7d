#!/bin/sh
# bench/attach-pause.sh: how long ljleak attach stops a running process (make bench-attach). A
# plain luajit loop (bench/attach_gap.lua) sleeps 1 ms a round and reports its longest gap
# between two rounds; ROUNDS runs each, in turns: no attach; gdb alone attaching, calling malloc
# and detaching, with the separate debug files it finds by default (libc6-dbg's, when installed)
# and without them as ljleak attach runs it; and ljleak attach --duration 0.5 (the stop, then
# the capture's start at the hook, then its end); then the same loop holding HEAP_MB (default
# 500) of live heap under ljleak attach --no-edge-gc --duration 0.5 (the stop alone: no full
# cycle at the end, whose pause grows with the heap), and under the build BEFORE names when set
# (an older ljleak, in the same turns). Prints each run's gap and the medians, in ms.
# ATTACH_LJLEAK names another ljleak to measure (an older build, to compare).
. bench/median.sh
bench_dir attach-pause
LJLEAK=${ATTACH_LJLEAK:-$LJLEAK}
ROUNDS=${ROUNDS:-5}
HEAP_MB=${HEAP_MB:-500}
export LJLEAK_RUN_DIR="$dir/run"
# gap NAME COMMAND...: the loop's longest gap with COMMAND PID run 0.6 s into it (into its
# timed part: after the heap of $heap MB is built).
heap=0
gap() {
  name=$1; shift
  rm -f "$dir/ready"
  luajit bench/attach_gap.lua 2.5 "$heap" "$dir/ready" >"$dir/gap.out" &
  pid=$!
  while [ ! -e "$dir/ready" ] && kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  sleep 0.6
  "$@" "$pid" >"$dir/$name.log" 2>&1 || { cat "$dir/$name.log"; exit 1; }
  wait "$pid"
  cat "$dir/gap.out" >>"$dir/$name"
}
gdb_default() { gdb -q -nx -batch -ex 'print (void *)malloc(1)' -ex detach -p "$1"; }
gdb_no_debug_files() {
  gdb -q -nx -batch -iex 'set debug-file-directory /dev/null' -iex 'set debuginfod enabled off' \
    -ex 'print (void *)malloc(1)' -ex detach -p "$1"
}
attach() { rm -rf "$dir/cap"; "$LJLEAK" attach --duration 0.5 -o "$dir/cap" "$1"; }
stop_only() { rm -rf "$dir/cap"; "$LJLEAK" attach --no-edge-gc --duration 0.5 -o "$dir/cap" "$1"; }
stop_only_before() {
  rm -rf "$dir/cap"
  "$BEFORE" attach --no-edge-gc --duration 0.5 -o "$dir/cap" "$1"
}
i=0
while [ $i -lt "$ROUNDS" ]; do
  i=$((i + 1))
  gap none true
  gap gdb-debug-files gdb_default
  gap gdb-no-debug-files gdb_no_debug_files
  gap attach attach
  heap=$HEAP_MB
  gap attach-heap stop_only
  [ -z "$BEFORE" ] || gap attach-heap-before stop_only_before
  heap=0
done
echo "== the longest gap of a 1 ms loop, ms: each run, then the median of $ROUNDS ($LJLEAK)"
echo "   (attach-heap: a live heap of $HEAP_MB MB, --no-edge-gc${BEFORE:+; -before: $BEFORE})"
for name in none gdb-debug-files gdb-no-debug-files attach attach-heap ${BEFORE:+attach-heap-before}; do
  printf "%-20s %-24s median %s\n" "$name" "$(tr '\n' ' ' <"$dir/$name")" "$(median "$dir/$name")"
done
