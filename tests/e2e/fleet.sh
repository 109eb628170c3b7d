#!/bin/sh
# tests/e2e/fleet.sh: ci/fleet over local captures under GNU parallel: a
# capture that fails is named and the rest merged; the same command again
# resumes (only the failed capture is diffed again); the reports and labels;
# LOGIN:DIR captures over a fake ssh (the same DIR on two hosts, a plain path
# beside them); odd paths; one capture by several paths; other diff options
# into the same OUT; no stale report after a failed merge.
E2E_NAME=fleet
. tests/e2e/lib.sh
export LJLEAK
cd "$tmp" || exit 1
repo=$OLDPWD
LJLEAK=$repo/$LJLEAK
cat >app.lua <<'EOS'
local leak = arg[1] == "leak"
local kept = {}
for i = 1, 60000 do local s = { i, tostring(i) }; if leak then kept[#kept + 1] = { i } end end
EOS
mkdir -p caps
capture() { "$LJLEAK" run -o "$1" --every 256k --label "release=$2" app.lua "$3" >/dev/null 2>&1; }
capture caps/web-1 1.4.2 leak
capture caps/web-2 1.4.2 leak
capture caps/web-3 1.4.1 steady
mkdir -p caps/broken
printf 'not an index\n' >caps/broken/index

"$repo/ci/fleet" -j 2 --quiet -o out caps/web-1 caps/web-2 caps/broken caps/web-3 >stdout 2>stderr
code=$?
check "a_leak_on_the_fleet_exits_1" test "$code" = 1
check "the_failed_capture_is_named" grep -q "^fleet: caps/broken: not merged: ljleak diff: error: caps/broken/index: byte 0" stderr
check "the_failed_capture_is_listed" grep -q "^caps/broken	ljleak diff: error" out/failed.txt
check "the_rest_are_merged" grep -q "^fleet: 3 captures merged, 1 failed" stderr
check "fleet_json_has_three_captures" test "$(grep -c '"source": ' out/fleet.json)" = 3
check "fleet_txt_says_growing_by_release" grep -q "growing on 2 of 2 captures labelled release=1.4.2, on 0 of 1 of release=1.4.1" out/fleet.txt
check "fleet_html_says_growing_by_release" grep -q "growing on 2 of 2 captures labelled release=1.4.2" out/fleet.html
check "one_result_per_good_capture" test "$(ls out/results | tr '\n' ' ')" = "00001-web-1.json 00002-web-2.json 00004-web-3.json "
check "each_capture_diffed_once" test "$(tail -n +2 out/map.joblog | wc -l)" = 4
cp out/results/00001-web-1.json first-web-1.json

# The broken capture is made again; the same command resumes: only it is
# diffed again, the three results are kept as they were.
rm -rf caps/broken
capture caps/broken 1.4.1 steady
"$repo/ci/fleet" -j 2 --quiet -o out caps/web-1 caps/web-2 caps/broken caps/web-3 >stdout 2>stderr
code=$?
check "the_resumed_run_exits_1" test "$code" = 1
check "the_resumed_run_merges_four" grep -q "^fleet: 4 captures merged, 0 failed" stderr
check "only_the_failed_capture_ran_again" test "$(tail -n +2 out/map.joblog | cut -f1 | sort | uniq -c | awk '$1 > 1 { print $2 }')" = 3
check "a_capture_already_diffed_keeps_its_result" cmp -s first-web-1.json out/results/00001-web-1.json
check "no_failure_is_listed" test ! -s out/failed.txt
check "fleet_json_has_four_captures" test "$(grep -c '"source": ' out/fleet.json)" = 4
check "fleet_txt_counts_the_new_capture" grep -q "on 0 of 2 of release=1.4.1" out/fleet.txt

# -j above the merge's 64 threads is for the diffs: the merge reads 64 at once (it was given
# -j 100, refused it, and the fleet failed with exit 2 after every diff had run).
"$repo/ci/fleet" -j 100 --quiet -o out-j100 caps/web-1 caps/web-3 >/dev/null 2>stderr
check "jobs_above_64_still_merge" test $? = 1
check "jobs_above_64_merge_both" grep -q "^fleet: 2 captures merged, 0 failed" stderr

# Another list of captures into the same directory is refused, not mixed.
"$repo/ci/fleet" -o out caps/web-1 >/dev/null 2>stderr
check "another_list_into_the_same_output_is_a_usage_error" test $? = 2
# A host whose ljleak writes results of another version (here ':', this
# host, through --remote-ljleak): that capture is named as not merged and
# the rest are merged (the merge refused the lot: exit 3, nothing merged).
cat >newer-ljleak <<EOS
#!/bin/sh
for last; do :; done
case "\$last" in
  *web-2) "$LJLEAK" "\$@" | sed 's/"ljleak_result": 1,/"ljleak_result": 2,/' ;;
  *) exec "$LJLEAK" "\$@" ;;
