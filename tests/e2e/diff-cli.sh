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
# What each site holds at each boundary, blocks followed from segment to
# segment: the same as saved, with -j 1 and -j 2.
for jobs in 1 2; do
  for k in 1 2 3 4 5 6; do
    echo "# boundary $k"
    "$LJLEAK" diff -q -j "$jobs" --format folded --boundary "$k" "$SEGMENTS"
  done >"$OUT/segments-j$jobs.folded"
  if cmp -s "$OUT/segments-j$jobs.folded" testdata/tarantool-memprof/segments.folded; then
    passed=$((passed + 1)); echo "ok   live bytes per site at each boundary as saved (-j $jobs)"
  else
    failed=$((failed + 1)); echo "FAIL live bytes per site at each boundary differ from the saved ones (-j $jobs)"
    diff testdata/tarantool-memprof/segments.folded "$OUT/segments-j$jobs.folded" | head -5
  fi
done
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
# No verdict without evidence: what rose over too few boundaries is undecided,
# and the run is inconclusive (exit 5), never a pass.
check too-few-boundaries 5 "$LJLEAK" diff -q "$SEGMENTS"/seg-0001.bin "$SEGMENTS"/seg-0002.bin
expect too-few-boundaries-says-inconclusive "ljleak: INCONCLUSIVE: 2 sites rose by ≥ 4.0 KiB but 2 boundaries cannot show a trend at p ≤ 0.01; 5 are needed" "$OUT/too-few-boundaries.out"
check four-boundaries 5 "$LJLEAK" diff -q "$SEGMENTS"/seg-0001.bin "$SEGMENTS"/seg-0002.bin \
  "$SEGMENTS"/seg-0003.bin "$SEGMENTS"/seg-0004.bin
if [ "$(head -n 1 "$OUT/four-boundaries.out")" = "ljleak: INCONCLUSIVE: 2 sites rose by ≥ 4.0 KiB but 4 boundaries cannot show a trend at p ≤ 0.01; 5 are needed" ] &&
   sed -n 2p "$OUT/four-boundaries.out" | grep -q '^        what to do: run longer for more boundaries: `ljleak run --every BYTES`'; then
  passed=$((passed + 1)); echo "ok   four-boundaries-lead-with-inconclusive-the-reason-and-what-to-do"
else
  failed=$((failed + 1)); echo "FAIL four-boundaries-lead-with-inconclusive: $(head -n 2 "$OUT/four-boundaries.out")"
fi
expect four-boundaries-list-the-undecided "undecided (rose, but the boundaries cannot show a trend yet):" "$OUT/four-boundaries.out"
check four-boundaries-json 5 "$LJLEAK" diff -q --format json -o "$OUT/four.json" "$SEGMENTS"/seg-0001.bin \
  "$SEGMENTS"/seg-0002.bin "$SEGMENTS"/seg-0003.bin "$SEGMENTS"/seg-0004.bin
expect four-boundaries-json-outcome '"outcome": "inconclusive",' "$OUT/four.json"
expect four-boundaries-json-undecided-count '"undecided": 2,' "$OUT/four.json"
expect four-boundaries-json-verdict '"verdict": "undecided",' "$OUT/four.json"
check four-boundaries-junit 5 "$LJLEAK" diff -q --format junit -o "$OUT/four.xml" "$SEGMENTS"/seg-0001.bin \
  "$SEGMENTS"/seg-0002.bin "$SEGMENTS"/seg-0003.bin "$SEGMENTS"/seg-0004.bin
if [ "$(grep -c '<error type="undecided"' "$OUT/four.xml")" = 2 ] && ! grep -q '<failure' "$OUT/four.xml"; then
  passed=$((passed + 1)); echo "ok   four-boundaries-junit-has-an-error-per-undecided-site"
else
  failed=$((failed + 1)); echo "FAIL four-boundaries-junit-has-an-error-per-undecided-site"
