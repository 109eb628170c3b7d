-- tests/lua/collector_trace_sunk.lua: a table the JIT sinks (line 5), made only when it escapes at an exit every 100th iteration (line 7).
local keep = {}
local sum = 0
for i = 1, 20000 do
  local p = { x = i, y = i }
  sum = sum + p.x
  if i % 100 == 0 then keep[#keep + 1] = p end
end
print(sum, #keep)
