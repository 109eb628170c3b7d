-- tests/lua/collector_trace_loop.lua: one compiled loop of N iterations (default 300000)
-- that allocates slowly over a large retained heap: GC cycles of its own are
-- far apart, and the interpreter is not entered until the loop ends.
local n = tonumber(arg[1]) or 300000
local big = {}
for i = 1, 96 do big[i] = string.rep("x", 1024 * 1024 - 8) .. i end
local keep = {}
for i = 1, n do
  local x = 0
  for j = 1, 200 do x = x + j * i end
  keep[i % 1000 + 1] = { x }
end
print(#big, "trace loop done")
