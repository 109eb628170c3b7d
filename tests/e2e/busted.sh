#!/bin/sh
# tests/e2e/busted.sh: ljleak busted on testdata/busted (docs/busted.md): of its ten tests (nested
# describe blocks, before_each and after_each, a pending one, one that fails on its own), the
# two that leak (a module's cache of logins, a global audit trail) and only they are leaking,
# by their busted names, in text, JUnit, JSON and HTML; the test that warms a cache once is
# steady; busted's own failure and pending test are reported as such; a budget per test lets a
# leak pass; --judge reads the captures again; exit 1 for a leak.
E2E_NAME=busted
. tests/e2e/lib.sh

ljleak=$(cd "$(dirname "$LJLEAK")" && pwd)/$(basename "$LJLEAK")
out=$tmp/out
mkdir "$out"
(cd testdata/busted && "$ljleak" busted --dir "$tmp/suite" --junit "$out/junit.xml" --json "$out/result.json" \
   --html "$out/report.html" --text "$out/report.txt" spec > "$out/busted.out" 2> "$out/busted.err")
check "busted_exits_1_for_a_leak" test $? = 1
check "busted_reports_each_test_once" grep -q '8 successes / 1 failure / 0 errors / 1 pending' "$out/busted.out"
check "test_list_lists_every_test" sh -c "grep -c '^test	' '$tmp/suite/tests' | grep -qx 10"
check "one_capture_per_test_run" sh -c "ls -d '$tmp/suite'/0* | wc -l | grep -qx 9"

leaking='accounts login remembers every login
accounts audit keeps an audit trail'
check "text_flags_the_two_leaks" sh -c "grep -A4 '^leaking (2):' '$out/report.txt' | grep -q 'remembers every login' &&
  grep -A4 '^leaking (2):' '$out/report.txt' | grep -q 'keeps an audit trail'"
check "text_names_site_and_holder" sh -c "grep -q 'at @src/accounts.lua:10 with every run, held by accounts.login ▸ upvalue logins' '$out/report.txt' &&
  grep -q 'at @spec/accounts_spec.lua:64 with every run, held by _G.AUDIT_TRAIL$' '$out/report.txt'"
check "text_the_rest_steady_or_skipped" sh -c "grep -q '^steady (7):' '$out/report.txt' && grep -q '^skipped (1):' '$out/report.txt'"
check "text_says_busted_failed" grep -q 'busted: 1 test failed on its own' "$out/report.txt"

check "json_verdicts_by_name" python3 - "$out/result.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = {t["full_name"]: t["verdict"] for t in d["tests"]}
assert d["outcome"] == "flagged", d["outcome"]
assert sorted(n for n, x in v.items() if x == "leaking") == ["accounts audit keeps an audit trail", "accounts login remembers every login"], v
assert v["accounts login countries builds the country table"] == "steady", v
assert v["accounts audit fails on its own"] == "steady", v
assert v["accounts audit rotates the audit trail"] == "skipped", v
s = {t["full_name"]: t["status"] for t in d["tests"]}
assert s["accounts audit fails on its own"] == "failure" and s["accounts audit rotates the audit trail"] == "pending", s
lead = [t for t in d["tests"] if t["verdict"] == "leaking"]
assert all(t["result"]["outcome"] == "flagged" for t in lead)
assert {t["site"] for t in lead} == {"@src/accounts.lua:10", "@spec/accounts_spec.lua:64"}, lead
PY

check "junit_one_testcase_per_test" python3 - "$out/junit.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).getroot().findall(".//testcase")
assert len(cases) == 10, len(cases)
by = {(c.get("classname"), c.get("name")): c for c in cases}
for key in [("accounts login", "remembers every login"), ("accounts audit", "keeps an audit trail")]:
    f = by[key].find("failure")
    assert f is not None and f.get("type") == "leaking" and "held by" in f.get("message"), key
f = by[("accounts audit", "fails on its own")].find("failure")
assert f is not None and f.get("type") == "failure" and "Expected objects to be equal" in f.get("message")
assert by[("accounts audit", "rotates the audit trail")].find("skipped") is not None
assert by[("accounts login countries", "builds the country table")].find("failure") is None
bad = [k for k, c in by.items() if c.find("failure") is not None and c.find("failure").get("type") == "leaking"]
assert len(bad) == 2, bad
PY
check "html_lists_the_leaks" sh -c "grep -c 'class=\"leaking\"' '$out/report.html' | grep -qx 2"

