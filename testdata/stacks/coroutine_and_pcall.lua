-- testdata/stacks/coroutine_and_pcall.lua: allocations in a coroutine (line
-- 8: its stack ends at the coroutine's bottom) and under pcall (line 15: a
-- builtin between the callee and its caller, line 18). -j off in the tests.
local keep = {}

local co = coroutine.wrap(function()
  for i = 1, 100 do
    keep[#keep + 1] = {i}
    coroutine.yield()
  end
end)
for _ = 1, 100 do co() end

local function inner(i)
  keep[#keep + 1] = {i, i}
end
for i = 1, 100 do
  pcall(inner, i)
end
