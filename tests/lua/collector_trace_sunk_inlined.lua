-- tests/lua/collector_trace_sunk_inlined.lua: a table made by an inlined constructor (line 4), sunk in the loop's trace and escaping every 100th iteration (line 10), where the hot exit becomes a side trace that makes it.
local keep = {}
local function make(i)
  return { x = i, y = i }
end
local sum = 0
for i = 1, 20000 do
  local p = make(i)
  sum = sum + p.x
  if i % 100 == 0 then keep[#keep + 1] = p end
end
print(sum, #keep)