esac
EOS
chmod +x newer-ljleak
"$repo/ci/fleet" --sshlogin : --remote-ljleak "$PWD/newer-ljleak" --quiet -o newer \
  caps/web-1 caps/web-2 caps/web-3 >/dev/null 2>stderr
check "a_result_of_another_version_leaves_the_rest_merged" test $? = 1
check "a_result_of_another_version_is_named" \
  grep -q "^fleet: caps/web-2: not merged: its result cannot be merged: byte 21: ljleak_result 2 is not a version" stderr
check "a_result_of_another_version_is_listed" grep -q "^caps/web-2	its result cannot be merged" newer/failed.txt
check "the_others_are_merged" grep -q "^fleet: 2 captures merged, 1 failed" stderr

# Two runs at once into the same directory (cron and a person): the second
# waits for the first, then resumes; neither loses results nor fails (each
# removed the other's results.new: exit 4, or a report of part of the
# captures that said all were merged).
mkdir -p many
i=0
while [ $i -lt 40 ]; do i=$((i + 1)); capture "many/c$i" 1.4.1 steady; done
"$repo/ci/fleet" -j 2 --quiet -o twice many/c* >/dev/null 2>twice-0.err
"$repo/ci/fleet" -j 2 --quiet -o twice many/c* >/dev/null 2>twice-1.err &
first=$!
"$repo/ci/fleet" -j 2 --quiet -o twice many/c* >/dev/null 2>twice-2.err
second=$?
wait "$first"
first=$?
check "two_runs_at_once_both_exit_0" test "$first/$second" = 0/0
[ "$first/$second" = 0/0 ] || cat twice-1.err twice-2.err
check "two_runs_at_once_both_merge_all" \
  sh -c 'grep -q "^fleet: 40 captures merged, 0 failed" twice-1.err && grep -q "^fleet: 40 captures merged, 0 failed" twice-2.err'
check "two_runs_at_once_keep_every_result" test "$(ls twice/results | wc -l)" = 40
check "two_runs_at_once_merge_every_result" test "$(grep -c '"source": ' twice/fleet.json)" = 40

# SIGTERM to ci/fleet in the map step: parallel stops with it (it ran on
# alone through every capture), no report is written, and the script dies
# of the signal. Each diff takes half a second here (':' with a slow ljleak).
printf '#!/bin/sh\nsleep 0.5\nexec "%s" "$@"\n' "$LJLEAK" >slow-ljleak
chmod +x slow-ljleak
"$repo/ci/fleet" -j 1 --sshlogin : --remote-ljleak "$PWD/slow-ljleak" --quiet -o term \
  many/c1 many/c2 many/c3 many/c4 many/c5 many/c6 many/c7 many/c8 many/c9 many/c10 >/dev/null 2>term.err &
fleet_pid=$!
sleep 1.5
kill -TERM "$fleet_pid"
wait "$fleet_pid"
check "sigterm_ends_fleet_by_the_signal" test $? = 143
check "sigterm_is_explained" grep -q "^fleet: stopped by SIGTERM in the map step" term.err
ran=$(tail -n +2 term/map.joblog | wc -l)
sleep 1.5
check "sigterm_stops_the_map" test "$(tail -n +2 term/map.joblog | wc -l)" = "$ran" -a "$ran" -lt 10
check "sigterm_leaves_no_diff_running" test -z "$(pgrep -f "$PWD/slow-ljleak")"
check "sigterm_writes_no_report" test ! -e term/fleet.json
"$repo/ci/fleet" -j 2 --quiet -o term many/c1 many/c2 many/c3 many/c4 many/c5 many/c6 many/c7 \
  many/c8 many/c9 many/c10 >/dev/null 2>stderr
check "the_run_after_a_sigterm_resumes" grep -q "^fleet: 10 captures merged, 0 failed" stderr

