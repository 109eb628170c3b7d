#!/bin/sh
# tests/e2e/summary.sh: ljleak summary from the command line: output, warnings and exit codes.
BUILD=${BUILD:-build}
ljleak=$BUILD/ljleak
fixtures=testdata/tarantool-memprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

# check NAME COMMAND...: counts COMMAND's success as NAME passing.
check() {
  name=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $name"
  fi
}

# run WANTED_EXIT ARG...: runs ljleak summary ARG... into $tmp/out and $tmp/err.
run() {
  wanted=$1
  shift
  "$ljleak" summary "$@" > "$tmp/out" 2> "$tmp/err"
  code=$?
  [ "$code" -eq "$wanted" ] && return 0
  echo "  ljleak summary $*: exit $code, wanted $wanted" >&2
  return 1
}

has() { grep -qF -- "$2" "$tmp/$1"; }
empty() { [ ! -s "$tmp/$1" ]; }

check "--help prints usage on stdout" \
  eval 'run 0 --help && head -n 1 "$tmp/out" | grep -q "^usage: ljleak summary " && empty err'
check "unknown option is a usage error" \
  eval 'run 2 --bogus $fixtures/basic-jiton.bin && has err "usage: ljleak summary" && empty out'
check "no file is a usage error" \
  eval 'run 2 --leak-only && has err "usage: ljleak summary"'
check "missing file exits 3 naming it" \
  eval 'run 3 $fixtures/no-such.bin && has err "no-such.bin" && empty out'
check "corrupt stream exits 3 naming it" \
  eval 'run 3 $fixtures/README.md && has err "README.md" && empty out'
check "segment summary has the saved lines" \
  eval 'run 0 --leak-only $fixtures/segments/seg-0001.bin &&
        sort "$tmp/out" > "$tmp/a" && sort $fixtures/segments/seg-0001.leak-only.txt > "$tmp/b" &&
        cmp -s "$tmp/a" "$tmp/b"'
check "default summary has the saved lines" \
  eval 'run 0 $fixtures/basic-jiton.bin &&
        sort "$tmp/out" > "$tmp/a" && sort $fixtures/basic-jiton.parse-memprof.txt > "$tmp/b" &&
        cmp -s "$tmp/a" "$tmp/b"'
check "stdin reads like a file" \
  eval 'run 0 --leak-only - < $fixtures/segments/seg-0002.bin && cp "$tmp/out" "$tmp/stdin" &&
        run 0 --leak-only $fixtures/segments/seg-0002.bin && cmp -s "$tmp/out" "$tmp/stdin"'
check "gzip input reads like plain" \
  eval 'gzip -c $fixtures/segments/seg-0003.bin > "$tmp/seg.gz" && run 0 --leak-only "$tmp/seg.gz" &&
        cp "$tmp/out" "$tmp/gz" && run 0 --leak-only $fixtures/segments/seg-0003.bin &&
        cmp -s "$tmp/out" "$tmp/gz"'
check "several files are one stream" \
  eval 'run 0 --leak-only $fixtures/segments/seg-000[1-6].bin &&
        has out "@segments.lua:14 holds 68670B: 103 allocs, 12 frees"'
check "--human-readable scales sizes" \
  eval 'run 0 --leak-only --human-readable $fixtures/basic-jiton.bin &&
        has out "INTERNAL holds 65.08KiB: 23 allocs, 18 frees" &&
        has out "@driver.lua:5 holds 56B: 1 allocs, 0 frees"'
check "cut stream warns and exits 0" \
  eval 'run 0 --leak-only $fixtures/killed-sigkill.bin.gz && has out "HEAP SUMMARY:" &&
        has out "TRACE [1] started at @killed.lua:5 holds 29351582B" &&
        has err "warning" && has err "killed-sigkill.bin.gz" && has err "byte "'
check "cut stream with --strict exits 3" \
  eval 'run 3 --strict --leak-only $fixtures/killed-sigkill.bin.gz && has out "HEAP SUMMARY:" &&
        has err "killed-sigkill.bin.gz"'

# The portable decoder (LJLEAK_NO_PEXT=1) prints the same as the default one.
for f in basic-jiton.bin basic-jitoff.bin killed-sigkill.bin.gz segments/seg-0004.bin; do
  check "portable decoder agrees on $f" \
    eval '"$ljleak" summary $fixtures/$f > "$tmp/fast" 2>&1;
          LJLEAK_NO_PEXT=1 "$ljleak" summary $fixtures/$f > "$tmp/portable" 2>&1;
          cmp -s "$tmp/fast" "$tmp/portable" && [ -s "$tmp/fast" ]'
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
