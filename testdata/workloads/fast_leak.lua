-- fast_leak.lua: a request loop that keeps a closure per request (about 40 MB
-- a second): the heap grows fast, and LuaJIT's incremental cycles stretch with
-- it, so the run has few GC cycles of its own for its allocations.
-- truth: the closure and its state are made at line 9 and kept at line 10.
local handlers = {}
local n = tonumber(arg and arg[1]) or 160000
local function request(i)
  local scratch = { i, i * 2, tostring(i) }
  local state = { id = i, name = scratch[3] }; local cb = function() return state.id end
  handlers[#handlers + 1] = cb
  return #scratch
end
for i = 1, n do request(i); last_label = "req-" .. i end
