#!/bin/sh
# tests/e2e/ci-compare-builds.sh: ci/compare-builds end to end on the two
# versions of testdata/apps/: v1 against v2 (which adds one leak, app.lua:41)
# exits 1 with exactly that site failing in the JUnit report, as checkouts
# and as shell commands with a workload; v1 against v1 exits 0; an allowed
# leak passes, an undecided one is inconclusive (5); usage and capture
# errors exit 2 and 3.
E2E_NAME=compare
. tests/e2e/lib.sh
export LJLEAK
junit_failures() {
  awk '/<testcase name="/ { name = $0; sub(/.*<testcase name="/, "", name); sub(/".*/, "", name) }
       /<failure / { print name }' "$1"
}
show_on_failure() { [ "$1" = "$2" ] || { echo "--- stdout"; cat "$3"; echo "--- stderr"; cat "$4"; }; }

check "apps_v2_marks_its_leak_at_line_41" \
  sh -c 'grep -n -- "-- the leak" testdata/apps/v2/app.lua | grep -q "^41:"'

# Usage errors.
ci/compare-builds >/dev/null 2>&1
check "no_arguments_is_a_usage_error" test $? = 2
ci/compare-builds --base-cmd "luajit a.lua" -o "$tmp/x" >/dev/null 2>&1
check "missing_candidate_is_a_usage_error" test $? = 2
ci/compare-builds --base-dir testdata/apps/v1 --candidate-dir testdata/apps/v2 --script nope.lua \
  -o "$tmp/x" >/dev/null 2>&1
check "missing_script_is_a_usage_error" test $? = 2
ci/compare-builds --help | grep -q '^usage: compare-builds'
check "help_prints_usage" test $? = 0
ci/compare-builds --base-dir testdata/apps/v1 --candidate-dir testdata/apps/v2 --script app.lua \
  --warmup two -o "$tmp/x" >/dev/null 2>&1
check "a_bad_warmup_is_a_usage_error" test $? = 2
ci/compare-builds --base-dir testdata/apps/v1 --candidate-dir testdata/apps/v2 --script app.lua \
  --allow "$tmp/no-such-allow.txt" -o "$tmp/x" >/dev/null 2>&1
check "a_missing_allow_file_is_a_usage_error" test $? = 2
printf '# accepted growth\n@app.lua:41 4x/boundary # a typo in the budget\n' >"$tmp/bad-allow.txt"
ci/compare-builds --base-dir testdata/apps/v1 --candidate-dir testdata/apps/v2 --script app.lua \
  --allow "$tmp/bad-allow.txt" -o "$tmp/bad-allow" >/dev/null 2>"$tmp/bad-allow.err"
check "a_malformed_allow_file_is_a_usage_error" test $? = 2
check "a_malformed_allow_file_is_named_with_its_line" \
  grep -qx "compare-builds: $tmp/bad-allow.txt: line 2: bad budget '4x/boundary' (bytes per boundary or per MB of work, such as 4k/boundary or 1k/MB)" "$tmp/bad-allow.err"
check "a_malformed_allow_file_fails_before_any_capture" test ! -e "$tmp/bad-allow/base"

# v1 (steady) against v2 (one new leak), as two checkouts.
ci/compare-builds --base-dir testdata/apps/v1 --candidate-dir testdata/apps/v2 --script app.lua \
  --period 0.5 -o "$tmp/v1v2" -- 6 >"$tmp/v1v2.out" 2>"$tmp/v1v2.err"
status=$?
check "v1_against_v2_exits_1" test "$status" = 1
show_on_failure "$status" 1 "$tmp/v1v2.out" "$tmp/v1v2.err"
for f in junit.xml report.md report.html report.txt result.json base/index candidate/index; do
  check "v1_against_v2_writes_$f" test -s "$tmp/v1v2/$f"
done
junit_failures "$tmp/v1v2/junit.xml" > "$tmp/v1v2.flagged"
echo "flagged:"; sed 's/^/  /' "$tmp/v1v2.flagged"
check "v1_against_v2_junit_has_exactly_one_failure" test "$(wc -l < "$tmp/v1v2.flagged")" = 1
check "v1_against_v2_junit_failure_names_the_leak" grep -qx '@app.lua:41' "$tmp/v1v2.flagged"
check "v1_against_v2_junit_failure_is_new" grep -q '<failure type="new"' "$tmp/v1v2/junit.xml"
check "v1_against_v2_prints_the_text_report" grep -q '@app.lua:41' "$tmp/v1v2.out"
check "v1_against_v2_markdown_names_the_leak" grep -q 'app.lua:41' "$tmp/v1v2/report.md"
check "v1_against_v2_html_names_the_leak" grep -q 'app.lua:41' "$tmp/v1v2/report.html"
check "v1_against_v2_names_no_moved_leak" sh -c "! grep -q 'in the base at' '$tmp/v1v2/report.txt'"