fi
check one-boundary 5 "$LJLEAK" diff -q "$SEGMENTS"/seg-0001.bin
expect one-boundary-says-why "ljleak: INCONCLUSIVE: the capture has 1 boundary; a change needs 2 to be measured, and a trend 5 to reach p ≤ 0.01" "$OUT/one-boundary.out"
mkdir -p "$OUT/no-boundary"
cp "$SEGMENTS"/seg-0001.bin "$OUT/no-boundary/seg-0001.bin.part"
check no-boundary 5 "$LJLEAK" diff -q "$OUT/no-boundary"
expect no-boundary-says-why "ljleak: INCONCLUSIVE: the capture has no boundary (no full GC cycle ended while it ran), so nothing was measured" "$OUT/no-boundary.out"
check stricter-p-value 5 "$LJLEAK" diff -q --p-value 0.0001 "$SEGMENTS"
expect stricter-p-value-needs-8 "6 boundaries cannot show a trend at p ≤ 0.0001; 8 are needed" "$OUT/stricter-p-value.out"
check min-boundaries-raises 5 "$LJLEAK" diff -q --min-boundaries 8 "$SEGMENTS"
check min-boundaries-at-what-p-needs 1 "$LJLEAK" diff -q --min-boundaries 5 "$SEGMENTS"
check looser-p-value-needs-fewer 1 "$LJLEAK" diff -q --p-value 0.05 "$SEGMENTS"/seg-0001.bin \
  "$SEGMENTS"/seg-0002.bin "$SEGMENTS"/seg-0003.bin "$SEGMENTS"/seg-0004.bin

# --warmup: the first boundaries leave the verdicts, not the series.
check warmup-2 5 "$LJLEAK" diff -q --warmup 2 --format json -o "$OUT/warmup.json" "$SEGMENTS"
expect warmup-recorded '"warmup": 2' "$OUT/warmup.json"
expect warmup-keeps-the-series '"series": [9643, 18255, 34849, 35269, 35584, 68670],' "$OUT/warmup.json"
check warmup-text 5 "$LJLEAK" diff -q --warmup 2 "$SEGMENTS"
expect warmup-text-says-so "6 boundaries (the first 2 warm-up, left out of the verdicts)" "$OUT/warmup-text.out"
check warmup-all 5 "$LJLEAK" diff -q --warmup 6 "$SEGMENTS"

# --allow: a site growing within its budget is allowed; past it, it still fails.
printf '# the sessions table is bounded by the test harness\n@segments.lua:14 16k/boundary # sessions, capped at 100 by the harness\nTRACE started at @segments.lua:14 100k/boundary # the same, compiled\n' >"$OUT/allow-within.txt"
check allow-within 0 "$LJLEAK" diff -q --allow "$OUT/allow-within.txt" --format json -o "$OUT/allow-within.json" "$SEGMENTS"
expect allow-within-json-allowed '"allowed": true,' "$OUT/allow-within.json"
expect allow-within-json-reason '"comment": "sessions, capped at 100 by the harness",' "$OUT/allow-within.json"
expect allow-within-json-outcome '"outcome": "pass",' "$OUT/allow-within.json"
check allow-within-text 0 "$LJLEAK" diff -q --allow="$OUT/allow-within.txt" "$SEGMENTS"
expect allow-within-text-shows-the-reason "@segments.lua:14: growing, +8.4 KiB per boundary, within 16k/boundary ($OUT/allow-within.txt line 2: @segments.lua:14): sessions, capped at 100 by the harness" "$OUT/allow-within-text.out"
printf '@segments.lua:14 16k/boundary # sessions\nTRACE started at @segments.lua:14 64k/boundary # compiled: past its budget\n' >"$OUT/allow-past.txt"
check allow-past 1 "$LJLEAK" diff -q --allow "$OUT/allow-past.txt" --format junit -o "$OUT/allow-past.xml" "$SEGMENTS"
if [ "$(grep -c '<failure' "$OUT/allow-past.xml")" = 1 ] && grep -q '<system-out>allowed: +8.4 KiB per boundary' "$OUT/allow-past.xml" &&
   grep -q 'past its allowance: +85.7 KiB per boundary, past 64k/boundary' "$OUT/allow-past.xml"; then
  passed=$((passed + 1)); echo "ok   allow-past-fails-only-the-site-past-its-budget"
else
  failed=$((failed + 1)); echo "FAIL allow-past-fails-only-the-site-past-its-budget"
fi
printf 'INTERNAL 1k/MB # interned strings grow with traffic\n' >"$OUT/allow-per-mb.txt"
check allow-per-mb-without-work 2 "$LJLEAK" diff -q --allow "$OUT/allow-per-mb.txt" "$SEGMENTS"
expect allow-per-mb-without-work-says-why "ljleak diff: error: $OUT/allow-per-mb.txt: line 1: budget '1k/MB' is per MB of work, but the capture does not record the bytes allocated at each boundary; give a budget per boundary (such as 4k/boundary)" "$OUT/allow-per-mb-without-work.err"
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
# Its last segment gzipped whole but for the last 4 bytes of the trailer: every event is
# there, so it is read as a cut (a warning), not refused as damaged.
mkdir -p "$OUT/cut-trailer"
cp "$SEGMENTS"/seg-000[1-5].bin "$OUT/cut-trailer/"
gzip -c "$SEGMENTS/seg-0006.bin" > "$OUT/cut-trailer/seg-0006.gz"
truncate -s -4 "$OUT/cut-trailer/seg-0006.gz"
check cut-trailer 1 "$LJLEAK" diff -q "$OUT/cut-trailer"
expect cut-trailer-warning "gzip data ends before its trailer (every event was read; its checksum was not)" "$OUT/cut-trailer.err"
check cut-trailer-strict 3 "$LJLEAK" diff -q --strict "$OUT/cut-trailer"

