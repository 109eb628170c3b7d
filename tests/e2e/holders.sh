#!/bin/sh
# tests/e2e/holders.sh: holder paths of growing sites (docs/diff.md, "Holders"), JIT on and
# off, on the LuaJIT this build is for (make check-other-luajit runs it again on the other
# one): testdata/holders/known.lua leaks at lines marked "-- leak: PATH", and each such site's
# top holder in the JSON result is PATH (a list held by an upvalue, a module in _LOADED, a
# coroutine's local, a producer coroutine's upvalue after the path to it, a main chunk's local seen by the snapshot in the middle of the run, a
# global list beside a weak cache that is never named, a metatable's
# __index, tables used as their own key, cdata in a table, objects kept only by a finalizer);
# named paths first, the same way: testdata/holders/bus.lua (an event bus module's handlers and
# a global, which dead stack slots of the main chunk hold too: the module by its require name
# and the global, not the temporaries), memoize.lua (a memoizing function's closures at two
# fields of a module: each named by its field, then its upvalue), weak_shards.lua (a weak-keyed
# cache whose keys eight lists share) and weak_keys.lua (a
# weak-keyed table's values: they live while their key lives, and who holds the key; a key
# held only by its own value; a weak-valued cache never named), weak_slots.lua (the slots of a
# weak-valued index and of a weak-keyed set go under the suspect of the list that keeps their
# values and keys), store.lua (a module's get and set sharing an upvalue, named by get in every
# run; the storing line's objects are its own, none of the collector's);
# a container that grows between two snapshots is reported with its site, path and entries;
# the text report prints each under "held by", and so does `ljleak report` of the saved JSON
# (the container also in Markdown and in the JUnit failure of the site it holds);
# a capture without snapshots says how to get holders; another capture's snapshot is refused;
# a growing list of a million nodes (testdata/holders/chain.lua) is diffed within a generous
# bound, its holder path cut after 64 steps and naming the global that holds it.
E2E_NAME=holders
. tests/e2e/lib.sh

program=testdata/holders/known.lua

# expected_paths [PROGRAM]: "LINE<TAB>PATH" for each marked line.
expected_paths() {
  awk -v file="${1:-$program}" '/^[ ]*[^- ].*-- leak: / { p = $0; sub(/.*-- leak: /, "", p); gsub(/FILE/, file, p); print NR "\t" p }' "${1:-$program}"
}

# top_path JSON LINE [PROGRAM]: the first holder path of the site made at LINE of the program.
top_path() {
  python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
for s in r["sites"]:
    if s["name"] == "@" + sys.argv[2] + ":" + sys.argv[3] and s.get("holders"):
        print(s["holders"][0]["path"])' "$1" "${3:-$program}" "$2"
}

# holder_paths JSON: every holder path of every site, one a line.
holder_paths() {
  python3 -c 'import json, sys
for s in json.load(open(sys.argv[1]))["sites"]:
    for h in s.get("holders", []):
        print(h["path"])' "$1"
}

# has_fields JSON: every holder has objects, bytes, a holder type and its retained bytes.
has_fields() {
  python3 -c 'import json, sys
hs = [h for s in json.load(open(sys.argv[1]))["sites"] for h in s.get("holders", [])]
ok = hs and all(h["objects"] > 0 and h["bytes"] > 0 and h["holder_type"] and h["retained_bytes"] >= 0 for h in hs)
sys.exit(0 if ok else 1)' "$1"
}

expected_paths > "$tmp/expected"
check "program_marks_nine_leaks" test "$(wc -l < "$tmp/expected")" = 9

for jit in off on; do
  cap=$tmp/cap-$jit
  "$LJLEAK" run -j "$jit" -o "$cap" "$program" > "$tmp/run-$jit.out" 2>&1
  check "jit_${jit}_runs" test $? = 0
  "$LJLEAK" diff --format json -o "$tmp/result-$jit.json" "$cap" 2> "$tmp/diff-$jit.err"
  check "jit_${jit}_diff_flags" test $? = 1
  NO_COLOR=1 "$LJLEAK" diff "$cap" > "$tmp/text-$jit" 2>&1
  NO_COLOR=1 "$LJLEAK" report "$tmp/result-$jit.json" > "$tmp/report-$jit" 2>&1
  while IFS='	' read -r line path; do
    check "jit_${jit}_line_${line}_held_by_${path}" test "$(top_path "$tmp/result-$jit.json" "$line")" = "$path"
    check "jit_${jit}_text_line_${line}_names_it" grep -qF "  $path  (" "$tmp/text-$jit"
    check "jit_${jit}_report_line_${line}_names_it" grep -qF "  $path  (" "$tmp/report-$jit"
  done < "$tmp/expected"
  check "jit_${jit}_weak_cache_never_holds" sh -c "! grep -q cache '$tmp/text-$jit'"
  check "jit_${jit}_holders_have_their_fields" has_fields "$tmp/result-$jit.json"
  check "jit_${jit}_json_says_the_boundary" python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
