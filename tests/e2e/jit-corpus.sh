#!/bin/sh
# tests/e2e/jit-corpus.sh: every program of testdata/jit, captured with the
# JIT on and with -j off: the same allocating lines, the same count per line
# within the tolerance tests/e2e/jit_corpus.lua states, but for the lines
# each program lists as sunk; prints the table. Run from the repository root.
BUILD=${BUILD:-build}
LJLEAK="$PWD/$BUILD/ljleak"
OUT="$PWD/$BUILD/jit-corpus"
rm -rf "$OUT"
mkdir -p "$OUT"
failed=0
echo "lines that allocate with -j off (sites), found with the JIT on too (matched), their"
echo "event counts within the tolerance (within; largest difference: diff), lines whose"
echo "allocations the JIT removes (sunk); allocations by compiled code (traces) and the"
echo "share of them charged to their line (lines)"
echo "program          sites matched within  diff  sunk         traces  lines"
for program in testdata/jit/*.lua; do
  name=$(basename "$program" .lua)
  case "$name" in *_helpers) continue ;; esac
  # -v prints the share of allocations by compiled code charged to a line.
  if ! (cd testdata/jit && "$LJLEAK" run -v -o "$OUT/$name-on" "$name.lua") \
         >"$OUT/$name-on.out" 2>"$OUT/$name-on.err" ||
     ! (cd testdata/jit && "$LJLEAK" run -o "$OUT/$name-off" -j off "$name.lua") \
         >"$OUT/$name-off.out" 2>&1; then
    echo "FAIL $name: ljleak run failed"
    failed=$((failed + 1))
    continue
  fi
  "$LJLEAK" summary "$OUT/$name-on"/seg-*.memprof* >"$OUT/$name-on.txt"
  "$LJLEAK" summary "$OUT/$name-off"/seg-*.memprof* >"$OUT/$name-off.txt"
  counts=$(sed -n 's/^ljleak: \([0-9]*\) allocations by compiled code, \([0-9]*\) .*/\2 \1/p' "$OUT/$name-on.err")
  [ -n "$counts" ] || counts="0 0"
  # shellcheck disable=SC2086
  if ! luajit tests/e2e/jit_corpus.lua "$name" "$program" "$OUT/$name-on.txt" "$OUT/$name-off.txt" $counts; then
    failed=$((failed + 1))
  fi
done
if [ "$failed" = 0 ]; then
  echo "ok   every program: the same lines with the JIT on as off"
else
  echo "FAIL $failed programs"
fi
[ "$failed" = 0 ]
