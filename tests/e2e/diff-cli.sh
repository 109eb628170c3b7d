#!/bin/sh
# tests/e2e/diff-cli.sh: ljleak diff on Tarantool's segment fixtures: verdicts, modes, formats, exit codes.
BUILD=${BUILD:-build}
LJLEAK="$BUILD/ljleak"
OUT="$BUILD/diff-cli"
SEGMENTS=testdata/tarantool-memprof/segments
passed=0
failed=0
rm -rf "$OUT"
mkdir -p "$OUT"

# check NAME EXPECTED_STATUS COMMAND...: runs COMMAND, stdout and stderr to $OUT/NAME.*
check() {
  name=$1 want=$2
  shift 2
  "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
  status=$?
  if [ "$status" = "$want" ]; then
    passed=$((passed + 1)); echo "ok   $name"
  else
    failed=$((failed + 1)); echo "FAIL $name: exit $status, want $want"; head -5 "$OUT/$name.err"
  fi
}

# expect NAME TEXT FILE: FILE contains TEXT
expect() {
  if grep -qF -- "$2" "$3"; then
    passed=$((passed + 1)); echo "ok   $1"
  else
    failed=$((failed + 1)); echo "FAIL $1: no '$2' in $3"
  fi
}

check help 0 "$LJLEAK" diff --help
expect help-usage "usage: ljleak diff" "$OUT/help.out"
check no-capture 2 "$LJLEAK" diff
expect no-capture-usage "usage: ljleak diff" "$OUT/no-capture.err"
check bad-option 2 "$LJLEAK" diff --frobnicate "$SEGMENTS"
check bad-jobs 2 "$LJLEAK" diff -j 0 "$SEGMENTS"
check from-without-to 2 "$LJLEAK" diff --from 1 "$SEGMENTS"
check range-out-of-capture 2 "$LJLEAK" diff --from 2 --to 9 "$SEGMENTS"
check missing-capture 3 "$LJLEAK" diff no/such/capture

# The sessions table (line 14) grows; the LRU and the loop trace at line 22 do not.
check trend 1 "$LJLEAK" diff -q --format json -o "$OUT/trend.json" "$SEGMENTS"
check trend-j2 1 "$LJLEAK" diff -q -j 2 --format json -o "$OUT/trend-j2.json" "$SEGMENTS"
grep -v '"jobs"' "$OUT/trend.json" >"$OUT/trend.nojobs"
grep -v '"jobs"' "$OUT/trend-j2.json" >"$OUT/trend-j2.nojobs"
if cmp -s "$OUT/trend.nojobs" "$OUT/trend-j2.nojobs"; then
  passed=$((passed + 1)); echo "ok   -j 2 writes the same result as -j 1"
else
  failed=$((failed + 1)); echo "FAIL -j 2 result differs from -j 1"
fi
if luajit - "$OUT/trend.json" <<'LUA'
  local text = io.open(arg[1]):read("*a")
  local flagged = {}
  for name, verdict in text:gmatch("\"name\": \"([^\"]*)\".-\"verdict\": \"(%a+)\"") do
    if verdict == "growing" then flagged[#flagged + 1] = name end
  end
  table.sort(flagged)
  local got = table.concat(flagged, "|")
  if got ~= "@segments.lua:14|TRACE started at @segments.lua:14" then
    print("flagged: " .. got) os.exit(1)
  end
LUA
then
  passed=$((passed + 1)); echo "ok   only the sessions site (line 14) is flagged"
else
  failed=$((failed + 1)); echo "FAIL flagged sites"
fi
check trend-text 1 "$LJLEAK" diff -q "$SEGMENTS"
expect trend-text-names-site "TRACE started at @segments.lua:14" "$OUT/trend-text.out"
check files-in-order 1 "$LJLEAK" diff -q "$SEGMENTS"/seg-0001.bin "$SEGMENTS"/seg-0002.bin \
  "$SEGMENTS"/seg-0003.bin "$SEGMENTS"/seg-0004.bin "$SEGMENTS"/seg-0005.bin "$SEGMENTS"/seg-0006.bin
check too-few-boundaries 0 "$LJLEAK" diff -q "$SEGMENTS"/seg-0001.bin "$SEGMENTS"/seg-0002.bin
check stricter-p-value 0 "$LJLEAK" diff -q --p-value 0.0001 "$SEGMENTS"
check range 1 "$LJLEAK" diff -q --from 1 --to 6 --format json -o "$OUT/range.json" "$SEGMENTS"
expect range-mode '"mode": "range"' "$OUT/range.json"
check base-same 0 "$LJLEAK" diff -q --base "$SEGMENTS" "$SEGMENTS"
for format in html junit markdown; do
  check "format-$format" 1 "$LJLEAK" diff -q --format "$format" -o "$OUT/report.$format" "$SEGMENTS"
done

# A capture whose last segment was cut (gzipped, no epilogue): a warning, or exit 3 with --strict.
mkdir -p "$OUT/cut"
cp "$SEGMENTS"/seg-000[1-5].bin "$OUT/cut/"
cp testdata/tarantool-memprof/killed-sigkill.bin.gz "$OUT/cut/seg-0006.gz"
check cut 1 "$LJLEAK" diff -q "$OUT/cut"
expect cut-warning "seg-0006.gz: byte" "$OUT/cut.err"
check cut-strict 3 "$LJLEAK" diff -q --strict "$OUT/cut"

# The portable decoder (LJLEAK_NO_PEXT=1) gives the same JSON as the default one.
check json-default 1 "$LJLEAK" diff -q --format json -o "$OUT/default.json" "$SEGMENTS"
check json-portable 1 env LJLEAK_NO_PEXT=1 "$LJLEAK" diff -q --format json -o "$OUT/portable.json" "$SEGMENTS"
check json-portable-same 0 cmp "$OUT/default.json" "$OUT/portable.json"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
