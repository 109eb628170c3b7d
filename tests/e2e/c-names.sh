#!/bin/sh
# tests/e2e/c-names.sh: C functions named as Lua code calls them (cjson.decode,
# lpeg.match, from Debian's lua-cjson and lua-lpeg), with their library in the
# index and the JSON result; else by their ELF symbol (.symtab, a debug file
# found by build-id), else module+0xOFFSET; and the runner's frame named, in
# no output format a raw address of the host program.
E2E_NAME=c-names
. tests/e2e/lib.sh

# A workload that keeps what cjson.decode and lpeg's match made, and strings
# made by a C function that no Lua table holds (hidden.so's keep_strings).
cat > "$tmp/keep.lua" <<'LUA'
local cjson = require "cjson"
local lpeg = require "lpeg"
local hidden = require "hidden"
local pattern = lpeg.Ct(lpeg.C(lpeg.P"a"^1) * lpeg.C(lpeg.P"b")^0)
local keep_strings = hidden.make()
local kept = {}
for i = 1, 3000 do
  kept[#kept + 1] = cjson.decode('{"a":[1,2,3],"b":"x' .. i .. '"}')
  kept[#kept + 1] = pattern:match("aaab" .. string.rep("b", i % 7))
  kept[#kept + 1] = keep_strings(i)
  if i % 300 == 0 then collectgarbage() end
end
LUA
cat > "$tmp/hidden.c" <<'C'
#include <lauxlib.h>
#include <stdio.h>
/* Static (no .dynsym entry), reachable from Lua only as what hidden.make() returns. */
static __attribute__((noinline)) int keep_strings(lua_State *L)
{
  char text[64];
  snprintf(text, sizeof text, "kept string %d", (int)luaL_checkinteger(L, 1));
  lua_pushstring(L, text);
  return 1;
}
static int make(lua_State *L) { lua_pushcclosure(L, keep_strings, 0); return 1; }
int luaopen_hidden(lua_State *L)
{
  lua_newtable(L);
  lua_pushcfunction(L, make);
  lua_setfield(L, -2, "make");
  return 1;
}
C
mkdir -p "$tmp/symtab" "$tmp/stripped" "$tmp/debug"
# shellcheck disable=SC2046
cc -shared -fPIC -g -Wl,--build-id $(pkg-config --cflags luajit) -o "$tmp/symtab/hidden.so" "$tmp/hidden.c"
cp "$tmp/symtab/hidden.so" "$tmp/stripped/hidden.so"
strip --strip-all "$tmp/stripped/hidden.so"
build_id=$(readelf -n "$tmp/symtab/hidden.so" | awk '/Build ID/ { print $3 }')
mkdir -p "$tmp/debug/.build-id/$(echo "$build_id" | cut -c1-2)"
objcopy --only-keep-debug "$tmp/symtab/hidden.so" \
  "$tmp/debug/.build-id/$(echo "$build_id" | cut -c1-2)/$(echo "$build_id" | cut -c3-).debug"

# run DIR CPATH_DIR [VAR=VALUE]: a capture of keep.lua with hidden.so from CPATH_DIR.
run() {
  out=$1 from=$2
  shift 2
  env LUA_CPATH="$from/?.so;${LUA_CPATH:-;}" "$@" "$LJLEAK" run -o "$out" "$tmp/keep.lua"
}

run "$tmp/cap" "$tmp/symtab" 2>"$tmp/run.err"
check "the workload runs under ljleak run" test -f "$tmp/cap/index"
index_has() { grep -qxF "$(printf 'c_function\tname=%s\tlibrary=%s\torigin=%s' "$2" "$3" "$4")" "$1/index"; }
check "the index names cjson.decode in cjson.so by its Lua name" index_has "$tmp/cap" cjson.decode cjson.so lua
check "the index names lpeg.match in lpeg.so by its Lua name" index_has "$tmp/cap" lpeg.match lpeg.so lua
check "a metamethod of lpeg's pattern metatable is named by the registry's key" \
  index_has "$tmp/cap" lpeg-pattern.__mul lpeg.so lua
check "a C function no table holds is named by its library's .symtab" \
  index_has "$tmp/cap" keep_strings hidden.so symtab
check "an exported one no table holds (a module's opener) by its .dynsym" \
  index_has "$tmp/cap" luaopen_cjson cjson.so dynsym

"$LJLEAK" diff --format json "$tmp/cap" > "$tmp/cap.json" 2>/dev/null
# site NAME: the library of the first site named NAME in the JSON result
# (its "library" comes five lines after its "name").
site() {
  grep -A5 "^      \"name\": \"$1\",\$" "$tmp/cap.json" |
    sed -n 's/^      "library": "\(.*\)",$/\1/p' | head -n 1
}
check "the kept cjson.decode results are the site cjson.decode, library cjson.so" \
  test "$(site cjson.decode)" = cjson.so
check "the kept lpeg captures are the site lpeg.match, library lpeg.so" test "$(site lpeg.match)" = lpeg.so
check "keep_strings's strings are the site keep_strings, library hidden.so" \
  test "$(site keep_strings)" = hidden.so
"$LJLEAK" diff "$tmp/cap" > "$tmp/cap.txt" 2>&1
check "the text report shows the library beside a C site" grep -q 'cjson\.decode (cjson\.so)' "$tmp/cap.txt"
check "the text report's stacks start at the runner, named" grep -q 'ljleak run;@.*keep\.lua:8;cjson\.decode' "$tmp/cap.txt"

# No output format starts a stack with a raw address of the host program.
program=$(basename "$LJLEAK")
for format in text html json junit markdown pprof folded; do
  "$LJLEAK" diff --format "$format" -o "$tmp/out.$format" "$tmp/cap" >/dev/null 2>&1
  if [ "$(head -c 2 "$tmp/out.$format" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
    gzip -dc < "$tmp/out.$format" > "$tmp/out.$format.raw"
  else
    cp "$tmp/out.$format" "$tmp/out.$format.raw"
  fi
  check "$format: the runner's frame is named" grep -aq 'ljleak run' "$tmp/out.$format.raw"
  check "$format: no $program+0x frame" test -z "$(grep -a "$program+0x" "$tmp/out.$format.raw")"
done
check "folded: stacks start at the runner, named" grep -q '^ljleak run;' "$tmp/out.folded.raw"
check "HTML: the library beside a C site" grep -q 'c in cjson.so' "$tmp/out.html.raw"
check "Markdown: the library beside a C site" grep -qF '`cjson.decode` (`cjson.so`)' "$tmp/out.markdown.raw"

# One function under several names: the lowest rank (a module's field
# before a global), then the shortest, then the first in byte order; the
# same whatever order the tables were filled in.
for order in "aa zz" "zz aa"; do
  cat > "$tmp/alias.lua" <<LUA
local cjson = require "cjson"
for name in ("$order"):gmatch("%S+") do package.loaded[name] = { decode = cjson.decode } end
decode = cjson.decode
package.loaded.long_module_name = { d = cjson.decode }
local kept = {}
for i = 1, 200 do kept[i] = cjson.decode('[' .. i .. ']') end
LUA
  rm -rf "$tmp/alias"
  "$LJLEAK" run -o "$tmp/alias" "$tmp/alias.lua" 2>/dev/null
  check "filled as $order: cjson.decode is aa.decode (module field, shortest, first)" \
    index_has "$tmp/alias" aa.decode cjson.so lua
done

# The fallbacks: a stripped library is named by module+offset, and by its
# debug file when the build-id directory has one.
run "$tmp/stripped-cap" "$tmp/stripped" 2>/dev/null
check "a stripped library's hidden function is hidden.so+0xOFFSET" \
  grep -q "$(printf '^c_function\tname=hidden\\.so+0x[0-9a-f]*\tlibrary=hidden\\.so\torigin=offset$')" \
  "$tmp/stripped-cap/index"
run "$tmp/debug-cap" "$tmp/stripped" LJLEAK_DEBUG_DIR="$tmp/debug" 2>/dev/null
check "with its debug file under LJLEAK_DEBUG_DIR it is keep_strings again" \
  index_has "$tmp/debug-cap" keep_strings hidden.so debug-file
finish