# A budget per test: the audit trail may keep 32 KiB a run, so only the logins fail.
"$ljleak" busted --judge "$tmp/suite" --budget 'accounts audit *=32k' --json "$out/budget.json" > "$out/budget.txt" 2>&1
check "judge_again_exits_1" test $? = 1
check "budget_allows_the_audit_trail" python3 -c "
import json; d = json.load(open('$out/budget.json'))
a = {t['full_name']: t['allowed'] for t in d['tests']}
assert a['accounts audit keeps an audit trail'] and not a['accounts login remembers every login'], a"
# --repeat counts past the limit are refused, however large: one near 2^64 once wrapped the sum
# of the two counts below the limit and ran the suite for ever.
check "repeat_out_of_range_is_a_usage_error" sh -c "cd testdata/busted && for r in 1000:1 \
    18446744073709551615:1 18446744073709551614:3 99999999999999999999:1 ' 2:4' +2:4; do
  timeout 60 '$ljleak' busted --dir '$tmp/never' --repeat \"\$r\" spec > /dev/null 2>&1
  test \$? = 2 || exit 1; done"
check "bad_budget_is_a_usage_error" sh -c "'$ljleak' busted --judge '$tmp/suite' --budget 'x' > /dev/null 2>&1; test \$? = 2"
# Options that only a run takes do nothing to --judge: refused, not ignored.
for option in "--repeat 3:5" "--stack-depth 4" "--no-snapshot" "--busted /bin/true"; do
  name=$(echo "$option" | sed 's/^--//; s/ .*//')
  check "judge_refuses_${name}" sh -c "'$ljleak' busted --judge '$tmp/suite' $option > /dev/null 2> '$out/judge-$name.err'; test \$? = 2 && grep -q 'applies to a run' '$out/judge-$name.err'"
done

# busted's errors outside a test (a spec file that does not load, a failing setup, an after_each
# failing after a test that passed) are lines of the test list too: JUnit and JSON show them,
# and --judge fails as busted did, where they were once in busted's own output only. A test
# whose before_each fails never ran: skipped, where it was once "steady".
mkdir -p "$tmp/broken/spec"
printf 'describe("x", function() it("a", function() end)\n' > "$tmp/broken/spec/bad_spec.lua"
cat > "$tmp/broken/spec/setup_spec.lua" <<'LUA'
describe("setup fails", function()
  setup(function() error("setup broke") end)
  it("never runs", function() end)
end)
describe("after_each fails", function()
  after_each(function() error("after_each broke") end)
  it("passes itself", function() end)
end)
describe("before_each fails", function()
  before_each(function() error("before_each broke") end)
  it("never runs its body", function() end)
end)
describe("fine", function() it("passes", function() end) end)
LUA
(cd "$tmp/broken" && "$ljleak" busted --dir "$tmp/broken/run" --text /dev/null spec > /dev/null 2>&1)
check "broken_suite_exits_1" test $? = 1
"$ljleak" busted --judge "$tmp/broken/run" --junit "$out/broken.xml" --json "$out/broken.json" > /dev/null 2>&1
check "broken_suite_judged_again_exits_1" test $? = 1
check "broken_suite_errors_reported" python3 - "$out/broken.xml" "$out/broken.json" <<'PY'
import json, sys, xml.etree.ElementTree as ET
by = {(c.get("classname"), c.get("name")): c for c in ET.parse(sys.argv[1]).getroot().iter("testcase")}
err = lambda k: by[k].find("error") is not None and by[k].find("error").get("type") == "error"
assert err(("spec/bad_spec.lua", "spec/bad_spec.lua")), by
assert "expected" in by[("spec/bad_spec.lua", "spec/bad_spec.lua")].find("error").get("message")
assert err(("setup fails", "setup")) and err(("after_each fails", "passes itself")), by
assert err(("before_each fails", "never runs its body")), by
assert by[("fine", "passes")].find("error") is None, by
d = json.load(open(sys.argv[2]))
assert d["failed"] == 4 and d["outcome"] == "pass", d
# a test whose body never ran is skipped (not run), never steady
v = {t["full_name"]: t["verdict"] for t in d["tests"]}
assert v["before_each fails never runs its body"] == "skipped", v
assert v["fine passes"] == "steady" and v["after_each fails passes itself"] == "steady", v
PY

