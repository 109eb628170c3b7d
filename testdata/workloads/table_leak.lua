-- table_leak.lua: each request builds a few temporary tables; every 10th
-- request keeps its record table in a global registry that is never pruned.
-- truth: leak of the record (line 10) and the parts table it holds (lines 8-9).
local registry = {}
local n = tonumber(arg and arg[1]) or 160000
local function request(i)
  local scratch = { i, i * 2, tostring(i) }
  local parts = {}
  for k = 1, 4 do parts[k] = scratch[1] + k end
  if i % 10 == 0 then registry[#registry + 1] = { id = i, parts = parts } end
  return #parts
end
for i = 1, n do request(i); last_label = "req-" .. i; if i % 10000 == 0 then collectgarbage() end end
