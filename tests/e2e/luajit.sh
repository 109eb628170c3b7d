#!/bin/sh
# tests/e2e/luajit.sh: a capture of a leaking workload and its diff on the
# LuaJIT this build is for (Debian's luajit or OpenResty's luajit2; make
# check-other-luajit runs it again on the other one, from env.sh): the diff
# names the leaking line, and the index, ljleak info and the reports name the
# LuaJIT exactly. With CROSS_BUILD (the build for the other LuaJIT) and
# CROSS_LUAJIT (that LuaJIT's luajit), each collector refuses the other VM
# and says which LuaJIT it was built for and how to build for the running one.
E2E_NAME=luajit
. tests/e2e/lib.sh

# The package this build fetched the source of (mk/luajit.mk).
case "$(cat "$BUILD/luajit-src/.ljleak-version" 2>/dev/null)" in
  luajit=*) flavour=debian package=libluajit-5.1-2 built="Debian's LuaJIT" hint="make LUAJIT=luajit" ;;
  luajit2=*) flavour=openresty package=libluajit2-5.1-2 built="OpenResty's LuaJIT" hint="make LUAJIT=luajit2" ;;
  *) echo "skip: $BUILD was built from LUAJIT_SRC, not a package"; finish; exit ;;
esac
version=$(sed 's/^[^=]*=//' "$BUILD/luajit-src/.ljleak-version")
vm=$(luajit -e 'io.write(jit.version)')
echo "LuaJIT: $flavour $package $version ($vm), luajit $(command -v luajit)"

if [ -n "${LJLEAK_LUAJIT_ROOT:-}" ]; then
  check "ljleak_links_the_private_library" sh -c \
    "ldd '$LJLEAK' | grep -q '=> $LJLEAK_LUAJIT_ROOT/.*libluajit-5.1.so.2'"
  check "luajit_is_the_private_one" test "$(command -v luajit)" = "$LJLEAK_LUAJIT_ROOT/usr/bin/luajit"
fi
"$LJLEAK" run -v -o "$tmp/cap" testdata/workloads/closure_leak.lua > "$tmp/run.out" 2> "$tmp/run.err"
check "run_exits_0" test $? = 0
check "run_v_is_the_running_luajit" test "$(head -n 1 "$tmp/run.out")" = "$(luajit -v)"

"$LJLEAK" info "$tmp/cap" > "$tmp/info"
check "info_names_the_vm" grep -qxF "luajit=$vm" "$tmp/info"
check "info_names_the_flavour" grep -qxF "luajit_flavour=$flavour" "$tmp/info"
check "info_names_the_package" grep -qxF "luajit_package=$package" "$tmp/info"
check "info_names_the_package_version" grep -qxF "luajit_package_version=$version" "$tmp/info"

"$LJLEAK" diff "$tmp/cap" > "$tmp/diff.txt" 2>&1
check "diff_finds_a_leak" test $? = 1
check "diff_names_the_leaking_line" grep -qE '^ *\+.*@testdata/workloads/closure_leak.lua:1[01]$' "$tmp/diff.txt"
named="$vm ($flavour: $package $version)"
check "text_report_names_the_luajit" grep -qF ", $named, $tmp/cap" "$tmp/diff.txt"
"$LJLEAK" diff --format json -o "$tmp/result.json" "$tmp/cap" 2>/dev/null
"$LJLEAK" report --format html -o "$tmp/report.html" "$tmp/result.json"
check "html_report_names_the_luajit" grep -qF "<dt>LuaJIT</dt><dd>$named</dd>" "$tmp/report.html"

# A layout that does not match (simulated) names the LuaJIT built for and
# the command for the running one.
load='local c = require "ljleak.collector" local ok, err = c.start{dir = os.getenv("OUT")} io.write(tostring(err))'
OUT=$tmp/x0 LJLEAK_TEST_BREAK_LAYOUT=1 LJLEAK_SIGNAL=none LUA_CPATH="$BUILD/lua/?.so" luajit -e "$load" > "$tmp/x0.err" 2>&1
check "refusal_names_the_luajit_built_for_and_the_command" grep -qF \
  "the collector was built for $built ($package $version, $vm) and does not match the running library; build it for the running one with: $hint (or make LUAJIT_SRC=DIR, its source tree)" "$tmp/x0.err"

# The other build's collector in this LuaJIT, and this build's in the other.
if [ -n "${CROSS_BUILD:-}" ] && [ -n "${CROSS_LUAJIT:-}" ]; then
  OUT=$tmp/x1 LJLEAK_SIGNAL=none LUA_CPATH="$CROSS_BUILD/lua/?.so" luajit -e "$load" > "$tmp/x1.err" 2>&1
  if [ "$flavour" = openresty ]; then
    running="is OpenResty's LuaJIT (it has lua_setexdata)" other="Debian's LuaJIT" other_pkg=libluajit-5.1-2
  else
    running="is not OpenResty's LuaJIT (it lacks lua_setexdata)" other="OpenResty's LuaJIT" other_pkg=libluajit2-5.1-2
  fi
  check "other_collector_refuses_this_luajit" grep -qF "LuaJIT layout check failed: the running library (luajit) $running; the collector was built for $other ($other_pkg " "$tmp/x1.err"
  check "other_collector_gives_the_command_for_this_luajit" grep -qF "build it for the running one with: $hint (or" "$tmp/x1.err"
  (unset LD_LIBRARY_PATH LUA_PATH
   OUT=$tmp/x2 LJLEAK_SIGNAL=none LUA_CPATH="$BUILD/lua/?.so" "$CROSS_LUAJIT" -e "$load") > "$tmp/x2.err" 2>&1
  check "this_collector_refuses_the_other_luajit" grep -qF "the collector was built for $built ($package $version, LuaJIT " "$tmp/x2.err"
  check "no_capture_was_made" test ! -e "$tmp/x1/index" -a ! -e "$tmp/x2/index"
fi

finish