hs = [s for s in r["sites"] if s.get("holders")]
sys.exit(0 if r["capture"]["snapshots"] >= 1 and hs and all(s["holders_boundary"] >= 1 for s in hs) else 1)' "$tmp/result-$jit.json"
  check "jit_${jit}_report_json_round_trips" sh -c "'$LJLEAK' report --format json '$tmp/result-$jit.json' | cmp -s - '$tmp/result-$jit.json'"
done

# Named paths first, and weak-keyed tables explained: each marked line's top holder (JSON and
# text), JIT off and on.
for case in bus memoize weak_keys weak_shards; do
  prog=testdata/holders/$case.lua
  expected_paths "$prog" > "$tmp/expected-$case"
  check "${case}_marks_its_leaks" test "$(wc -l < "$tmp/expected-$case")" -ge 2
  for jit in off on; do
    cap=$tmp/$case-$jit
    "$LJLEAK" run -j "$jit" -o "$cap" "$prog" > "$tmp/$case-run-$jit.out" 2>&1
    check "${case}_jit_${jit}_runs" test $? = 0
    "$LJLEAK" diff --format json -o "$tmp/$case-$jit.json" "$cap" 2> /dev/null
    check "${case}_jit_${jit}_diff_flags" test $? = 1
    NO_COLOR=1 "$LJLEAK" diff "$cap" > "$tmp/$case-text-$jit" 2>&1
    while IFS='	' read -r line path; do
      check "${case}_jit_${jit}_line_${line}_held_by_${path}" test "$(top_path "$tmp/$case-$jit.json" "$line" "$prog")" = "$path"
      check "${case}_jit_${jit}_text_line_${line}_names_it" grep -qF "  $path  (" "$tmp/$case-text-$jit"
    done < "$tmp/expected-$case"
  done