# A --busted script that does not read is a suite that could not run (4), named, with nothing
# made; it was luajit's "cannot open" and exit 1, as if busted had failed a test.
(cd testdata/busted && "$ljleak" busted --dir "$tmp/noscript" --busted "$tmp/no-such-busted" spec \
   > "$out/noscript.out" 2> "$out/noscript.err")
check "unreadable_busted_script_exits_4" test $? = 4
check "unreadable_busted_script_is_named" sh -c "grep -q 'cannot read $tmp/no-such-busted' '$out/noscript.err' &&
  test ! -e '$tmp/noscript'"

# --dir an empty directory (mktemp -d's) is taken, as ljleak run -o takes one; one with
# something in it is refused (4), never mixed.
mkdir "$tmp/empty-dir"
(cd testdata/busted && "$ljleak" busted --dir "$tmp/empty-dir" --text /dev/null spec \
   --filter 'builds the country table' > /dev/null 2>&1)
check "empty_existing_dir_is_taken" test $? = 0
check "empty_existing_dir_holds_the_captures" sh -c "test -d '$tmp/empty-dir/0001' && test -s '$tmp/empty-dir/tests'"
(cd testdata/busted && "$ljleak" busted --dir "$tmp/empty-dir" spec > /dev/null 2> "$out/nonempty.err")
check "non_empty_dir_is_refused" test $? = 4
check "non_empty_dir_is_named" grep -q 'it exists and is not an empty directory' "$out/nonempty.err"

# A test that calls os.exit would end ljleak's own process: no verdict, no report, and exit 0
# after os.exit(0). It is that test's error; the tests after it run and are judged.
mkdir -p "$tmp/exits/spec"
cat > "$tmp/exits/spec/exit_spec.lua" <<'LUA'
describe("exits", function()
  it("calls os.exit", function() os.exit(0) end)
  it("runs after", function() end)
end)
LUA
(cd "$tmp/exits" && "$ljleak" busted --dir run --junit exits.xml spec > /dev/null 2>&1)
check "os_exit_in_a_test_exits_1" test $? = 1
check "os_exit_in_a_test_is_its_error" sh -c "grep -q 'name=calls os.exit	status=error	.*os.exit(0) in a test' '$tmp/exits/run/tests' &&
  grep -q 'name=runs after	status=success' '$tmp/exits/run/tests' && test -s '$tmp/exits/exits.xml'"

