#!/bin/sh
# tests/e2e/stacks-capture.sh: one helper with a leaking and a steady caller
# (testdata/stacks/helper_two_callers.lua), captured by ljleak run with stacks, JIT on and
# off: the diff flags the helper's line and names the leaking caller growing and the
# steady one steady; --by stack flags the leaking stack alone; pprof read by go tool
# pprof puts the leaking caller first; --base by stack calls the new leaking stack new.
E2E_NAME=stacks-capture
. tests/e2e/lib.sh

LJLEAK=$(pwd)/$LJLEAK
script=helper_two_callers.lua
have_go=0
command -v go >/dev/null 2>&1 && have_go=1
export HOME="$tmp" GOCACHE="$tmp/gocache" GOPATH="$tmp/gopath" GOTOOLCHAIN=local

# Captures SCRIPT (in DIR, by its relative name, so its chunk is "@SCRIPT") into CAPTURE.
capture() {  # DIR SCRIPT CAPTURE [LJLEAK RUN OPTIONS...]
  dir=$1 name=$2 out=$3
  shift 3
  (cd "$dir" && "$LJLEAK" run -o "$out" --every 64k "$@" "$name" 20000)
}

for jit in on off; do
  cap=$tmp/jit-$jit
  if [ "$jit" = off ]; then
    capture testdata/stacks "$script" "$cap" -j off
  else
    capture testdata/stacks "$script" "$cap"
  fi
  check "jit_${jit}_capture_has_a_stack_sidecar" test -s "$cap/seg-0001.stacks"
  "$LJLEAK" diff -q "$cap" >"$tmp/$jit.txt" 2>"$tmp/$jit.err"
  check "jit_${jit}_diff_exits_1" test $? = 1
  check "jit_${jit}_helper_line_is_the_growing_site" \
    grep -Eq "  @$script:8\$" "$tmp/$jit.txt"
  # Under the site: the leaking caller (line 12, called at 22) growing, the steady one
  # (line 17, called at 23) steady.
  check "jit_${jit}_names_the_leaking_caller_growing" \
    grep -Eq "^    growing .*@$script:22;@$script:12;@$script:8\$" "$tmp/$jit.txt"
  check "jit_${jit}_steady_caller_is_steady" \
    grep -Eq "^    steady .*@$script:23;@$script:17;@$script:8\$" "$tmp/$jit.txt"
  check "jit_${jit}_steady_caller_is_not_growing" \
    sh -c "! grep -Eq '^    growing .*@$script:17;' '$tmp/$jit.txt'"

  "$LJLEAK" diff -q --by stack --format json -o "$tmp/$jit.json" "$cap"
  check "jit_${jit}_by_stack_exits_1" test $? = 1
  check "jit_${jit}_by_stack_flags_one_stack" grep -q '"flagged": 1,' "$tmp/$jit.json"
  flagged=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print([s['name'] for s in r['sites'] if s['verdict']=='growing'])" "$tmp/$jit.json")
  check "jit_${jit}_by_stack_the_flagged_stack_is_the_leaking_callers" \
    sh -c "echo \"$flagged\" | grep -q '@$script:12;@$script:8' && ! echo \"$flagged\" | grep -q ':17;'"

  # A segment whose sidecar went missing (copied without it): a warning naming it, the rest
  # read as before.
  rm -rf "$tmp/nostacks" && cp -r "$cap" "$tmp/nostacks" && rm "$tmp/nostacks/seg-0001.stacks"
  "$LJLEAK" diff -q "$tmp/nostacks" >/dev/null 2>"$tmp/nostacks.err"
  check "jit_${jit}_missing_sidecar_still_exits_1" test $? = 1
  check "jit_${jit}_missing_sidecar_is_a_warning" \
    grep -q "seg-0001.memprof: its stack sidecar is missing, though the capture has them (the index's stacks=16)" "$tmp/nostacks.err"
  "$LJLEAK" diff -q --format folded --pprof-growth -o "$tmp/$jit.folded" "$cap"
  check "jit_${jit}_folded_first_line_is_the_leaking_caller" \
    sh -c "head -n 1 '$tmp/$jit.folded' | grep -Eq '@$script:12;@$script:8 [0-9]+\$'"

  if [ "$have_go" = 1 ]; then
    "$LJLEAK" diff -q --format pprof -o "$tmp/$jit.pb.gz" "$cap"
    go tool pprof -traces "$tmp/$jit.pb.gz" >"$tmp/$jit.traces" 2>/dev/null
    check "jit_${jit}_go_tool_pprof_reads_the_traces" test $? = 0
    first=$(awk '/^-+\+/ {n++} n == 1' "$tmp/$jit.traces")
    # leak is the function defined at line 11, steady at 15.
    check "jit_${jit}_first_trace_is_the_leaking_caller" \
      sh -c "echo '$first' | grep -q '@$script:11\$' && echo '$first' | grep -q 'verdict:  growing'"
    go tool pprof -top -cum "$tmp/$jit.pb.gz" >"$tmp/$jit.top" 2>/dev/null
    check "jit_${jit}_go_tool_pprof_top" grep -q '^Type: inuse_space' "$tmp/$jit.top"
    check "jit_${jit}_leaking_caller_above_the_steady_one_in_top" \
      sh -c "l=\$(grep -n '@$script:11\$' '$tmp/$jit.top' | head -n 1 | cut -d: -f1); s=\$(grep -n '@$script:15\$' '$tmp/$jit.top' | head -n 1 | cut -d: -f1); test -n \"\$l\" && { test -z \"\$s\" || test \"\$l\" -lt \"\$s\"; }"
  else
    bad "go_is_installed (Debian package golang-go; make deps-check installs it)"
  fi
done

# ---- Base mode by stack: the base build's leak caller kept nothing ----------------------
mkdir -p "$tmp/v1" "$tmp/v2"
sed 's/^  put(kept, i)$/  put({}, i)/' testdata/stacks/$script >"$tmp/v1/helper.lua"
cp testdata/stacks/$script "$tmp/v2/helper.lua"
check "base_build_differs_in_the_leak_only" sh -c "! cmp -s '$tmp/v1/helper.lua' '$tmp/v2/helper.lua'"
capture "$tmp/v1" helper.lua "$tmp/base"
capture "$tmp/v2" helper.lua "$tmp/candidate"
"$LJLEAK" diff -q --by stack --base "$tmp/base" --format json -o "$tmp/base.json" "$tmp/candidate"
check "base_by_stack_exits_1" test $? = 1
verdicts=$(python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
for s in r['sites']:
    if s['name'].endswith('@helper.lua:12;@helper.lua:8') or s['name'].endswith('@helper.lua:17;@helper.lua:8'):
        print(s['name'].split(';')[-2], s['verdict'], s['base_verdict'])
" "$tmp/base.json" | sort)
echo "$verdicts" | sed 's/^/     /'
check "base_by_stack_leaking_caller_is_new" sh -c "echo '$verdicts' | grep -q '^@helper.lua:12 new '"
check "base_by_stack_steady_caller_is_steady_in_both" sh -c "echo '$verdicts' | grep -q '^@helper.lua:17 steady steady\$'"
finish
