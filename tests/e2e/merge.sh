#!/bin/sh
# tests/e2e/merge.sh: labels from each way to start a capture (ljleak run
# --label, LJLEAK_LABELS, start{ labels = ... }, ci/capture --label) through
# ljleak diff into ljleak merge's report; merge's exit codes, its inputs
# (results, merges, directories), merging merges, and bad input named.
E2E_NAME=merge
. tests/e2e/lib.sh
export LJLEAK
export LJLEAK_RUN_DIR=$tmp/run
worker=""
cleanup() {
  [ -z "$worker" ] || kill "$worker" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/results"
merged() { "$LJLEAK" merge "$@" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"; }
rc() { cat "$tmp/rc"; }

# A leak, and the same program without it, for labelled captures.
cat >"$tmp/app.lua" <<'EOF'
local leak = arg[1] == "leak"
local kept, scratch = {}, nil
for i = 1, 60000 do
  scratch = { i, tostring(i) }
  if leak then kept[#kept + 1] = { i } end
end
EOF

# 1. ljleak run --label, and LJLEAK_LABELS.
"$LJLEAK" run -o "$tmp/run-leak" --every 256k --label release=1.4.2 --label role=api \
  "$tmp/app.lua" leak >/dev/null 2>&1
check "run_label_captures" test $? = 0
check "run_label_is_in_the_index" grep -q "	labels=release=1.4.2,role=api	" "$tmp/run-leak/index"
LJLEAK_LABELS=release=1.4.1,role=api "$LJLEAK" run -o "$tmp/run-steady" --every 256k \
  "$tmp/app.lua" steady >/dev/null 2>&1
check "ljleak_labels_is_in_the_index" grep -q "	labels=release=1.4.1,role=api	" "$tmp/run-steady/index"
"$LJLEAK" run -o "$tmp/run-bad" --label 'release=1.4
2' "$tmp/app.lua" >/dev/null 2>"$tmp/bad.err"
check "run_refuses_a_control_character_with_2" test $? = 2
check "run_says_why" grep -q "the value has a control character" "$tmp/bad.err"
"$LJLEAK" run -o "$tmp/run-bad" --label 'rel=ease=1' --label 'a b=1' "$tmp/app.lua" >/dev/null 2>"$tmp/bad.err"
check "run_refuses_a_bad_key" grep -q "label 2: the key has a character other than" "$tmp/bad.err"
check "no_capture_after_a_refused_label" test ! -e "$tmp/run-bad"

# 2. start{ labels = ... } in the Lua module, a table and a string.
cat >"$tmp/start.lua" <<EOF
local collector = require "ljleak.collector"
local dir = assert(collector.start { dir = arg[1], every = "256k", edge_gc = true,
                                     labels = { release = "1.4.2", role = "worker" } })
local kept = {}
for i = 1, 60000 do kept[#kept + 1] = { i } end
assert(collector.stop())
print(pcall(collector.start, { dir = arg[1] .. "-bad", labels = { ["a,b"] = "x" } }))
local ok, err = collector.start { dir = arg[1] .. "-bad", labels = { release = "1.4\027[2J" } }
print(ok, err)
ok, err = collector.start { dir = arg[1] .. "-bad", labels = "release=1,release=2" }
print(ok, err)
EOF
LUA_CPATH="$BUILD/lua/?.so;;" LJLEAK_CONTROL=0 luajit "$tmp/start.lua" "$tmp/start-leak" >"$tmp/start.out" 2>&1
check "start_labels_captures" test $? = 0
check "start_labels_are_in_the_index_sorted" grep -q "	labels=release=1.4.2,role=worker	" "$tmp/start-leak/index"
check "start_refuses_a_bad_key" grep -q "^false	.*labels: the key 'a,b' has a ',' or a '='" "$tmp/start.out"
check "start_refuses_a_control_character" grep -q "^nil	labels: label 1: the value has a control character" "$tmp/start.out"
check "start_refuses_a_key_twice" grep -q "^nil	labels: label 2: the key 'release' is given twice" "$tmp/start.out"

# 3. ci/capture --label, against a worker that loaded the module.
root=$tmp/root
mkdir -p "$root" "$LJLEAK_RUN_DIR" && chmod 700 "$LJLEAK_RUN_DIR"
LUA_CPATH="$BUILD/lua/?.so;;" LJLEAK_ROOT=$root LJLEAK_PERIOD=0.25 LJLEAK_FORCE_GC=1 \
  luajit -l ljleak.collector testdata/apps/worker.lua 120 >"$tmp/worker.log" 2>&1 &
worker=$!
n=0; until [ -f "$LJLEAK_RUN_DIR/$worker" ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
ci/capture --pid "$worker" --duration 2 --quiet --label release=1.4.2 --label region=eu-west \
  >/dev/null 2>"$tmp/capture.err"
code=$?
check "ci_capture_with_labels_captures" test "$code" = 1 -o "$code" = 5 -o "$code" = 0
capdir=$(ls -d "$root"/ljleak-"$worker"-* 2>/dev/null | head -n 1)
check "ci_capture_labels_are_in_the_index" grep -q "	labels=release=1.4.2,region=eu-west	" "$capdir/index"
check "ci_capture_labels_are_in_result_json" grep -q '"region": "eu-west"' "$capdir/result.json"
ci/capture --pid "$worker" --duration 1 --quiet --label 'release=a b\c' >/dev/null 2>"$tmp/capture-bad.err"
check "ci_capture_a_label_the_collector_refuses_exits_3" test $? = 3
check "ci_capture_gives_the_collectors_reason" grep -q "bad value 'release=a b.c' for labels in the request" "$tmp/capture-bad.err"
ci/capture --pid "$worker" --duration 1 --label 'release=1,2' >/dev/null 2>&1
check "ci_capture_a_comma_is_a_usage_error" test $? = 2
kill "$worker"; wait "$worker" 2>/dev/null; worker=""

# The results, and the merge of all four.
"$LJLEAK" diff --format json -o "$tmp/results/run-leak.json" "$tmp/run-leak" >/dev/null 2>&1
"$LJLEAK" diff --format json -o "$tmp/results/run-steady.json" "$tmp/run-steady" >/dev/null 2>&1
"$LJLEAK" diff --format json -o "$tmp/results/start-leak.json" "$tmp/start-leak" >/dev/null 2>&1
cp "$capdir/result.json" "$tmp/results/capture.json"
check "results_carry_labels" grep -q '"role": "api"' "$tmp/results/run-leak.json"
check "results_carry_the_program" grep -q '"exe": ' "$tmp/results/run-leak.json"
merged "$tmp/results"
check "a_leak_in_a_capture_exits_1" test "$(rc)" = 1
check "text_says_growing_by_release" grep -q "growing on [1-9] of 3 captures labelled release=1.4.2, on 0 of 1 of release=1.4.1" "$tmp/out"
check "text_lists_the_labels" grep -q "release=1.4.1 (1), release=1.4.2 (3)" "$tmp/out"
check "text_lists_each_capture_with_its_labels" grep -q "release=1.4.2 region=eu-west" "$tmp/out"
check "text_names_each_result" grep -q "results/start-leak.json" "$tmp/out"
merged --format html -o "$tmp/fleet.html" "$tmp/results"
check "html_says_growing_by_release" grep -q "captures labelled release=1.4.2" "$tmp/fleet.html"
merged --format json -o "$tmp/all.json" "$tmp/results"
check "json_has_four_captures" test "$(grep -c '"source": ' "$tmp/all.json")" = 4
merged --format junit -o "$tmp/junit.xml" "$tmp/results"
check "junit_has_a_failure" grep -q "<failure message=\"growing in" "$tmp/junit.xml"
merged --format markdown "$tmp/results"
check "markdown_has_the_table" grep -q "^| growing | undecided |" "$tmp/out"

# Merging merges gives the merge of everything at once, byte for byte.
"$LJLEAK" merge --format json -o "$tmp/part1.json" "$tmp/results/run-leak.json" "$tmp/results/capture.json" >/dev/null
"$LJLEAK" merge --format json -o "$tmp/part2.json" "$tmp/results/start-leak.json" >/dev/null
"$LJLEAK" merge --format json -o "$tmp/tree.json" "$tmp/part1.json" "$tmp/part2.json" "$tmp/results/run-steady.json" >/dev/null
check "a_tree_of_merges_is_the_merge_at_once" cmp -s "$tmp/tree.json" "$tmp/all.json"
"$LJLEAK" merge -j 3 --format json -o "$tmp/threads.json" "$tmp/results" >/dev/null
check "reading_on_three_threads_gives_the_same_merge" cmp -s "$tmp/threads.json" "$tmp/all.json"
# --min-captures: no site grows in 5 captures; the steady capture passes.
merged --min-captures 5 "$tmp/results"
check "min_captures_above_every_count_is_not_flagged" test "$(rc)" = 0 -o "$(rc)" = 5
merged "$tmp/results/run-steady.json"
check "a_steady_capture_alone_passes" test "$(rc)" = 0
check "undecided_inconclusive_result_exits_5" sh -c "'$LJLEAK' merge testdata/report/undecided.json >/dev/null; test \$? = 5"

# Bad input: each an error naming the file, exit 3.
head -c 300 "$tmp/results/run-leak.json" >"$tmp/cut.json"
merged "$tmp/results" "$tmp/cut.json"
check "a_truncated_result_exits_3" test "$(rc)" = 3
check "a_truncated_result_is_named" grep -q "^ljleak merge: error: $tmp/cut.json: byte 300: " "$tmp/err"
sed 's/"ljleak_result": 1/"ljleak_result": 7/' "$tmp/results/run-leak.json" >"$tmp/future.json"
merged "$tmp/future.json"
check "an_unknown_version_is_named" grep -q "$tmp/future.json: byte 21: ljleak_result 7 is not a version" "$tmp/err"
merged "$tmp/results/run-leak.json" testdata/report/base.json
check "a_base_result_among_trend_results_exits_3" test "$(rc)" = 3
check "a_base_result_among_trend_results_is_named" grep -q "testdata/report/base.json: a base result, but $tmp/results/run-leak.json is a trend result" "$tmp/err"
merged "$tmp/results" "$tmp/all.json"
check "a_capture_twice_is_named" grep -q "are results of the same capture" "$tmp/err"
mkdir -p "$tmp/empty"
merged "$tmp/empty"
check "a_directory_without_results_is_named" grep -q "$tmp/empty: no results" "$tmp/err"
merged
check "no_input_is_a_usage_error" test "$(rc)" = 2
merged --min-captures 0 "$tmp/results"
check "min_captures_0_is_a_usage_error" test "$(rc)" = 2
finish