done
# The dead slots of bus.lua's main chunk hold the lists in fewer steps: never shown while a
# named path exists; one memoizing function's closures are told apart by their paths; a
# weak-valued cache holds nothing.
check "bus_no_temporary_shown" sh -c "! grep -q 'slot [0-9]* in main chunk' '$tmp/bus-text-on'"
check "memoize_no_prototype_anchor" sh -c "! grep -q 'upvalue cache of function@' '$tmp/memoize-text-on'"
check "weak_keys_weak_valued_cache_never_holds" sh -c "! grep -q recent '$tmp/weak_keys-text-on'"
# A table whose slots grew at a leaking line is their holder ("_G.owned (its slots)"), and keeps
# alive what it does on the line of its entries, not what its parent _G does.
for jit in off on; do
  for t in owned session_data; do
    keeps=$(sed -n "s/^ *_G\.$t\[\*\] .*the table keeps \(.*\) alive)$/\1/p" "$tmp/weak_keys-text-$jit" | sort -u)
    slots=$(sed -n "s/^ *_G\.$t (its slots)  (1 object, .*the table keeps \(.*\) alive)$/\1/p" "$tmp/weak_keys-text-$jit")
    check "weak_keys_jit_${jit}_${t}_slots_held_by_the_table" sh -c "test -n '$slots' && test '$slots' = '$keeps'"
  done
  # One leak, one finding: the sessions' data lives while the sessions (its weak keys) do, so its
  # line goes under the suspect of the list that keeps them; the cycle through owned stays apart.
  check "weak_keys_jit_${jit}_two_suspects" grep -q '^ljleak: 2 leak suspects' "$tmp/weak_keys-text-$jit"
  check "weak_keys_jit_${jit}_no_suspect_of_the_weak_table" sh -c "! grep -q '^  [0-9]*\. table _G.session_data' '$tmp/weak_keys-text-$jit'"
  check "weak_keys_jit_${jit}_values_under_the_keys_suspect" sh -c "sed -n '/^  [0-9]*\. table _G.sessions,/,/^  [0-9]*\. /p' '$tmp/weak_keys-text-$jit' | grep -q 'weak_keys.lua:19: .*as values of the weak-keyed table _G.session_data, they live as long as their keys'"
  check "weak_keys_jit_${jit}_json_through_keys_of" sh -c "grep -q '\"through_keys_of\": \"_G.session_data\"' '$tmp/weak_keys-$jit.json'"
  # The keys in eight shard lists, none holding most of them: the table of shards holds them
  # all, and the data goes under its suspect (two suspects before, the weak table one of them).
  check "weak_shards_jit_${jit}_one_suspect" grep -q '^ljleak: 1 leak suspect, 2 growing sites' "$tmp/weak_shards-text-$jit"
  check "weak_shards_jit_${jit}_values_under_the_shards_suspect" sh -c "sed -n '/^  1\. table _G.shards,/,/^growing/p' '$tmp/weak_shards-text-$jit' | grep -q 'weak_shards.lua:19: .*as values of the weak-keyed table _G.session_data, they live as long as their keys'"
  # Weak tables that keep an entry while its handle lives, the handles kept by a global list:
  # their slots grow with the list's leak, and go under its suspect, each saying why.
  "$LJLEAK" run -j "$jit" -o "$tmp/weak_slots-$jit" testdata/holders/weak_slots.lua > /dev/null 2>&1
  NO_COLOR=1 "$LJLEAK" diff "$tmp/weak_slots-$jit" > "$tmp/weak_slots-text-$jit" 2>&1
  "$LJLEAK" diff --format json -o "$tmp/weak_slots-$jit.json" "$tmp/weak_slots-$jit" 2> /dev/null
  check "weak_slots_jit_${jit}_one_suspect" grep -q '^ljleak: 1 leak suspect, ' "$tmp/weak_slots-text-$jit"
  check "weak_slots_jit_${jit}_the_list" grep -q '^  1\. table _G.handles, ' "$tmp/weak_slots-text-$jit"
  for t in "17 by_id weak values" "18 seen weak keys"; do
    set -- $t
    check "weak_slots_jit_${jit}_line_$1_says_why" grep -q "weak_slots.lua:$1: holds the slots of 1 table (.*); that table (local $2 in main chunk@testdata/holders/weak_slots.lua) keeps its entries while their $3 $4 live, and this suspect holds those" "$tmp/weak_slots-text-$jit"
  done
  check "weak_slots_jit_${jit}_json_key_slots" python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
prefix = "@testdata/holders/weak_slots.lua:"
c = {s["name"][len(prefix):]: s.get("container", {}) for s in r["sites"] if s["name"].startswith(prefix)}
handles = c["16"]["address"]
sys.exit(0 if c["17"].get("key_slots") == "weak values" and c["18"].get("key_slots") == "weak keys"
         and c["17"]["key_address"] == c["18"]["key_address"] == handles
         and [len(s["sites"]) for s in r["suspects"]] == [4] else 1)' "$tmp/weak_slots-$jit.json"
  check "weak_slots_jit_${jit}_report_json_round_trips" sh -c "'$LJLEAK' report --format json '$tmp/weak_slots-$jit.json' | cmp -s - '$tmp/weak_slots-$jit.json'"
  # A module's get and set share an upvalue: the holder names the first of the two fields in
  # byte order, in every run, then the upvalue; the line that stores makes two tables a record
  # and the 7 role names, and nothing
  # of the collector's own (a snapshot's sentinel, with the JIT on, once the heap is large
  # enough for a snapshot's cycle to run in steps: 300,000 records, some 80 MB).
  records=$([ "$jit" = on ] && echo 300000 || echo 100000)
  "$LJLEAK" run -j "$jit" -o "$tmp/store-$jit" testdata/holders/store.lua "$records" > /dev/null 2>&1
  "$LJLEAK" diff --format json -o "$tmp/store-$jit.json" "$tmp/store-$jit" 2> /dev/null
  check "store_jit_${jit}_only_the_lines_objects" python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