# The portable decoder (LJLEAK_NO_PEXT=1) gives the same JSON as the default one.
check json-default 1 "$LJLEAK" diff -q --format json -o "$OUT/default.json" "$SEGMENTS"
check json-portable 1 env LJLEAK_NO_PEXT=1 "$LJLEAK" diff -q --format json -o "$OUT/portable.json" "$SEGMENTS"
check json-portable-same 0 cmp "$OUT/default.json" "$OUT/portable.json"

# Byte options take the sizes of `ljleak run --sample`: 4k is 4096, given as
# NAME VALUE or NAME=VALUE; the saved options show the value that was used.
check min-growth-4096 1 "$LJLEAK" diff -q --format json -o "$OUT/mg-4096.json" --min-growth 4096 "$SEGMENTS"
check min-growth-4k 1 "$LJLEAK" diff -q --format json -o "$OUT/mg-4k.json" --min-growth 4k "$SEGMENTS"
check min-growth-equals-4k 1 "$LJLEAK" diff -q --format json -o "$OUT/mg-eq-4k.json" --min-growth=4k "$SEGMENTS"
check min-growth-4k-is-4096 0 cmp "$OUT/mg-4096.json" "$OUT/mg-4k.json"
check min-growth-equals-4k-is-4096 0 cmp "$OUT/mg-4096.json" "$OUT/mg-eq-4k.json"
check min-growth-1M 0 "$LJLEAK" diff -q --format json -o "$OUT/mg-1M.json" --min-growth 1M "$SEGMENTS"
expect min-growth-1M-is-1048576-bytes '"min_growth_bytes": 1048576,' "$OUT/mg-1M.json"
check min-growth-with-exponent-still-reads 0 "$LJLEAK" diff -q --min-growth 1e6 "$SEGMENTS"

# A missing value and a bad value: the same two messages, then the usage line,
# exit 2, from every subcommand. (summary has no option with a value; its
# unknown option reads like the others'.)
# usage_error NAME FIRST_LINE SUBCOMMAND ARGS...: exit 2, FIRST_LINE exactly, then the usage.
usage_error() {
  name=$1 line=$2 sub=$3
  shift 2
  check "$name" 2 "$LJLEAK" "$@"
  if [ "$(head -n 1 "$OUT/$name.err")" = "$line" ] &&
     sed -n 2p "$OUT/$name.err" | grep -q "^usage: ljleak $sub " && [ ! -s "$OUT/$name.out" ]; then
    passed=$((passed + 1)); echo "ok   $name says: $line"
  else
    failed=$((failed + 1)); echo "FAIL $name: stderr is"; cat "$OUT/$name.err"
  fi
}
usage_error diff-missing-value "ljleak diff: --min-growth needs a value" diff "$SEGMENTS" --min-growth
usage_error diff-bad-value \
  "ljleak diff: bad value '4x' for --min-growth (a byte count such as 4096, 64k, 8M or 1G)" \
  diff --min-growth 4x "$SEGMENTS"
usage_error diff-bad-value-equals \
  "ljleak diff: bad value '0' for --jobs (a whole number from 1 to 256)" diff --jobs=0 "$SEGMENTS"
usage_error diff-unknown-option "ljleak diff: unknown option '--bogus'" diff --bogus "$SEGMENTS"
usage_error report-missing-value "ljleak report: -o needs a value" report testdata/report/trend.json -o
usage_error report-bad-value \
  "ljleak report: bad value 'pdf' for --format (text, html, json, junit, markdown, pprof or folded)" \
  report --format pdf testdata/report/trend.json
usage_error report-unknown-option "ljleak report: unknown option '--bogus'" report --bogus testdata/report/trend.json
usage_error diff-min-boundaries-below-p-value \
  "ljleak diff: --min-boundaries 4 is below 5, the fewest boundaries at which a trend can reach --p-value 0.01; give 5 or more, or a larger --p-value" \
  diff --min-boundaries 4 "$SEGMENTS"
