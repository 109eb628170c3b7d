#!/bin/sh
# tests/e2e/suspects.sh: one leak, one finding (docs/diff.md, "Leak suspects"): a real event bus
# (testdata/suspects/bus.lua) whose per-request handler closures, with their request tables,
# headers and id strings, are registered and never removed. ljleak run captures it with its
# heap snapshots; ljleak diff finds exactly one leak suspect, the bus's list of handlers, that
# holds every growing site, and leads every format with it: the text's headline counts it, the
# JSON's suspects name it, JUnit fails once for it, and ljleak report of the saved JSON says the
# same. Without snapshots the sites are not grouped and the report says so. Sampled, what the
# sites hold is scaled back as their series are. A flushed buffer beside a list that never lets
# go is one suspect, the list (JIT on and off).
E2E_NAME=suspects
. tests/e2e/lib.sh

program=testdata/suspects/bus.lua

"$LJLEAK" run -o "$tmp/cap" "$program" > "$tmp/run.out" 2>&1
check "bus_runs" test $? = 0
NO_COLOR=1 "$LJLEAK" diff "$tmp/cap" > "$tmp/text" 2> "$tmp/diff.err"
check "diff_flags_exit_1" test $? = 1
"$LJLEAK" diff --format json -o "$tmp/result.json" "$tmp/cap" 2> /dev/null
check "diff_json_flags_exit_1" test $? = 1

growing=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(sum(1 for s in r["sites"] if s["verdict"] == "growing"))' "$tmp/result.json")
check "several_sites_grow" test "$growing" -ge 3
check "headline_counts_one_suspect" grep -qE "^ljleak: 1 leak suspect, $growing growing sites \(of [0-9]+\)" "$tmp/text"
check "text_leads_with_the_suspect" sh -c "awk '/^leak suspects/ { s = NR } /^growing, fastest first/ { g = NR } END { exit !(s && g && s < g) }' '$tmp/text'"
check "text_names_the_list" grep -qE '^  1\. table .*handlers, made at @testdata/suspects/bus.lua:8$' "$tmp/text"
check "text_says_kinds_and_shares" grep -qE 'holds [0-9,]+ tables \(.*\); the suspect retains .*, of which this site ' "$tmp/text"
check "text_says_what_retained_means" grep -qF "retained: what would be freed if the container were let go" "$tmp/text"
check "json_one_suspect_holding_every_growing_site" python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
g = sorted(s["name"] for s in r["sites"] if s["verdict"] == "growing")
ss = r["suspects"]
sys.exit(0 if len(ss) == 1 and sorted(x["name"] for x in ss[0]["sites"]) == g
         and ss[0]["path"].endswith("handlers") and ss[0]["type"] == "table"
         and ss[0]["site"] == "@testdata/suspects/bus.lua:8" and ss[0]["retained_bytes"] >= ss[0]["bytes"] > 0
         and all(s.get("kinds") and s["container"]["path"] == ss[0]["path"] for s in r["sites"] if s["verdict"] == "growing")
         else 1)' "$tmp/result.json"
check "json_kinds_name_closures_tables_strings" python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
kinds = {k["kind"] for k in r["suspects"][0]["kinds"]}
sys.exit(0 if {"table", "function", "string"} <= kinds else 1)' "$tmp/result.json"

NO_COLOR=1 "$LJLEAK" report "$tmp/result.json" > "$tmp/report" 2>&1
check "report_exits_1" test $? = 1
check "report_says_the_same_as_diff" cmp -s "$tmp/report" "$tmp/text"
check "report_json_round_trips" sh -c "'$LJLEAK' report --format json '$tmp/result.json' | cmp -s - '$tmp/result.json'"
"$LJLEAK" report --format junit "$tmp/result.json" > "$tmp/junit.xml" 2> /dev/null
check "junit_one_failure_for_the_suspect" python3 -c 'import sys, xml.etree.ElementTree as ET
fs = [f for f in ET.parse(sys.argv[1]).iter("failure")]
sys.exit(0 if len(fs) == 1 and fs[0].get("type") == "growing" and fs[0].get("message").startswith("leak suspect 1: ")
         and "handlers" in fs[0].get("message")
         and "@testdata/suspects/bus.lua:2" in fs[0].get("message") else 1)' "$tmp/junit.xml"
"$LJLEAK" report --format markdown "$tmp/result.json" > "$tmp/report.md" 2> /dev/null
check "markdown_leads_with_the_suspect" sh -c "grep -q '^### ljleak: 1 leak suspect, $growing growing sites' '$tmp/report.md' && awk '/^#### Leak suspects/ { s = NR } /^\\| site \\|/ { t = NR } END { exit !(s && t && s < t) }' '$tmp/report.md'"
"$LJLEAK" report --format html "$tmp/result.json" > "$tmp/report.html" 2> /dev/null
check "html_leads_with_the_suspect" python3 -c 'import sys
t = open(sys.argv[1]).read()
a, b = t.find("<h2>Leak suspects</h2>"), t.find("<h2>Sites")
sys.exit(0 if 0 < a < b and "<h1>1 leak suspect, " in t else 1)' "$tmp/report.html"