s = [s for s in r["sites"] if s["name"] == "@testdata/holders/store.lua:17"][0]
kinds = {k["kind"]: k["objects"] for k in s["kinds"]}
sys.exit(0 if kinds == {"table": 2 * int(sys.argv[2]), "string": 7}
         and s["holders"][0]["path"] == "store.get \u25b8 upvalue items[*]" else 1)' "$tmp/store-$jit.json" "$records"
  # Two lists the code names, each half of a line's records: named paths, the suspect _G.
  "$LJLEAK" run -j "$jit" -o "$tmp/two_lists-$jit" testdata/holders/two_lists.lua > /dev/null 2>&1
  NO_COLOR=1 "$LJLEAK" diff "$tmp/two_lists-$jit" > "$tmp/two_lists-text-$jit" 2>&1
  check "two_lists_jit_${jit}_named_left" grep -q '^    _G\.left\[\*\]  (' "$tmp/two_lists-text-$jit"
  check "two_lists_jit_${jit}_named_right" grep -q '^    _G\.right\[\*\]  (' "$tmp/two_lists-text-$jit"
  check "two_lists_jit_${jit}_the_suspect_is_what_keeps_both" grep -q '^  1\. table _G$' "$tmp/two_lists-text-$jit"
done

# A list held by a local of the main chunk: ljleak run's last snapshot goes
# with the main chunk's return boundary, where the chunk's locals still hold
# what they held, so the holder is the local by its name.
"$LJLEAK" run -o "$tmp/local" testdata/holders/main_local.lua > /dev/null 2>&1
"$LJLEAK" diff --format json -o "$tmp/local.json" "$tmp/local" 2> /dev/null
check "main_local_held_by_its_name" python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
s = [s for s in r["sites"] if s["name"] == "@testdata/holders/main_local.lua:6"][0]
h = s["holders"][0]
sys.exit(0 if h["path"].startswith("(local pool in main chunk@testdata/holders/main_local.lua)")
         and h["objects"] >= 500 else 1)' "$tmp/local.json"
# A snapshot in the middle of the run names it too, with the blocks live at
# its boundary (the capture read up to it): a harness that takes snapshots
# itself, not at the return.
"$LJLEAK" run --snapshots 3 -o "$tmp/local3" testdata/holders/main_local.lua > /dev/null 2>&1
check "main_local_middle_snapshots_listed" test "$("$LJLEAK" info --get snapshots "$tmp/local3")" -ge 2

# A container that grows between the two newest snapshots: where it was made, how it is held,
# its entries at each; in the text and the JSON, and read back by ljleak report.
"$LJLEAK" run -o "$tmp/container" testdata/holders/container.lua > /dev/null 2>&1
"$LJLEAK" diff --format json -o "$tmp/container.json" "$tmp/container" 2> /dev/null
NO_COLOR=1 "$LJLEAK" diff "$tmp/container" > "$tmp/container.txt" 2>&1
check "container_in_the_json" python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["containers"][0]
sys.exit(0 if c["type"] == "table" and c["site"] == "@testdata/holders/container.lua:3"
         and c["path"] == "_G.pool.listeners" and c["entries"][0] < c["entries"][1] == 3000
         and c["bytes"][0] < c["bytes"][1] and c["boundaries"][0] < c["boundaries"][1] else 1)' "$tmp/container.json"
check "container_in_the_text" grep -qE '^  table made at @testdata/holders/container.lua:3, held by _G.pool.listeners: [0-9,]+ -> 3,000 entries' "$tmp/container.txt"
"$LJLEAK" report --format markdown "$tmp/container.json" > "$tmp/container.md" 2> /dev/null
"$LJLEAK" report --format junit "$tmp/container.json" > "$tmp/container.xml" 2> /dev/null
check "container_in_the_markdown" grep -qE '^\* table made at `@testdata/holders/container.lua:3`, held by `_G.pool.listeners`: [0-9,]+ -> 3,000 entries' "$tmp/container.md"
check "container_in_the_junit_failure" python3 -c 'import sys, xml.etree.ElementTree as ET
fs = [f.get("message") for f in ET.parse(sys.argv[1]).iter("failure")]
sys.exit(0 if any("a growing table held by _G.pool.listeners: " in m and "-> 3,000 entries" in m for m in fs) else 1)' "$tmp/container.xml"
"$LJLEAK" report --format html "$tmp/container.json" > "$tmp/container.html" 2> /dev/null
check "container_in_the_html" grep -qE '<li>table made at <code>@testdata/holders/container.lua:3</code>, held by <code>_G.pool.listeners</code>: [0-9,]+ -&gt; 3,000 entries' "$tmp/container.html"
check "container_read_back" sh -c "'$LJLEAK' report --format json '$tmp/container.json' | cmp -s - '$tmp/container.json'"
# A result written before growing containers had their address reads as before, and its report
# says the same.
python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
for c in r["containers"]:
    del c["address"]