# v2 against v2 with two lines added above its leak (now app.lua:43): the site is new by its
# name, and the base's @app.lua:41, which the candidate lacks, was in no report; the report
# now names it beside the new one (the same leak, moved?).
mkdir -p "$tmp/v2moved"
awk 'NR == 40 { print "  -- two lines added"; print "  -- above the leak" } { print }' testdata/apps/v2/app.lua \
  >"$tmp/v2moved/app.lua"
ci/compare-builds --base-dir testdata/apps/v2 --candidate-dir "$tmp/v2moved" --script app.lua \
  --period 0.5 -o "$tmp/moved" -- 6 >"$tmp/moved.out" 2>"$tmp/moved.err"
status=$?
check "a_moved_leak_is_new_by_its_name" test "$status" = 1
show_on_failure "$status" 1 "$tmp/moved.out" "$tmp/moved.err"
check "a_moved_leak_names_the_base_line" grep -q '^  @app.lua:43  in the base at @app.lua:41$' "$tmp/moved/report.txt"
check "a_moved_leak_is_in_the_json" grep -q '"base_moved": "@app.lua:41"' "$tmp/moved/result.json"
check "nor_is_it_said_gone" sh -c "! grep -q 'absent from the candidate' '$tmp/moved/report.txt'"

# v2 against v1: the leak fixed. Nothing new, and the report says what no longer grows.
ci/compare-builds --base-dir testdata/apps/v2 --candidate-dir testdata/apps/v1 --script app.lua \
  --period 0.5 -o "$tmp/fixed" -- 6 >"$tmp/fixed.out" 2>"$tmp/fixed.err"
status=$?
check "a_fixed_leak_exits_0" test "$status" = 0
show_on_failure "$status" 0 "$tmp/fixed.out" "$tmp/fixed.err"
check "the_text_says_it_no_longer_grows" grep -q '^  @app.lua:41: steady in the candidate; +.* per boundary in the base$' "$tmp/fixed/report.txt"
check "so_does_the_markdown" grep -q '^\* `@app.lua:41`: steady in the candidate' "$tmp/fixed/report.md"

# The same leak, allowed by an allow-list rule, with a warm-up: a pass that
# says why; both options reach ljleak diff and the saved result.
printf '@app.lua:41 1G/boundary # accepted in this test: the leak is known and bounded\n' >"$tmp/allow.txt"
ci/compare-builds --base-dir testdata/apps/v1 --candidate-dir testdata/apps/v2 --script app.lua \
  --period 0.5 --warmup 1 --allow "$tmp/allow.txt" -o "$tmp/allowed" -- 6 \
  >"$tmp/allowed.out" 2>"$tmp/allowed.err"
status=$?
check "an_allowed_leak_exits_0" test "$status" = 0
show_on_failure "$status" 0 "$tmp/allowed.out" "$tmp/allowed.err"
check "the_warmup_reaches_the_result" grep -q '"warmup": 1$' "$tmp/allowed/result.json"
check "the_allowed_site_is_in_the_result" grep -q '"comment": "accepted in this test: the leak is known and bounded",' "$tmp/allowed/result.json"
check "the_allowed_site_passes_in_junit_with_its_reason" \
  grep -q '<system-out>allowed: .*accepted in this test: the leak is known and bounded</system-out>' "$tmp/allowed/junit.xml"

# The same leak where a trend needs more boundaries than the captures have:
# undecided, so the comparison is inconclusive (5), not a pass.
ci/compare-builds --base-dir testdata/apps/v1 --candidate-dir testdata/apps/v2 --script app.lua \
  --period 0.5 --diff-option=--min-boundaries=100000 -o "$tmp/undecided" -- 6 \
  >"$tmp/undecided.out" 2>"$tmp/undecided.err"
status=$?
check "an_undecided_comparison_exits_5" test "$status" = 5
show_on_failure "$status" 5 "$tmp/undecided.out" "$tmp/undecided.err"
check "an_undecided_comparison_prints_inconclusive_first" sh -c "head -n 1 '$tmp/undecided.out' | grep -q '^ljleak: INCONCLUSIVE: '"
check "an_undecided_comparison_writes_every_report" \
  sh -c "test -s '$tmp/undecided/report.md' && test -s '$tmp/undecided/report.html' && test -s '$tmp/undecided/junit.xml'"
