-- testdata/holders/known.lua: leaks whose holders are known (tests/e2e/holders.sh). Each case
-- leaks at its own line, marked "-- leak: PATH" with the path `ljleak diff` must name as its
-- holder at the heap snapshot of the exit boundary (FILE stands for this chunk's name).
-- usage: ljleak run known.lua [ROUNDS]
local ffi = require "ffi"
local rounds = tonumber(arg and arg[1]) or 60

-- A list held by an upvalue of a global function (in a block: no local of the main chunk holds it).
do local handlers = {}
function on(f) handlers[#handlers + 1] = f end end

-- A module table in package.loaded, with a cache keyed by unique tokens.
package.loaded.auth = { tokens = {} }

-- A parked coroutine's local.
parked = coroutine.create(function()
  local pending = {}
  while true do
    pending[#pending + 1] = { "job" } -- leak: _G.parked ▸ local pending in function@FILE:16-22[*]
    coroutine.yield()
  end
end)

-- A producer (coroutine.wrap) whose function keeps what it makes in an upvalue.
do local made = {}
produce = coroutine.wrap(function()
  while true do
    made[#made + 1] = { "item" } -- leak: _G.produce ▸ upvalue 1 ▸ running function@FILE:26-31 ▸ upvalue made[*]
    coroutine.yield()
  end
end) end

-- A global list, and a weak cache beside it holding the same records.
records = {}
cache = setmetatable({}, { __mode = "v" })

-- A metatable's __index table.
instance = setmetatable({}, { __index = {} })

-- Tables used as their own key, kept as keys of a global table.
owners = {}

-- cdata kept by a Lua table.
buffers = {}

-- Objects kept only by a finalizer's upvalue: the cdata is kept, its finalizer holds them.
handles = {}
local function keep(i)
  local only_for_finalizer = { i } -- leak: (ffi finalizers)[*] ▸ upvalue only_for_finalizer (lives while its key lives; the key is held by _G.handles[*])
  handles[#handles + 1] = ffi.gc(ffi.new("int[1]"), function() return only_for_finalizer end)
end

for round = 1, rounds do
  for k = 1, 4 do
    local n = (round - 1) * 4 + k
    on({ n }) -- leak: _G.on ▸ upvalue handlers[*]
    package.loaded.auth.tokens["token-" .. n] = { n } -- leak: auth.tokens[*]
    coroutine.resume(parked)
    produce()
    local record = { n, n } -- leak: _G.records[*]
    records[#records + 1] = record
    cache[n] = record
    getmetatable(instance).__index["method" .. n] = { n, n, n } -- leak: getmetatable(_G.instance).__index[*]
    local key = { n, n, n, n } -- leak: _G.owners[key *]
    key[key] = true
    owners[key] = true
    buffers[#buffers + 1] = ffi.new("char[100]") -- leak: _G.buffers[*]
    keep(n)
  end
  collectgarbage()
end