json.dump(r, open(sys.argv[2], "w"))' "$tmp/container.json" "$tmp/container-old.json"
NO_COLOR=1 "$LJLEAK" report "$tmp/container-old.json" > "$tmp/container-old.txt" 2>&1
check "container_without_its_address_read_back" cmp -s "$tmp/container-old.txt" "$tmp/container.txt"
check "container_address_matches_its_suspect" python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
c = r["containers"][0]
sys.exit(0 if c["address"].startswith("0x") and any(s.get("container", {}).get("address") == c["address"]
                                                     for s in r["sites"]) else 1)' "$tmp/container.json"
check "no_container_with_one_snapshot" python3 -c 'import json, sys
sys.exit(0 if "containers" not in json.load(open(sys.argv[1])) else 1)' "$tmp/result-off.json"

# Without snapshots: the report says how to get holders, and names none.
"$LJLEAK" run --snapshots none -o "$tmp/bare" "$program" > /dev/null 2>&1
NO_COLOR=1 "$LJLEAK" diff "$tmp/bare" > "$tmp/bare.txt" 2>&1
check "no_snapshot_flags_the_leaks" grep -q "^growing" "$tmp/bare.txt"
check "no_snapshot_says_how" grep -qF "held by: no heap snapshot in the capture (take them with \`ljleak run --snapshots N\` or collector.snapshot())" "$tmp/bare.txt"
check "no_snapshot_no_paths" sh -c "! grep -q '_G.records' '$tmp/bare.txt'"

# Another capture's snapshot in its place is refused with a message naming it.
cp -r "$tmp/cap-off" "$tmp/foreign"
file=$("$LJLEAK" info --get snapshot_files "$tmp/foreign" | tr '\t' '\n' | tail -n 1)
other=$("$LJLEAK" info --get snapshot_files "$tmp/cap-on" | tr '\t' '\n' | tail -n 1)
cp "$tmp/cap-on/$other" "$tmp/foreign/$file"
NO_COLOR=1 "$LJLEAK" diff "$tmp/foreign" > "$tmp/foreign.txt" 2> "$tmp/foreign.err"
check "foreign_snapshot_still_diffs" test $? = 1
check "foreign_snapshot_is_refused" grep -qF "$file: byte 17: belongs to another capture" "$tmp/foreign.err"
check "foreign_snapshot_names_no_holder" sh -c "! grep -q '_G.records' '$tmp/foreign.txt'"

# A linked list of a million nodes that grows, held by the global chain: the holder analysis is
# linear in objects and references (a quadratic one took 8 s at 20,000 nodes, 128 s at 80,000),
# so its diff ends well within timeout's generous bound (no timing assertion: a few seconds
# here, and only a quadratic analysis misses it). The nodes deeper than the 64 steps shown
# are one path, cut with " ...", the run of "next" said once; held by the list's head, which
# keeps the whole list alive, and the suspect is named by the head's path (it was 62 ".next"
# deep, a node holding a few bytes).
chain=testdata/holders/chain.lua
chain_line=$(grep -n 'made here' "$chain" | cut -d: -f1)
"$LJLEAK" run --snapshots 1 -o "$tmp/chain" "$chain" 1000000 > "$tmp/chain-run.out" 2>&1
check "chain_of_a_million_runs" test $? = 0
timeout 120 "$LJLEAK" diff --format json -o "$tmp/chain.json" "$tmp/chain" 2> "$tmp/chain.err"
check "chain_of_a_million_diffs_within_the_bound_and_flags" test $? = 1
check "chain_of_a_million_held_by_its_root_variable" python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
s = [s for s in r["sites"] if s["name"] == "@" + sys.argv[2] + ":" + sys.argv[3]][0]
h = s["holders"][0]
sys.exit(0 if s["verdict"] == "growing" and h["path"] == "_G.chain(.next)* ..."
         and h["objects"] == 1000000 - 63 and h["retained_bytes"] >= 1000000 * 64
         and s["holders"][1]["path"] == "_G.chain(.next)*" and s["holders"][1]["objects"] == 61
         and s["holders"][2]["path"] == "_G.chain" else 1)' "$tmp/chain.json" "$chain" "$chain_line"
check "chain_of_a_million_is_one_suspect_named_by_its_head" python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
sus = r["suspects"]
sys.exit(0 if len(sus) == 1 and sus[0]["path"] == "_G.chain" and sus[0]["objects"] == 1000000
         and sus[0]["retained_bytes"] >= 1000000 * 64 else 1)' "$tmp/chain.json"
rm -rf "$tmp/chain"

finish
