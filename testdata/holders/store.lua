-- testdata/holders/store.lua: a store module whose get and set share an upvalue, and set never
-- evicts (tests/e2e/holders.sh). The line that stores makes two tables per record and nothing
-- else: what the collector makes for itself while the program runs (a snapshot's cycle taken
-- in steps, with the JIT on, leaves a sentinel: a userdata, its metatable and a C function)
-- is charged to none of the program's lines.
-- usage: ljleak run store.lua [RECORDS]
local store = {}
do
  local items = {}
  function store.get(k) return items[k] end
  function store.set(k, v) items[k] = v end
end
package.loaded.store = store
local n = tonumber(arg and arg[1]) or 300000
for i = 1, n do
  local key = "session:" .. i
  store.set(key, { user = i, roles = { "r" .. (i % 7) } })
  local previous = store.get("session:" .. (i - 1))
end