# os.exit outside a test (a spec file's top level skipping itself, a teardown) ended the run
# before any test was judged: exit 0, no report, and the leak of the test before it lost. It is
# busted's error there now: the leak is judged and reported, and the run fails.
cat > "$tmp/exits/spec/leak_spec.lua" <<'LUA'
local kept = {}
describe("leaks", function() it("keeps tables", function() for i = 1, 300 do kept[#kept + 1] = { i } end end) end)
LUA
cat > "$tmp/exits/spec/skip_spec.lua" <<'LUA'
if not pcall(require, "no_such_optional_module") then print("skipping"); os.exit(0) end
describe("never", function() it("runs", function() end) end)
LUA
cat > "$tmp/exits/spec/teardown_spec.lua" <<'LUA'
describe("tears down", function()
  teardown(function() os.exit(0) end)
  it("passes", function() end)
end)
LUA
(cd "$tmp/exits" && "$ljleak" busted --dir outside --junit outside.xml --json outside.json --text outside.txt \
   spec/leak_spec.lua spec/skip_spec.lua spec/teardown_spec.lua > /dev/null 2>&1)
check "os_exit_outside_a_test_exits_1" test $? = 1
check "os_exit_outside_a_test_leak_reported" sh -c "grep -q 'leaks keeps tables' '$tmp/exits/outside.txt' &&
  grep -q '^leaking (1):' '$tmp/exits/outside.txt' && test -s '$tmp/exits/outside.xml'"
check "os_exit_outside_a_test_is_busted_error" python3 - "$tmp/exits/outside.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
errors = [t for t in d["tests"] if t["status"] == "error"]
assert len(errors) == 2, errors
assert all("os.exit(0) in the suite" in t["message"] for t in errors), errors
assert {t["file"] for t in errors} == {"spec/skip_spec.lua", "spec/teardown_spec.lua"}, errors
PY

# busted's --list runs no test body: every test skipped, no capture left, inconclusive (5); it
# once made every test busted's error (exit 1), each with a capture directory of its own.
(cd testdata/busted && "$ljleak" busted --dir "$tmp/listed" --json "$out/listed.json" -- --list spec \
   > /dev/null 2>&1)
check "busted_list_exits_5" test $? = 5
check "busted_list_skips_every_test_and_keeps_no_capture" sh -c "test \"\$(ls '$tmp/listed')\" = tests &&
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d[\"failed\"] == 0 and len(d[\"tests\"]) == 10 and all(t[\"verdict\"] == \"skipped\" for t in d[\"tests\"]), d' '$out/listed.json'"

# A lazy_setup that fails: its tests never ran, and no capture is left for them (their numbers go
# to the tests after); pending("why") in a body keeps its message; a test's capture, stopped by
# ljleak busted after its last run, is not "stopped, the process ran on unrecorded".
mkdir -p "$tmp/lazy/spec"
cat > "$tmp/lazy/spec/lazy_spec.lua" <<'LUA'
describe("no database", function()
  lazy_setup(function() error("cannot connect") end)
  it("reads", function() end)
  it("writes", function() end)
end)
describe("later", function() it("waits", function() pending("needs the new API") end) end)
local kept = {}
describe("after", function() it("leaks", function() for i = 1, 300 do kept[#kept + 1] = { i } end end) end)
LUA
(cd "$tmp/lazy" && "$ljleak" busted --dir run --json run.json --text run.txt spec > /dev/null 2>&1)
check "failed_lazy_setup_exits_1" test $? = 1
check "failed_lazy_setup_leaves_no_capture" sh -c "test \"\$(ls '$tmp/lazy/run' | tr '\n' ' ')\" = '0001 0002 tests ' &&
  grep -q 'capture=0001	.*name=waits' '$tmp/lazy/run/tests' && grep -q 'capture=0002	.*name=leaks' '$tmp/lazy/run/tests'"
check "pending_message_kept" python3 - "$tmp/lazy/run.json" <<'PY'
import json, sys
t = {t["name"]: t for t in json.load(open(sys.argv[1]))["tests"]}
assert "needs the new API" in (t["waits"]["message"] or ""), t["waits"]
assert t["reads"]["status"] == "error" and t["writes"]["verdict"] == "skipped", t
PY
check "a_tests_capture_end_is_not_a_stop_warning" sh -c "grep -q '^leaking (1):' '$tmp/lazy/run.txt' &&
  ! grep -q 'ran on unrecorded' '$tmp/lazy/run.txt'"
# A spec file's local that the test's function keeps: held by that function, as the suite wrote
# it, not by a local of ljleak busted's own helper ("(local element in function@ljleak.busted:...").
check "a_local_the_test_keeps_is_held_by_the_tests_function" sh -c "
  grep -q 'with every run, held by the test.s function ▸ upvalue kept\$' '$tmp/lazy/run.txt' &&
  ! grep -q 'local element in function@ljleak.busted' '$tmp/lazy/run.txt'"

# A bounded cache that fills in the measured runs (an LRU of 1000 entries, 200 new a run) rose
# with every run but the last: undecided (5), not leaking; with more runs, steady.
mkdir -p "$tmp/lru/spec"
cat > "$tmp/lru/spec/lru_spec.lua" <<'LUA'
local lru = { keys = {}, vals = {}, n = 0, next = 0 }
local function put(k, v)
  if lru.vals[k] == nil then
    lru.n = lru.n + 1
    lru.keys[#lru.keys + 1] = k
    if lru.n > 1000 then lru.vals[table.remove(lru.keys, 1)] = nil; lru.n = lru.n - 1 end
  end
  lru.vals[k] = v
end
describe("lru", function()
  it("caches", function() for i = 1, 200 do lru.next = lru.next + 1; put("k" .. lru.next, { lru.next }) end end)
end)
LUA
(cd "$tmp/lru" && "$ljleak" busted --dir run --text run.txt spec > /dev/null 2>&1)
check "a_cache_filled_in_the_runs_exits_5" test $? = 5
check "a_cache_filled_in_the_runs_is_undecided" sh -c "grep -q '^undecided (1):' '$tmp/lru/run.txt' &&
  grep -q 'kept under a quarter as much in the last' '$tmp/lru/run.txt'"
(cd "$tmp/lru" && "$ljleak" busted --dir more --repeat 2:12 --text more.txt spec > /dev/null 2>&1)
check "a_cache_filled_in_more_runs_exits_0" test $? = 0
check "a_cache_filled_in_more_runs_is_steady" grep -q ': 0 of 1 tests leaking, 0 undecided, 1 steady' "$tmp/lru/more.txt"

# A test that keeps a little with every run, under --min-growth: steady (0), and says so (it
# said "nothing it keeps grows with its runs").
mkdir -p "$tmp/small/spec"
cat > "$tmp/small/spec/small_spec.lua" <<'LUA'
local kept = {}
describe("small", function() it("keeps a little", function() kept[#kept + 1] = string.rep("x", 300) .. #kept end) end)
LUA
(cd "$tmp/small" && "$ljleak" busted --dir run --text run.txt spec > /dev/null 2>&1)
check "a_small_rise_is_steady_exits_0" test $? = 0
check "a_small_rise_is_steady_and_said" grep -q \
  'by enough to count: @spec/small_spec.lua:2 rose [0-9]* B a run, under the growth threshold (--min-growth 4096 B in all)' \
  "$tmp/small/run.txt"

# busted's -C (--directory) changes the working directory before the suite runs: --dir and the
# report files given relative are still where they were given (the captures once went to a
# directory of that name under -C's, and the test list was then not found).
(cd "$tmp" && "$ljleak" busted --dir chdir --junit chdir.xml --text chdir.txt -C "$OLDPWD/testdata/busted" spec \
   --filter 'builds the country table' > /dev/null 2>&1)
check "busted_directory_option_exits_0" test $? = 0
check "busted_directory_option_keeps_dir_and_reports" sh -c "test -d '$tmp/chdir/0001' && test -s '$tmp/chdir.xml' &&
  grep -q ': 0 of 1 tests leaking, 0 undecided, 1 steady' '$tmp/chdir.txt'"

# A suite without leaks passes: the steady tests alone.
(cd testdata/busted && "$ljleak" busted --dir "$tmp/steady" --text "$out/steady.txt" spec \
   --filter-out 'remembers' --filter-out 'audit trail' --filter-out 'fails' > /dev/null 2>&1)
check "steady_tests_alone_exit_0" test $? = 0
check "steady_tests_alone_none_leaking" grep -q ': 0 of 6 tests leaking, 0 undecided, 6 steady' "$out/steady.txt"

# busted's own --repeat runs the suite twice: each test is measured in its first round only,
# one line and one testcase each (it was 20, each name twice, judged apart).
(cd testdata/busted && "$ljleak" busted --dir "$tmp/again" --junit "$out/again.xml" --text "$out/again.txt" \
   -- --repeat 2 spec > "$out/again.out" 2>&1)
check "busted_repeat_exits_1_for_a_leak" test $? = 1
check "busted_repeat_runs_the_suite_twice" grep -q 'Repeating all tests (run 2 of 2)' "$out/again.out"
check "busted_repeat_lists_each_test_once" sh -c "grep -c '^test	' '$tmp/again/tests' | grep -qx 10"
check "busted_repeat_same_verdicts" grep -q ': 2 of 10 tests leaking, 0 undecided, 7 steady, 1 skipped' "$out/again.txt"
check "busted_repeat_junit_names_once" python3 - "$out/again.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).getroot().findall(".//testcase")
keys = [(c.get("classname"), c.get("name")) for c in cases]
assert len(keys) == 10 and len(set(keys)) == 10, keys
PY

finish
