-- nested_loops.lua: allocations in an inner compiled loop and in the outer
-- loop around it.
local n = tonumber(arg and arg[1]) or 2000
local rows = {}
for i = 1, n do
  local row = {}
  for j = 1, 16 do
    row[j] = { i, j }
  end
  rows[i % 64 + 1] = { row, "row" .. i }
end
print(#rows)
