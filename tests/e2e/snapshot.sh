#!/bin/sh
# tests/e2e/snapshot.sh: heap snapshots of a program whose holders are known
# (testdata/snapshot/holders.lua), JIT on and off, on the LuaJIT this build is
# for (make check-other-luajit runs it again on the other one): each object is
# in the snapshot with the labelled references that hold it (an upvalue, a
# module in _LOADED, a coroutine's local, a global, a weak cache marked weak, a
# metatable's __index, a table as its own key, cdata in a table, a finalizer's
# upvalue); the objects' bytes are collectgarbage("count") to the byte, of
# that program and of one that holds objects of every kind and size
# (testdata/snapshot/sizes.lua); a snapshot
# leaves the heap as it was; ljleak info lists the snapshots; ljleak run takes
# one at the end and one in the middle by default, none with --snapshots none;
# a cut snapshot prints its complete records and says so; another capture's
# snapshot and an unknown version are refused.
E2E_NAME=snapshot
. tests/e2e/lib.sh

# refs_to DUMP ADDRESS: "SOURCE_TYPE<TAB>LABEL[<TAB>(weak)]" for each reference to ADDRESS.
refs_to() {
  awk -F'\t' -v target="$2" '$1 == "object" { type = $3 } $2 == "->" && $3 == target {
    line = type "\t" $4; if ($5 != "") line = line "\t" $5; print line }' "$1"
}
# target_of DUMP ADDRESS LABEL: the target of ADDRESS's reference labelled LABEL.
target_of() {
  awk -F'\t' -v source="$2" -v label="$3" '$1 == "object" { inside = $2 == source }
    inside && $2 == "->" && $4 == label { print $3; exit }' "$1"
}
# object_line DUMP ADDRESS: the object's line.
object_line() { awk -F'\t' -v a="$2" '$1 == "object" && $2 == a' "$1"; }
address_of() { awk -v n="$2" '$1 == n { print $2 }' "$1"; }
has_ref() { refs_to "$1" "$2" | grep -qxF "$3"; }
# same_bytes DUMP: its objects' bytes are the heap's, to the byte.
same_bytes() {
  head -n 1 "$1" | tr '\t' '\n' | awk -F= '$1 == "heap_bytes" { h = $2 } $1 == "object_bytes" { o = $2 }
    END { exit !(o > 0 && o == h) }'
}

program=testdata/snapshot/holders.lua
chunk=function@$program

