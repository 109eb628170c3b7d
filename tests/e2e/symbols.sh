#!/bin/sh
# tests/e2e/symbols.sh: what the built objects export: collector.so only its C API and
# luaopen (collector/ljleak_collector.h), the ljleak binary nothing (no -rdynamic).
E2E_NAME=symbols
. tests/e2e/lib.sh
so=$BUILD/lua/ljleak/collector.so

# The functions marked LJLEAK_API in the public header, sorted.
grep -o 'LJLEAK_API [a-z ]*[ *]\([a-z_]*\)(' collector/ljleak_collector.h |
  sed 's/.*[ *]\([a-z_]*\)($/\1/' | sort > "$tmp/api"
nm -D --defined-only "$so" | awk '{ print $3 }' | sort > "$tmp/so"
check "the public header marks 18 functions LJLEAK_API" test "$(wc -l < "$tmp/api")" -eq 18
check "collector.so exports exactly the LJLEAK_API functions" cmp -s "$tmp/api" "$tmp/so" ||
  diff "$tmp/api" "$tmp/so"
check "collector.so exports luaopen_ljleak_collector" grep -qx luaopen_ljleak_collector "$tmp/so"
nm -D --defined-only "$LJLEAK" > "$tmp/ljleak"
check "ljleak exports no symbol of its own" test ! -s "$tmp/ljleak"
# A C module that ljleak run loads finds the Lua C API in libluajit, not in ljleak.
cat > "$tmp/twice.c" <<'C'
#include <lauxlib.h>
static int twice(lua_State *L) { lua_pushinteger(L, 2 * luaL_checkinteger(L, 1)); return 1; }
int luaopen_twice(lua_State *L) { lua_pushcfunction(L, twice); return 1; }
C
cat > "$tmp/main.lua" <<'LUA'
local c = require "ljleak.collector"
assert(c.status().active)
assert(require "twice"(21) == 42)
print "ok"
LUA
cc -shared -fPIC $(pkg-config --cflags luajit) -o "$tmp/twice.so" "$tmp/twice.c"
check "a C module and the collector load in a script under ljleak run" \
  test "$(LUA_CPATH="$tmp/?.so" "$LJLEAK" run -o "$tmp/cap" "$tmp/main.lua" 2>&1)" = ok
finish