usage_error diff-p-value-zero "ljleak diff: --p-value must be above 0: no trend could ever reach 0" \
  diff --p-value 0 "$SEGMENTS"
usage_error diff-warmup-with-range \
  "ljleak diff: --warmup and --from/--to cannot be combined: a range names its boundaries" \
  diff --warmup 1 --from 1 --to 6 "$SEGMENTS"
printf '# ok\n@segments.lua:14 4x/boundary # sessions\n' >"$OUT/allow-bad.txt"
usage_error diff-allow-malformed \
  "ljleak diff: $OUT/allow-bad.txt: line 2: bad budget '4x/boundary' (bytes per boundary or per MB of work, such as 4k/boundary or 1k/MB)" \
  diff --allow "$OUT/allow-bad.txt" "$SEGMENTS"
printf '@segments.lua:14 4k/boundary\n' >"$OUT/allow-no-reason.txt"
usage_error diff-allow-without-a-reason \
  "ljleak diff: $OUT/allow-no-reason.txt: line 1: the rule needs a comment saying why the growth is allowed ('# why')" \
  diff --allow "$OUT/allow-no-reason.txt" "$SEGMENTS"
usage_error diff-allow-missing "ljleak diff: $OUT/no-such-allow.txt: No such file or directory" \
  diff --allow "$OUT/no-such-allow.txt" "$SEGMENTS"
usage_error report-allow-malformed \
  "ljleak report: $OUT/allow-bad.txt: line 2: bad budget '4x/boundary' (bytes per boundary or per MB of work, such as 4k/boundary or 1k/MB)" \
  report --allow "$OUT/allow-bad.txt" testdata/report/trend.json
usage_error report-warmup-on-a-range \
  "ljleak report: --warmup does not apply to a range result: a range names its boundaries" \
  report --warmup 1 testdata/report/range.json
usage_error run-missing-value "ljleak run: --sample needs a value" run --sample
usage_error run-bad-value \
  "ljleak run: bad value '4x' for --sample (a byte count such as 4096, 64k, 8M or 1G)" \
  run --sample 4x tests/lua/collector_jit.lua
usage_error run-bad-seconds "ljleak run: bad value 'soon' for --period (seconds, such as 60 or 2.5)" \
  run --period=soon tests/lua/collector_jit.lua
usage_error run-unknown-option "ljleak run: unknown option '--bogus'" run --bogus tests/lua/collector_jit.lua
# An empty -o named no directory: the run captured into one named for it, and said not where.
usage_error run-empty-dir "ljleak run: bad value '' for -o (a directory)" run -o '' tests/lua/collector_jit.lua
usage_error run-bad-stack-depth \
  "ljleak run: bad value 'deep' for --stack-depth (a whole number from 0 to 256)" \
  run --stack-depth deep tests/lua/collector_jit.lua
usage_error busted-bad-stack-depth \
  "ljleak busted: bad value 'deep' for --stack-depth (a whole number from 0 to 256)" \
  busted --stack-depth deep
# --snapshots=N as every option with a value takes it (it was an unknown option).
usage_error run-snapshots-equals \
  "ljleak run: bad value 'x' for --snapshots (none, or a count from 0 to 64 + 1)" \
  run --snapshots=x tests/lua/collector_jit.lua
usage_error summary-unknown-option "ljleak summary: unknown option '--bogus'" summary --bogus "$SEGMENTS"/seg-0001.bin
usage_error summary-flag-with-value "ljleak summary: unknown option '--strict=1'" summary --strict=1 "$SEGMENTS"/seg-0001.bin

# Boundary lines (a full GC cycle each) are the boundaries: Tarantool's
# segments listed with their event counts, each cut in its middle and at its
# end; the first cycle forced at the start.
write_boundary_index() {  # DIR MIDDLE(1/0): the index, with or without the middle boundaries
  n=0 seq=0
  {
    printf 'ljleak-index\tversion=1\ncapture\tpid=7\tstart=1000.000\tsample=0\n'
    for events in 6645 5992 6074 6153 6233 6313; do
      n=$((n + 1))
      cp "$SEGMENTS/seg-000$n.bin" "$1/"
      if [ "$2" = 1 ]; then
        seq=$((seq + 1)) cause=gc
        [ $n = 1 ] && cause=start
        printf 'boundary\tseq=%d\tsegment=%d\tevents=%d\ttime=%d.500\tgc_cycles=%d\theap_bytes=900\tallocated=%d\tcause=%s\n' \
          $seq $n $((events / 2)) $((1000 + n)) $seq $((seq * 1000)) $cause
      fi
      seq=$((seq + 1))
      printf 'boundary\tseq=%d\tsegment=%d\tevents=%d\ttime=%d.900\tgc_cycles=%d\theap_bytes=900\tallocated=%d\tcause=gc\n' \
        $seq $n $events $((1000 + n)) $seq $((seq * 1000))
      printf 'segment\tseq=%d\tfile=seg-000%d.bin\tevents=%d\tcomplete=0\n' $n $n $events
    done
  } > "$1/index"
}
mkdir -p "$OUT/boundaries" "$OUT/boundary-ends" "$OUT/boundary-bad"
write_boundary_index "$OUT/boundaries" 1
check boundaries 1 "$LJLEAK" diff -q --format json -o "$OUT/boundaries.json" "$OUT/boundaries"
expect boundaries-are-the-lines '"boundary_count": 12,' "$OUT/boundaries.json"
expect boundaries-work-done-from-the-lines \
  '"boundary_allocated": [1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000, 11000, 12000]' \
  "$OUT/boundaries.json"