for jit in on off; do
  cap=$tmp/cap-$jit
  "$LJLEAK" run -j "$jit" --snapshots none -o "$cap" "$program" "$tmp/addresses-$jit" > "$tmp/run-$jit.out" 2>&1
  check "jit_${jit}_program_runs_on_after_snapshots" test $? = 0
  a=$tmp/addresses-$jit
  check "jit_${jit}_info_lists_two_snapshots" test "$("$LJLEAK" info --get snapshots "$cap")" = 2
  first=$("$LJLEAK" info --get snapshot_files "$cap" | cut -f1)
  d=$tmp/dump-$jit
  "$LJLEAK" snapshot "$cap/$first" > "$d" 2> "$tmp/dump-$jit.err"
  check "jit_${jit}_dump_exits_0" test $? = 0

  check "jit_${jit}_upvalue_holds_the_list" sh -c "
    $(command -v awk) -F'\t' -v uv=\"\$(awk -F'\t' -v on=$(address_of "$a" on) '\$1 == \"object\" { i = \$2 == on } i && \$4 == \"upvalue handlers\" { print \$3; exit }' '$d')\" \
      -v list=$(address_of "$a" handlers) '\$1 == \"object\" { i = \$2 == uv && \$3 == \"upvalue\" } i && \$3 == list && \$4 == \"value\" { found = 1 } END { exit !found }' '$d'"
  check "jit_${jit}_main_chunk_local_names_the_list" has_ref "$d" "$(address_of "$a" handlers)" \
    "thread	local handlers in main chunk@$program"
  check "jit_${jit}_registry_holds_loaded" has_ref "$d" "$(address_of "$a" loaded)" "table	_LOADED"
  check "jit_${jit}_loaded_holds_the_module" has_ref "$d" "$(address_of "$a" auth)" "table	auth"
  check "jit_${jit}_module_holds_its_cache" has_ref "$d" "$(address_of "$a" tokens)" "table	tokens"
  check "jit_${jit}_root_is_the_registry" grep -qxF "root	registry	$(address_of "$a" registry)" "$d"
  check "jit_${jit}_root_is_the_globals" grep -qxF "root	globals	$(address_of "$a" globals)" "$d"
  # A function over several lines is named by its first and its last ("end") line.
  line=$(grep -n "^local parked = coroutine.create" "$program" | cut -d: -f1)
  check "jit_${jit}_coroutine_local_names_its_frame" has_ref "$d" "$(address_of "$a" pending)" \
    "thread	local pending in $chunk:$line-$((line + 4))"
  check "jit_${jit}_global_holds_the_list" has_ref "$d" "$(address_of "$a" records)" "table	records"
  check "jit_${jit}_list_holds_the_record" has_ref "$d" "$(address_of "$a" record)" "table	[1]"
  check "jit_${jit}_weak_cache_is_marked_weak" has_ref "$d" "$(address_of "$a" record)" "table	last	(weak)"
  check "jit_${jit}_weak_cache_table_says_v" sh -c "echo '$(object_line "$d" "$(address_of "$a" cache)")' | grep -q 'weak=v'"
  check "jit_${jit}_metatable_is_labelled" has_ref "$d" "$(address_of "$a" metatable)" "table	metatable"
  check "jit_${jit}_index_holds_the_base" has_ref "$d" "$(address_of "$a" base)" "table	__index"
  check "jit_${jit}_table_as_its_own_key" has_ref "$d" "$(address_of "$a" selfkey)" "table	key [table]"
  cdata=$(target_of "$d" "$(address_of "$a" holder)" buffer)
  check "jit_${jit}_table_holds_cdata_of_100_bytes" sh -c "echo '$(object_line "$d" "$cdata")' | grep -qE '	cdata	size=[0-9]+	count=100$'"
  closure=$(refs_to "$d" "$(address_of "$a" only_for_finalizer)" | wc -l)
  uv=$(awk -F'\t' -v t="$(address_of "$a" only_for_finalizer)" '$1 == "object" { o = $2; ty = $3 } $2 == "->" && $3 == t && ty == "upvalue" { print o; exit }' "$d")
  fn=$(awk -F'\t' -v t="$uv" '$1 == "object" { o = $2 } $2 == "->" && $3 == t && $4 == "upvalue only_for_finalizer" { print o; exit }' "$d")
  fin=$(awk -F'\t' '$1 == "root" && $2 == "ffi finalizers" { print $3 }' "$d")
  check "jit_${jit}_finalizer_upvalue_holds_the_object" test -n "$uv" -a -n "$fn" -a "$closure" -ge 1
  check "jit_${jit}_ffi_finalizers_root_holds_the_finalizer" sh -c "
    awk -F'\t' -v f='$fin' -v fn='$fn' '\$1 == \"object\" { i = \$2 == f } i && \$3 == fn && \$4 == \"[cdata]\" { found = 1 } END { exit !found }' '$d'"

  # The objects' bytes are collectgarbage("count"): every block of the VM's is
  # one object or part, with the size it was allocated with.
  check "jit_${jit}_object_bytes_are_the_heap" same_bytes "$d"
  check "jit_${jit}_snapshot_left_the_heap_as_it_was" test \
    "$(sed -n 's/^count_before //p' "$a")" = "$(sed -n 's/^count_after //p' "$a")"
done

# Objects of every kind and size (testdata/snapshot/sizes.lua): at every
# snapshot of ljleak run's (the middle's, the return boundary's), their bytes
# are the heap's. tests/test_collector_snapshot.c matches them block by block.
for jit in on off; do
  "$LJLEAK" run -j "$jit" -o "$tmp/sizes-$jit" testdata/snapshot/sizes.lua > /dev/null 2>&1
  check "sizes_jit_${jit}_runs" test $? = 0
  files=$("$LJLEAK" info --get snapshot_files "$tmp/sizes-$jit")
  check "sizes_jit_${jit}_has_snapshots" test -n "$files"
  for f in $files; do
    "$LJLEAK" snapshot "$tmp/sizes-$jit/$f" > "$tmp/sizes-$jit.dump" 2> /dev/null
    check "sizes_jit_${jit}_${f}_object_bytes_are_the_heap" same_bytes "$tmp/sizes-$jit.dump"
  done
