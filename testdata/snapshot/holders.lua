-- testdata/snapshot/holders.lua: objects whose holders are known, and a heap snapshot of them
-- (tests/e2e/snapshot.sh). usage: ljleak run holders.lua OUT: writes to OUT the addresses of
-- the objects, one "name address" a line, and the heap's size around a second snapshot.
local collector = require "ljleak.collector"
local ffi = require "ffi"
local out = assert(io.open(assert(arg[1], "usage: holders.lua OUT"), "w"))
local function address(x) return (tostring(x):match("0x%x+")) end

-- A list held by an upvalue.
local handlers = {}
local function on(f) handlers[#handlers + 1] = f end
on(function() end)
-- A module table in package.loaded, with a cache field.
package.loaded.auth = { tokens = {} }
package.loaded.auth.tokens["token-1"] = {}
-- A parked coroutine's local.
local parked = coroutine.create(function()
  local pending = {}
  coroutine.yield(pending)
  return pending
end)
local _, pending = coroutine.resume(parked)
-- A global list, and a weak cache beside it holding the same record.
records = {}
local record = {}
records[1] = record
local cache = setmetatable({}, { __mode = "v" })
cache.last = record
-- A metatable's __index table.
local base = {}
local instance = setmetatable({}, { __index = base })
-- A table used as its own key.
local selfkey = {}
selfkey[selfkey] = true
-- cdata kept by a Lua table.
local holder = { buffer = ffi.new("char[100]") }
-- An object kept only for a finalizer: the finalizer's upvalue.
local only_for_finalizer = {}
local finalized = ffi.gc(ffi.new("int[1]"), function() return only_for_finalizer end)

for _, entry in ipairs({
  { "handlers", handlers }, { "on", on }, { "auth", package.loaded.auth },
  { "tokens", package.loaded.auth.tokens }, { "loaded", debug.getregistry()._LOADED },
  { "registry", debug.getregistry() }, { "pending", pending }, { "parked", parked },
  { "records", records }, { "globals", _G }, { "record", record }, { "cache", cache },
  { "base", base }, { "metatable", getmetatable(instance) }, { "selfkey", selfkey },
  { "holder", holder }, { "only_for_finalizer", only_for_finalizer },
}) do
  out:write(entry[1], " ", address(entry[2]), "\n")
end
out:flush()

assert(collector.snapshot() == 1)
-- A second one on a heap that did not change: the walk allocated and freed nothing, and the
-- program goes on.
local before = collectgarbage("count")
assert(collector.snapshot() == 2)
local after = collectgarbage("count")
out:write("count_before ", string.format("%.0f", before * 1024), "\ncount_after ", string.format("%.0f", after * 1024), "\n")
out:close()
-- Still all there and working.
assert(coroutine.resume(parked) and coroutine.status(parked) == "dead")
assert(#handlers == 1 and records[1] == record and cache.last == record and instance.x == nil)
assert(selfkey[selfkey] and holder.buffer[99] == 0 and finalized[0] == 0)