check "an_undecided_comparison_has_junit_errors_not_failures" \
  sh -c "grep -q '<error type=\"undecided\"' '$tmp/undecided/junit.xml' && ! grep -q '<failure' '$tmp/undecided/junit.xml'"
check "an_undecided_comparison_says_so" grep -q '^compare-builds: inconclusive: ' "$tmp/undecided.err"
# ... with the reason the reports give (it said "a site rose" whatever the reason was: a
# sampling floor, a short base)
reason=$(sed -n 's/^  "outcome_reason": "\(.*\)",$/\1/p' "$tmp/undecided/result.json")
check "an_undecided_comparison_says_why" \
  sh -c "test -n \"\$1\" && grep -qF \"compare-builds: inconclusive: \$1 (see report.txt)\" '$tmp/undecided.err'" - "$reason"

# v1 against v1, as two luajit command lines that would run for a minute,
# captured for 6 s each (--duration): nothing new.
ci/compare-builds --base-cmd "luajit testdata/apps/v1/app.lua 60" \
  --candidate-cmd "luajit testdata/apps/v1/app.lua 60" --period 0.5 --duration 6 \
  -o "$tmp/v1v1" >"$tmp/v1v1.out" 2>"$tmp/v1v1.err"
status=$?
check "v1_against_v1_exits_0" test "$status" = 0
show_on_failure "$status" 0 "$tmp/v1v1.out" "$tmp/v1v1.err"
junit_failures "$tmp/v1v1/junit.xml" > "$tmp/v1v1.flagged" 2>/dev/null
check "v1_against_v1_junit_has_no_failure" sh -c "test -s '$tmp/v1v1/junit.xml' && test ! -s '$tmp/v1v1.flagged'"
check "v1_against_v1_junit_lists_sites" grep -q '<testcase name="@testdata/apps/v1/app.lua:' "$tmp/v1v1/junit.xml"

check "v1_against_v1_stops_at_the_duration" \
  test "$("$LJLEAK" info --get stop_reason "$tmp/v1v1/base" 2>/dev/null)" = duration

# Both builds with the same leak (v2 against v2): it grows in both alike,
# which is no new or worse leak (the aligned comparison called a leak that
# grew 3% faster in the candidate worse, and exited 1).
ci/compare-builds --base-dir testdata/apps/v2 --candidate-dir testdata/apps/v2 --script app.lua \
  -o "$tmp/v2v2" -- 4 >"$tmp/v2v2.out" 2>"$tmp/v2v2.err"
status=$?
check "v2_against_v2_exits_0" test "$status" = 0
show_on_failure "$status" 0 "$tmp/v2v2.out" "$tmp/v2v2.err"
check "v2_against_v2_junit_has_no_failure" test "$(grep -c '<failure' "$tmp/v2v2/junit.xml")" = 0
check "v2_against_v2_says_growing_as_in_the_base" grep -q '^growing in the candidate as in the base' "$tmp/v2v2.out"

# Shell commands (no luajit command line): the collector comes in through
# LUA_INIT; a workload runs beside each build and its end stops the build.
ci/compare-builds --base-cmd "cd testdata/apps/v1 && exec luajit app.lua 60" \
  --candidate-cmd "cd testdata/apps/v2 && exec luajit app.lua 60" --period 0.5 \
  --workload 'sleep 6; kill -0 "$LJLEAK_APP_PID" && echo "workload for $LJLEAK_BUILD"' \
  -o "$tmp/hosted" >"$tmp/hosted.out" 2>"$tmp/hosted.err"
status=$?
check "shell_commands_v1_against_v2_exit_1" test "$status" = 1
show_on_failure "$status" 1 "$tmp/hosted.out" "$tmp/hosted.err"
junit_failures "$tmp/hosted/junit.xml" > "$tmp/hosted.flagged" 2>/dev/null
check "shell_commands_junit_fails_only_the_leak" sh -c "test \"\$(cat '$tmp/hosted.flagged')\" = '@app.lua:41'"
check "shell_commands_workload_saw_its_build" \
  sh -c "grep -qx 'workload for base' '$tmp/hosted/base.log.workload' &&
         grep -qx 'workload for candidate' '$tmp/hosted/candidate.log.workload'"

# A build that cannot run is a capture failure.
ci/compare-builds --base-cmd "luajit testdata/apps/v1/app.lua 1" \
  --candidate-cmd "luajit testdata/apps/missing.lua" -o "$tmp/broken" >/dev/null 2>"$tmp/broken.err"