done

# ljleak run's default: one at the end, one in the middle of a run that allocates.
cat > "$tmp/churn.lua" <<'LUA'
local keep = {}
for i = 1, 300000 do local s = { i, tostring(i) } if i % 10 == 0 then keep[#keep + 1] = s end end
LUA
"$LJLEAK" run -o "$tmp/default" "$tmp/churn.lua" > /dev/null 2>&1
check "run_default_takes_two_snapshots" test "$("$LJLEAK" info --get snapshots "$tmp/default")" = 2
# The last one goes with the main chunk's return boundary, so what the
# chunk's locals keep (keep: 30,000 tables and their strings) is in it; a
# script that fails has no return, and the exit boundary takes it.
check "run_default_last_is_at_the_return_boundary" sh -c "
  grep -q \"^boundary	seq=\$(grep '^snapshot' '$tmp/default/index' | grep -v dropped=1 | tail -n 1 | sed 's/.*boundary=\([0-9]*\).*/\1/')	.*cause=return\" '$tmp/default/index'"
check "run_default_last_holds_the_main_chunks_locals" sh -c "
  test \$(grep '^snapshot' '$tmp/default/index' | grep -v dropped=1 | tail -n 1 | sed 's/.*objects=\([0-9]*\).*/\1/') -ge 60000"
printf 'keep = {}\nfor i = 1, 1000 do keep[i] = {} end\nerror("fails")\n' > "$tmp/fails.lua"
"$LJLEAK" run -o "$tmp/fails" "$tmp/fails.lua" > /dev/null 2>&1
check "run_failed_script_last_is_at_the_exit_boundary" sh -c "
  grep -q \"^boundary	seq=\$(grep '^snapshot' '$tmp/fails/index' | grep -v dropped=1 | tail -n 1 | sed 's/.*boundary=\([0-9]*\).*/\1/')	.*cause=exit\" '$tmp/fails/index'"
check "run_default_files_exist" sh -c "for f in \$('$LJLEAK' info --get snapshot_files '$tmp/default'); do test -f '$tmp/default'/\$f || exit 1; done"
"$LJLEAK" run --snapshots none -o "$tmp/none" "$tmp/churn.lua" > /dev/null 2>&1
check "run_snapshots_none_takes_none" test "$("$LJLEAK" info --get snapshots "$tmp/none")" = 0

# Bad input.
snap=$tmp/cap-on/$first
size=$(wc -c < "$snap")
head -c $((size / 2)) "$snap" > "$tmp/cap-on/cut.heap"
"$LJLEAK" snapshot "$tmp/cap-on/cut.heap" > "$tmp/cut.out" 2> "$tmp/cut.err"
check "cut_snapshot_exits_0" test $? = 0
check "cut_snapshot_says_so_with_its_offset" grep -qE "^ljleak snapshot: warning: .*/cut.heap: byte [0-9]+: the snapshot is cut here" "$tmp/cut.err"
check "cut_snapshot_prints_its_complete_records" test "$(grep -c '^object' "$tmp/cut.out")" -gt 0
cp "$tmp/cap-off/$first" "$tmp/cap-on/foreign.heap"
"$LJLEAK" snapshot "$tmp/cap-on/foreign.heap" > /dev/null 2> "$tmp/foreign.err"
check "foreign_snapshot_is_refused" test $? = 3
check "foreign_snapshot_message_names_both_captures" grep -qE "^ljleak snapshot: error: .*/foreign.heap: byte 17: belongs to another capture \(pid [0-9]+, started [0-9.]+\), not this one \(pid [0-9]+" "$tmp/foreign.err"
printf 'ljhs\011\0\0\0' > "$tmp/v9.heap"
"$LJLEAK" snapshot "$tmp/v9.heap" > /dev/null 2> "$tmp/v9.err"
check "unknown_version_is_an_error" test $? = 3
check "unknown_version_is_named" grep -qxF "ljleak snapshot: error: $tmp/v9.heap: byte 4: heap snapshot version 9; this ljleak reads version 1" "$tmp/v9.err"
finish