expect boundaries-forced-from-the-causes \
  '"boundary_forced": [true, false, false, false, false, false, false, false, false, false, false, false]' \
  "$OUT/boundaries.json"
expect boundaries-times-from-the-lines '"boundary_times": [1001.5, 1001.9, 1002.5,' "$OUT/boundaries.json"
check boundaries-j2 1 "$LJLEAK" diff -q -j 2 --format json -o "$OUT/boundaries-j2.json" "$OUT/boundaries"
if cmp -s "$OUT/boundaries.json" "$OUT/boundaries-j2.json" ||
   [ "$(grep -v '"jobs"' "$OUT/boundaries.json")" = "$(grep -v '"jobs"' "$OUT/boundaries-j2.json")" ]; then
  passed=$((passed + 1)); echo "ok   boundaries: -j 2 writes the same result as -j 1"
else
  failed=$((failed + 1)); echo "FAIL boundaries: -j 2 result differs from -j 1"
fi
# Boundary lines only at the segments' ends cut nothing: the series of the
# segments read without an index.
write_boundary_index "$OUT/boundary-ends" 0
check boundary-ends 1 "$LJLEAK" diff -q --format json -o "$OUT/boundary-ends.json" "$OUT/boundary-ends"
series() { grep -E '"(name|series|live_blocks|alloc_bytes|free_bytes)"' "$1"; }
if [ "$(series "$OUT/boundary-ends.json")" = "$(series "$OUT/trend.json")" ]; then
  passed=$((passed + 1)); echo "ok   boundary lines at the segment ends give the series of segment ends"
else
  failed=$((failed + 1)); echo "FAIL boundary lines at the segment ends: the series differ"
fi
# A boundary line past its segment's events: exit 3, the index and the line's byte offset named.
write_boundary_index "$OUT/boundary-bad" 1
sed -i '3s/events=3322/events=7000/' "$OUT/boundary-bad/index"
offset=$(head -n 2 "$OUT/boundary-bad/index" | wc -c)
check boundary-past-its-segment 3 "$LJLEAK" diff -q "$OUT/boundary-bad"
expect boundary-past-its-segment-names-the-line \
  "$OUT/boundary-bad/index: byte $offset: boundary line: event 7000 is past the end of segment 1 (6645 events)" \
  "$OUT/boundary-past-its-segment.err"

# The output: an unwritable -o exits 4 naming the file; so does a full device
# (the write fails only when the buffer is flushed).
check output-unwritable 4 "$LJLEAK" diff -q -o "$OUT/no/such/dir/report.txt" "$SEGMENTS"
expect output-unwritable-names-the-file "ljleak diff: error: $OUT/no/such/dir/report.txt: No such file or directory" "$OUT/output-unwritable.err"
if [ -w /dev/full ]; then
  check output-full-device 4 "$LJLEAK" diff -q -o /dev/full "$SEGMENTS"
  expect output-full-device-names-it "ljleak diff: error: /dev/full: cannot write the report: No space left on device" "$OUT/output-full-device.err"
  check stdout-full-device 4 sh -c "'$LJLEAK' diff -q '$SEGMENTS' >/dev/full"
  expect stdout-full-device-names-stdout "ljleak diff: error: stdout: cannot write the report: No space left on device" "$OUT/stdout-full-device.err"
  check summary-stdout-full-device 4 sh -c "'$LJLEAK' summary '$SEGMENTS/seg-0001.bin' >/dev/full"
  expect summary-stdout-full-device-names-stdout "ljleak summary: error: stdout: No space left on device" "$OUT/summary-stdout-full-device.err"
else
  echo "skip output-full-device: no /dev/full here"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
