-- sunk_side.lua: a table made by an inlined constructor, sunk in the loop's
-- trace and escaping every 100th iteration: the hot exit becomes a side
-- trace that makes the table, whose line only the parent trace names.
-- sunk: 7
local n = tonumber(arg and arg[1]) or 40000
local function make(i)
  return { x = i, y = i }
end
local keep = {}
local sum = 0
for i = 1, n do
  local p = make(i)
  sum = sum + p.x
  if i % 100 == 0 then keep[#keep + 1] = p end
end
print(sum, #keep)