# Sampled (--sample 16k): what the suspect's sites hold is scaled back as their series are, so
# "of which this site" (the container's bytes of the site) is the site's live bytes there, not
# the few recorded blocks' own (it was about a hundredth of them).
"$LJLEAK" run --sample 16k -o "$tmp/sampled" "$program" > /dev/null 2>&1
check "sampled_bus_runs" test $? = 0
"$LJLEAK" diff --format json -o "$tmp/sampled.json" "$tmp/sampled" 2> /dev/null
check "sampled_bus_flags" test $? = 1
check "sampled_holdings_are_scaled_back" python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
sites = {s["name"]: s for s in r["sites"]}
under = [sites[x["name"]] for sp in r["suspects"] for x in sp["sites"] if sites[x["name"]].get("container")]
held = sum(s["container"]["bytes"] for s in under)
live = sum(s["series"][s["holders_boundary"] - 1] for s in under)
sys.exit(0 if under and 0.5 * live <= held <= 1.05 * live else 1)' "$tmp/sampled.json"

# A buffer flushed now and then beside a list that never lets go (testdata/suspects/sampler.lua):
# the samples are made at one line, and at a heap snapshot the window may hold most of them, but
# the one suspect is the list that grows, metrics.slow, and holds both growing lines; JIT on and
# off.
for jit in on off; do
  "$LJLEAK" run -j "$jit" -o "$tmp/sampler-$jit" testdata/suspects/sampler.lua > /dev/null 2>&1
  check "sampler_jit_${jit}_runs" test $? = 0
  NO_COLOR=1 "$LJLEAK" diff "$tmp/sampler-$jit" > "$tmp/sampler-$jit.txt" 2>&1
  check "sampler_jit_${jit}_flags" test $? = 1
  check "sampler_jit_${jit}_one_suspect" grep -qE '^ljleak: 1 leak suspect, ' "$tmp/sampler-$jit.txt"
  check "sampler_jit_${jit}_names_the_slow_list" grep -qE '^  1\. table metrics\.slow, made at @testdata/suspects/sampler\.lua:9$' "$tmp/sampler-$jit.txt"
  "$LJLEAK" diff --format json -o "$tmp/sampler-$jit.json" "$tmp/sampler-$jit" 2> /dev/null
  # Every flagged site of the program is under it: the list's array part, and the samples' line
  # when that is flagged (with the JIT on it is, and the window holds most of its objects).
  check "sampler_jit_${jit}_every_line_under_it" python3 -c 'import json, sys
r, jit = json.load(open(sys.argv[1])), sys.argv[2]
ss = r["suspects"]
flagged = sorted(s["name"] for s in r["sites"] if s["verdict"] == "growing" and "sampler.lua" in s["name"])
under = sorted(x["name"] for x in ss[0]["sites"]) if len(ss) == 1 else []
sys.exit(0 if under == flagged and "@testdata/suspects/sampler.lua:22" in under
         and (jit == "off" or "@testdata/suspects/sampler.lua:18" in under)
         and ss[0]["path"] == "metrics.slow"
         and any(c["path"] == "metrics.slow" and c.get("address") for c in r["containers"]) else 1)' "$tmp/sampler-$jit.json" "$jit"
done

# The same shape in the corpus (testdata/workloads/flush_leak.lua: a log flushed now and then, an
# audit list of every fourth entry never emptied): one suspect, the audit list, and its sites'
# holders all from the newest snapshot, where the list holds the growth (an older snapshot where
# the log held more of the entries does not take them).
"$LJLEAK" run -o "$tmp/flush" testdata/workloads/flush_leak.lua 640000 > /dev/null 2>&1
"$LJLEAK" diff --format json -o "$tmp/flush.json" "$tmp/flush" 2> /dev/null
check "flush_leak_one_suspect_the_audit_list" python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
ss = r["suspects"]
flagged = sorted(s["name"] for s in r["sites"] if s["verdict"] == "growing" and "flush_leak.lua" in s["name"])
under = [x["name"] for x in ss[0]["sites"]] if len(ss) == 1 else []
newest = max(c["boundaries"][1] for c in r["containers"])
sys.exit(0 if sorted(under) == flagged and "@testdata/workloads/flush_leak.lua:13" in under
         and ss[0]["path"].startswith("local audit in main chunk") and ss[0]["boundary"] == newest
         and all(s["container"]["boundary"] == newest for s in r["sites"] if s["name"] in under) else 1)' "$tmp/flush.json"

# Without heap snapshots: every growing site its own finding, and the report says why.
"$LJLEAK" run --snapshots none -o "$tmp/bare" "$program" > /dev/null 2>&1
NO_COLOR=1 "$LJLEAK" diff "$tmp/bare" > "$tmp/bare.txt" 2>&1
check "no_snapshot_still_flags" test $? = 1
check "no_snapshot_not_grouped" grep -qF "no heap snapshot: sites not grouped into leak suspects" "$tmp/bare.txt"
check "no_snapshot_no_suspects" sh -c "! grep -q 'leak suspect,' '$tmp/bare.txt'"

finish