# A fake ssh: runs the command here, in hosts/HOST (a host's own files), and logs the host.
# SHELL is set as sshd sets it (the login's shell): parallel's remote end runs the job with
# $SHELL, and with none it ran nothing and exited 0 (the test's caller may have no SHELL).
mkdir -p bin hosts/web-1 hosts/web-2
cat >bin/ssh <<'EOS'
#!/bin/bash
host=
while [ $# -gt 0 ] && [ -z "$host" ]; do case "$1" in -*) shift ;; *) host=$1; shift ;; esac; done
[ "${1:-}" = "--" ] && shift
printf '%s\n' "$host" >>"$FLEET_SSH_LOG"
cd "$FLEET_HOSTS/$host" && SHELL=/bin/bash exec bash -c "$*"
EOS
chmod +x bin/ssh
export FLEET_SSH_LOG=$PWD/ssh.log FLEET_HOSTS=$PWD/hosts
capture hosts/web-1/cap 1.4.2 leak
capture hosts/web-2/cap 1.4.1 steady
# The same DIR on two hosts: two captures, each merged (the results of both went to one
# directory, map/1/cap, and one was lost: "not merged: exit 0/0").
PATH=$PWD/bin:$PATH "$repo/ci/fleet" -j 1 --remote-ljleak "$LJLEAK" --quiet -o same-dir web-1:cap web-2:cap >/dev/null 2>stderr
check "the_same_dir_on_two_hosts_exits_1" test $? = 1
check "the_same_dir_on_two_hosts_merges_both" grep -q "^fleet: 2 captures merged, 0 failed" stderr
check "the_same_dir_on_two_hosts_are_two_captures" test "$(grep -c '"source": ' same-dir/fleet.json)" = 2
# A plain path beside LOGIN:DIR captures, with no --sshlogin: diffed on this host (it went to
# web-1, where it is no capture); ':DIR' is this host too.
: >ssh.log
PATH=$PWD/bin:$PATH "$repo/ci/fleet" -j 1 --remote-ljleak "$LJLEAK" --quiet -o local-too \
  web-1:cap caps/web-3 ":$PWD/caps/web-2" >/dev/null 2>stderr
check "a_plain_path_beside_remote_ones_is_merged" grep -q "^fleet: 3 captures merged, 0 failed" stderr
check "only_the_remote_capture_went_over_ssh" test "$(sort -u ssh.log | tr '\n' ' ')" = "web-1 "
# A host with no SHELL (a container's sshd, say): its diff ran nothing and exited 0, and
# the capture was "not merged: exit 0/0"; it now says what to look at.
mkdir -p noshell-bin
sed 's|SHELL=/bin/bash exec|SHELL= exec|' bin/ssh >noshell-bin/ssh && chmod +x noshell-bin/ssh
PATH=$PWD/noshell-bin:$PATH "$repo/ci/fleet" -j 1 --remote-ljleak "$LJLEAK" --quiet -o noshell \
  web-1:cap caps/web-3 >/dev/null 2>stderr
check "a_host_with_no_shell_is_named" \
  grep -q "^fleet: web-1:cap: not merged: exit 0 with no result (on an ssh host, GNU parallel runs the diff with that host's \$SHELL" stderr
# A path with a colon (after a '/': no LOGIN), and one with a leading dash.
mkdir -p odd
capture "odd/run:1" 1.4.1 steady
capture "-dash" 1.4.1 steady
"$repo/ci/fleet" --quiet -o odd-out "odd/run:1" -- -dash >/dev/null 2>stderr
check "paths_with_a_colon_or_a_leading_dash_are_captures" grep -q "^fleet: 2 captures merged, 0 failed" stderr
# One capture given by several paths is one capture: the merge refuses it (it counted 3).
"$repo/ci/fleet" --quiet -o thrice caps/web-1 caps/web-1/ "$PWD/caps/web-1" >/dev/null 2>stderr
check "one_capture_by_three_paths_is_not_three" test $? = 3
check "saying_it_is_the_same_capture" grep -q "are results of the same capture" stderr
# Other --diff-option values into the same OUT: refused, not the old results merged as the
# new ones (the report still said "by": "site"); a merge that fails leaves no report of the
# last run (they stayed, with their old figures).
"$repo/ci/fleet" --quiet -o options caps/web-1 caps/web-3 >/dev/null 2>&1
"$repo/ci/fleet" --diff-option=--by=stack --quiet -o options caps/web-1 caps/web-3 >/dev/null 2>stderr
check "other_diff_options_into_the_same_output_exit_2" test $? = 2
check "saying_so" grep -q "holds the results of other --diff-option values" stderr
check "the_reports_of_the_last_run_stay_when_refused" test -s options/fleet.json
"$repo/ci/fleet" --min-captures 10x --quiet -o options caps/web-1 caps/web-3 >/dev/null 2>stderr
check "a_count_with_letters_is_a_usage_error" test $? = 2
"$repo/ci/fleet" --quiet -o stale caps/web-1 caps/late >/dev/null 2>&1
check "a_run_with_a_missing_capture_reports" test -s stale/fleet.json
cp -r caps/web-1 caps/late
"$repo/ci/fleet" --quiet -o stale caps/web-1 caps/late >/dev/null 2>stderr
check "a_failed_merge_exits_3" test $? = 3
check "a_failed_merge_leaves_no_report_of_the_last_run" test ! -e stale/fleet.json -a ! -e stale/fleet.txt -a ! -e stale/fleet.html

# Nothing that can be diffed: exit 3, named.
"$repo/ci/fleet" -o out2 caps/missing >/dev/null 2>stderr
check "no_capture_diffed_exits_3" test $? = 3
check "the_missing_capture_is_named" grep -q "caps/missing: not merged" stderr
"$repo/ci/fleet" -o out3 >/dev/null 2>&1
check "no_capture_is_a_usage_error" test $? = 2
finish