check "a_failing_build_exits_3" test $? = 3
check "a_failing_build_is_explained" grep -q 'candidate: the build exited with status' "$tmp/broken.err"

# A failed run into the OUTDIR of an earlier, passing one leaves none of
# that run's reports behind (a CI step uploads junit.xml whatever the exit).
mkdir -p "$tmp/rerun"
for f in junit.xml report.md report.html report.txt result.json; do cp "$tmp/v1v1/$f" "$tmp/rerun/$f"; done
ci/compare-builds --base-cmd "luajit testdata/apps/v1/app.lua 1" \
  --candidate-cmd "luajit testdata/apps/missing.lua" -o "$tmp/rerun" >/dev/null 2>"$tmp/rerun.err"
check "a_failed_run_over_an_earlier_one_exits_3" test $? = 3
for f in junit.xml report.md report.html report.txt result.json; do
  check "a_failed_run_over_an_earlier_one_leaves_no_old_$f" test ! -e "$tmp/rerun/$f"
done

# A second run into the OUTDIR of one still running is refused: it replaced
# the first's captures, and the steady v1 against v1 exited 1.
ci/compare-builds --base-dir testdata/apps/v1 --candidate-dir testdata/apps/v1 --script app.lua \
  -o "$tmp/busy" -- 3 >/dev/null 2>"$tmp/busy-1.err" &
busy_pid=$!
n=0
until [ -s "$tmp/busy/base/index" ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
ci/compare-builds --base-dir testdata/apps/v1 --candidate-dir testdata/apps/v2 --script app.lua \
  -o "$tmp/busy" -- 3 >/dev/null 2>"$tmp/busy-2.err"
check "a_second_run_into_a_busy_outdir_exits_3" test $? = 3
check "a_second_run_into_a_busy_outdir_is_explained" \
  grep -q "^compare-builds: another compare-builds is running into $tmp/busy" "$tmp/busy-2.err"
wait "$busy_pid"
check "the_first_run_into_a_busy_outdir_is_undisturbed" test $? = 0

# SIGTERM to the script while a build runs: the build (its own session) is
# ended too, and the script ends by the signal with no report.
ci/compare-builds --base-dir testdata/apps/v1 --candidate-dir testdata/apps/v1 --script app.lua \
  -o "$tmp/term" -- 30 >/dev/null 2>"$tmp/term.err" &
term_pid=$!
n=0
until [ -s "$tmp/term/base/index" ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
kill -TERM "$term_pid"
wait "$term_pid"
check "sigterm_ends_the_script_by_the_signal" test $? = 143
sleep 0.5
check "sigterm_leaves_no_build_running" test -z "$(pgrep -f "$tmp/term/base")"
check "sigterm_writes_no_report" test ! -e "$tmp/term/junit.xml"
check "sigterm_is_explained" grep -q '^compare-builds: stopped by SIGTERM' "$tmp/term.err"
for p in $(pgrep -f "$tmp/term/base"); do kill -KILL "$p" 2>/dev/null; done

# Two-second runs with the default work schedule (--every 256k, forced
# boundaries only): v1 against v2 names the leak, and v1 against itself
# passes, every time (RUNS_V1_V1 comparisons, 20 by default).
ci/compare-builds --base-dir testdata/apps/v1 --candidate-dir testdata/apps/v2 --script app.lua \
  -o "$tmp/short" -- 2 >"$tmp/short.out" 2>"$tmp/short.err"
check "two_second_runs_v1_against_v2_exit_1" test $? = 1
junit_failures "$tmp/short/junit.xml" >"$tmp/short.flagged"
check "two_second_runs_v1_against_v2_fail_only_the_leak" test "$(cat "$tmp/short.flagged")" = '@app.lua:41'
passes=0
runs=${RUNS_V1_V1:-20}
for i in $(seq 1 "$runs"); do
  ci/compare-builds --base-dir testdata/apps/v1 --candidate-dir testdata/apps/v1 --script app.lua \
    -o "$tmp/same-$i" -- 2 >"$tmp/same.out" 2>"$tmp/same.err"
  status=$?
  [ "$status" = 0 ] && passes=$((passes + 1))
  [ "$status" = 0 ] || { echo "  v1 against v1, run $i: exit $status"; cat "$tmp/same.out" | head -n 20; }
  rm -rf "$tmp/same-$i"
done
check "two_second_runs_v1_against_v1_exit_0_${runs}_times_of_${runs}" test "$passes" = "$runs"

finish
