#!/bin/sh
# tests/e2e/diff-corpus.sh: captures every workload of testdata/workloads with
# `ljleak run` (JIT on) and checks `ljleak diff` against its truth file (the
# leaking Lua lines themselves, also where compiled code leaks; a trace site
# matches none); then the base-versus-candidate pair. Run from the
# repository root.
BUILD=${BUILD:-build}
LJLEAK="$PWD/$BUILD/ljleak"
OUT="$PWD/$BUILD/diff-corpus"
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; }
rm -rf "$OUT"
mkdir -p "$OUT"

# capture NAME DIR SCRIPT [OPTION...]: runs SCRIPT from DIR into $OUT/NAME,
# a segment per finished GC cycle (--max-bytes 1k; every cycle is a boundary
# anyway), with the workload's own `run` options from its truth file.
capture() {
  name=$1 from=$2 script=$3
  shift 3
  (cd "$from" && "$LJLEAK" run -o "$OUT/$name" --max-bytes 1k "$@" "$script") >"$OUT/$name.run.log" 2>&1
}

for truth in testdata/workloads/*.truth; do
  name=$(basename "$truth" .truth)
  # shellcheck disable=SC2046: the options are words
  if ! capture "$name" testdata/workloads "$name.lua" $(sed -n 's/^run //p' "$truth"); then
    fail "$name: ljleak run failed: $(tail -n 1 "$OUT/$name.run.log")"
    continue
  fi
  boundaries=$("$LJLEAK" info --get boundaries "$OUT/$name")
  if [ "$boundaries" -lt 10 ]; then
    fail "$name: only $boundaries boundaries (want at least 10)"
    continue
  fi
  "$LJLEAK" diff -q --format json -o "$OUT/$name.json" "$OUT/$name" 2>"$OUT/$name.diff.log"
  status=$?
  expected=0
  grep -q '^leak ' "$truth" && expected=1
  # a leak below its sampling's floor: inconclusive, and the result says why
  if grep -q '^inconclusive' "$truth"; then
    if [ "$status" = 5 ] && grep -q '"outcome_reason": "nothing grows, but a capture sampled every' \
         "$OUT/$name.json"; then
      pass "$name ($boundaries boundaries): inconclusive, naming the sampling's floor"
    else
      fail "$name: ljleak diff exited $status, want 5 naming the sampling's floor"
    fi
    continue
  fi
  if [ "$status" -gt 1 ]; then
    fail "$name: ljleak diff exited $status: $(cat "$OUT/$name.diff.log")"
    continue
  fi
  if [ "$status" != "$expected" ]; then
    fail "$name: ljleak diff exited $status, want $expected"
    luajit tests/e2e/diff_truth.lua "$OUT/$name.json" "$truth"
    continue
  fi
  if problems=$(luajit tests/e2e/diff_truth.lua "$OUT/$name.json" "$truth"); then
    pass "$name ($boundaries boundaries)"
  else
    fail "$name: $problems"
  fi
done

# The leak freed at exit: an end-of-run summary sees (almost) nothing left at
# the line that leaked megabytes (in compiled code), which ljleak diff
# flagged above.
if [ -d "$OUT/exit_freed_leak" ]; then
  held=$("$LJLEAK" summary --leak-only "$OUT"/exit_freed_leak/seg-*.memprof* |
         sed -n 's/^@exit_freed_leak.lua:10 holds \([0-9]*\)B.*/\1/p' | head -n 1)
  [ -n "$held" ] || held=0   # nothing held there at all
  if [ "$held" -lt 4096 ] &&
     grep -q '"name": "@exit_freed_leak.lua:10"' "$OUT/exit_freed_leak.json"; then
    pass "exit_freed_leak: the end-of-run summary shows ${held}B at the leaking line"
  else
    fail "exit_freed_leak: end-of-run summary shows '${held}' bytes at the leaking line"
  fi
fi

# Base against candidate: version 2 adds one leak at line 14.
printf 'leak service.lua:14\n' >"$OUT/base.truth"
if capture base-v1 testdata/workloads/base/v1 service.lua &&
   capture base-v2 testdata/workloads/base/v2 service.lua; then
  "$LJLEAK" diff -q --format json -o "$OUT/base-new.json" --base "$OUT/base-v1" "$OUT/base-v2"
  status=$?
  if [ "$status" = 1 ] && problems=$(luajit tests/e2e/diff_truth.lua "$OUT/base-new.json" \
       "$OUT/base.truth" new); then
    pass "base: version 2 against version 1 gives service.lua:14 as new, exit 1"
  else
    fail "base: version 2 against version 1: exit $status $problems"
  fi
  "$LJLEAK" diff -q --base "$OUT/base-v2" "$OUT/base-v1" >/dev/null
  status=$?
  if [ "$status" = 0 ]; then
    pass "base: version 1 against version 2 flags nothing, exit 0"
  else
    fail "base: version 1 against version 2: exit $status, want 0"
  fi
else
  fail "base: ljleak run failed"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
